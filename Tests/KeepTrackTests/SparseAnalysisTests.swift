import XCTest
@testable import KeepTrackFraming
@testable import KeepTrackReframePipeline
import Foundation

/// The pieces that let the analysis decode only referenced frames: every frame's time from the sample
/// table, and cuts that fall between two analysed frames settled by the encoding pass.
final class SparseAnalysisTests: XCTestCase {
    func testTimelineSortsPresentationTimesAndFindsEachFrame() throws {
        // Decode order I P B B with composition offsets: presentation order is I B B P.
        let timeline = try XCTUnwrap(PresentationTimeline(presentationTimes: [0, 3000, 1000, 2000]))
        XCTAssertEqual(timeline.times, [0, 1000, 2000, 3000])
        XCTAssertEqual(timeline.index(of: 2000), 2)
        XCTAssertEqual(timeline.index(of: 0), 0)
        XCTAssertNil(timeline.index(of: 1500), "no frame is shown at that time")
        XCTAssertNil(timeline.index(of: 4000))
        XCTAssertNil(PresentationTimeline(presentationTimes: [0, 1000, 1000]), "two frames at one time cannot be told apart")
    }

    /// The I- and P-frames (shown later than everything decoded before them), found from the times alone.
    func testAnchorSpacingIsTheLargestGapBetweenFramesDecodedInOrder() throws {
        func spacing(_ decodingOrder: [Int64]) throws -> Int {
            try XCTUnwrap(PresentationTimeline(presentationTimes: decodingOrder)).anchorSpacing(decodingOrder: decodingOrder)
        }
        XCTAssertEqual(try spacing([0, 1, 2, 3, 4]), 1, "no B-frames")
        XCTAssertEqual(try spacing([0, 3, 1, 2, 6, 4, 5]), 3, "I P B B P B B")
        XCTAssertEqual(try spacing([0, 4, 2, 1, 3, 8, 6, 5, 7]), 4, "a B-pyramid: its middle B-frame is referenced, and skipped too")
        XCTAssertEqual(try spacing([2, 0, 1, 5, 3, 4]), 3, "an open GOP: two B-frames shown before the first I-frame")
        XCTAssertEqual(try spacing([0, 1, 9, 2, 3, 4, 5, 6, 7, 8]), 8, "eight B-frames once")
    }

    /// A detection's findings are copied to the ends of the stretches around it where nothing changed around
    /// what it found (its head and the body below it; elsewhere, anything may move), not over another look and
    /// not when it found nobody, marked held; the planner follows them there and does not count them as faces seen.
    func testDetectionsAreHeldWhereNothingAroundWhatTheyFoundChanged() {
        let left = FaceDetection(box: FrameRect(x: 200, y: 300, width: 120, height: 120), confidence: 90)
        let right = FaceDetection(box: FrameRect(x: 1400, y: 300, width: 120, height: 120), confidence: 90)
        let samples = [DetectionSample(frameIndex: 0, faces: [left]), DetectionSample(frameIndex: 30, faces: [left]),
                       DetectionSample(frameIndex: 61, faces: [right]), DetectionSample(frameIndex: 90, faces: []),
                       DetectionSample(frameIndex: 119, faces: [right])]
        let grid = StillPictures.Grid(columns: 64, rows: 36, blockWidth: 30, blockHeight: 30)
        func block(x: Double, y: Double) -> UInt16 { UInt16(Int(y / 30) * 64 + Int(x / 30)) }
        // Frames 31-51: something moves far from the face (two blocks at the right edge), and one block of the face
        // flickers; frame 52 changes the face itself. Frames 52-60 are the same as 61's picture but for the face's place.
        var still = StillPictures(grid: grid)
        let far = [block(x: 1900, y: 500), block(x: 1900, y: 530)]
        still.after[30] = (31...51).map { .init(frame: $0, changedBlocks: far + [block(x: 250, y: 350)]) }
            + [.init(frame: 52, changedBlocks: [block(x: 210, y: 310), block(x: 260, y: 350)])]
        still.before[61] = (52...60).reversed().map { .init(frame: $0, changedBlocks: far) }
        still.after[90] = [.init(frame: 100, changedBlocks: [])]
        still.before[119] = [.init(frame: 118, changedBlocks: nil)]
        let held = DetectionSample.holding(samples, still: still)
        XCTAssertEqual(held.map(\.frameIndex), [0, 30, 51, 52, 61, 90, 119])
        XCTAssertEqual(held.filter(\.held).map(\.frameIndex), [51, 52])
        XCTAssertEqual(held.first { $0.frameIndex == 51 }?.faces, [left])
        XCTAssertEqual(held.first { $0.frameIndex == 52 }?.faces, [right])
        XCTAssertEqual(DetectionSample.holding(samples, still: StillPictures()), samples)
        // Without the grid (a rotated picture), the whole picture must stand still: the far blocks break it.
        var whole = still
        whole.grid = nil
        XCTAssertEqual(DetectionSample.holding(samples, still: whole).filter(\.held).map(\.frameIndex), [])

        let planner = CameraPathPlanner(sourceWidth: 1920, sourceHeight: 1080, cropWidth: 608, cropHeight: 1080)
        let times = (0..<120).map { Double($0) / 30 }
        let path = planner.plan(frameTimes: times, samples: held, cuts: [])
        XCTAssertEqual(path.subjectFaces.map(\.frameIndex), [0, 30, 61, 119], "the faces the detector saw")
        let spread = planner.plan(frameTimes: times, samples: samples, cuts: [])
        let halfWay = { (path: CropPath) in path.offsets.firstIndex { $0 >= (path.offsets[0] + path.offsets[119]) / 2 } ?? -1 }
        XCTAssertEqual(Double(halfWay(path)), 51.5, accuracy: 3, "centred on the move, between frames 51 and 52")
        XCTAssertEqual(Double(halfWay(spread)), 45.5, accuracy: 1, "without the held ones, the move is spread between frames 30 and 61")
    }

