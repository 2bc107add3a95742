import XCTest
@testable import KeepTrackReframe

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