    /// The differences kept for still stretches stop at their budget, whatever the clip's length.
    func testStillStretchesKeepNoMoreThanTheirBudget() {
        var still = StillPictures()
        let changed = (0..<UInt16(StillPictures.listed)).map { $0 }
        var frame = 0
        while still.record(.init(frame: frame, changedBlocks: changed), after: 0) { frame += 1 }
        XCTAssertLessThanOrEqual(still.bytes, StillPictures.budget)
        XCTAssertGreaterThan(frame, 100_000, "frames kept before the budget ran out")
        XCTAssertEqual(still.after[0]?.count, frame)
        still.record([.init(frame: frame + 1, changedBlocks: changed)], before: frame + 2)
        XCTAssertNil(still.before[frame + 2], "nothing kept past the budget")
    }

    func testSkippedFramesGoWithTheShotTheyLookLike() {
        let blue = [0.7, 0.3, 0, 0], green = [0, 0, 0.4, 0.6]
        let cut = UncertainCut(lastBefore: 59, firstAfter: 62, before: blue, after: green)
        XCTAssertEqual(cut.skipped, 60..<62)
        XCTAssertTrue(cut.belongsToNewShot([0, 0.05, 0.35, 0.6]))
        XCTAssertFalse(cut.belongsToNewShot([0.65, 0.35, 0, 0]))
        XCTAssertEqual(UncertainCut.distance(blue, green), 1)
        XCTAssertEqual(UncertainCut.distance(blue, blue), 0)
    }

    func testMovingACutBackGivesTheSkippedFramesTheNewShotsCrop() {
        let scene = SyntheticScene(frameCount: 120, cuts: [62]) { SyntheticScene.faceAt($0 < 62 ? 500 : 1400) }
        var path = scene.plan()
        XCTAssertEqual(path.shots, [0..<62, 62..<120])
        let newShot = path.offsets[62], oldShot = path.offsets[0]
        path.moveCut(from: 62, to: 60)
        XCTAssertEqual(path.shots, [0..<60, 60..<120])
        XCTAssertEqual(Array(path.offsets[0..<60]), Array(repeating: oldShot, count: 60))
        XCTAssertEqual(Array(path.offsets[60..<120]), Array(repeating: newShot, count: 60))
        let unchanged = path
        path.moveCut(from: 90, to: 80)
        XCTAssertEqual(path, unchanged, "no shot starts at 90: nothing moves")
        path.moveCut(from: 60, to: 0)
        XCTAssertEqual(path, unchanged, "a cut never moves to or before the start of the shot before it")
    }
}

/// The analysis's detection rhythm depends only on detections old enough to wait for, never on how fast
/// the detector thread happens to be.
final class BackgroundDetectionsTests: XCTestCase {
    func testStatesComeInSubmissionOrderWhateverTheDetectorsSpeed() throws {
        let face = FaceDetection(box: FrameRect(x: 100, y: 100, width: 50, height: 50), confidence: 90)
        for seed in 0..<3 {
            // Picture i is a face unless i % 3 == 2; the detector takes 0–4 ms, differently on every run.
            let detections = BackgroundDetections { picture in
                usleep(UInt32.random(in: 0...4000))
                return picture.bgr[0] % 3 == 2 ? [] : [face]
            }
            var seen: [Bool] = []
            for index in 0..<24 {
                let known = detections.submitted - BackgroundDetections.lag
                if known >= 0 { seen.append(detections.state(after: known).foundNothing) }
                detections.submit(frameIndex: index, picture: DetectionPicture(bgr: [UInt8(index)], width: 1, height: 1, rowStride: 3), scale: 1)
            }
            let expected = (0..<(24 - BackgroundDetections.lag)).map { $0 % 3 == 2 }
            XCTAssertEqual(seen, expected, "run \(seed)")
            let finished = try detections.finish()
            XCTAssertEqual(finished.samples.map(\.frameIndex), Array(0..<24))
            XCTAssertTrue(detections.state(after: 4).steady, "the same face again: steady")
        }
    }
}
