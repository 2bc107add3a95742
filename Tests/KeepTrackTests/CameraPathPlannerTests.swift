import XCTest
@testable import KeepTrackFraming

/// A synthetic scene: where the face really is on every frame (nil when it is out of view), and what a
/// detector analysing every `sampleEvery`-th frame would report (a few pixels of deterministic noise,
/// nothing when most of the face is outside the frame).
struct SyntheticScene {
    static let width = 1920, height = 1080, fps = 30.0
    var frameCount: Int
    var sampleEvery = 6
    var cuts: [Int] = []
    var face: (Int) -> FrameRect?

    var frameTimes: [Double] { (0..<frameCount).map { Double($0) / Self.fps } }
    var truth: [Sighting] { (0..<frameCount).compactMap { index in face(index).map { Sighting(frameIndex: index, box: $0) } } }

    var samples: [DetectionSample] {
        var generator = NoiseGenerator(seed: 7)
        let frame = FrameRect(x: 0, y: 0, width: Double(Self.width), height: Double(Self.height))
        return stride(from: 0, to: frameCount, by: sampleEvery).map { index in
            guard var box = face(index) else { return DetectionSample(frameIndex: index, faces: []) }
            let visibleWidth = min(box.maxX, frame.maxX) - max(box.x, frame.x)
            guard visibleWidth > 0.6 * box.width else { return DetectionSample(frameIndex: index, faces: []) }
            box.x += generator.next(amplitude: 3)
            box.y += generator.next(amplitude: 3)
            box.width += generator.next(amplitude: 2)
            return DetectionSample(frameIndex: index, faces: [FaceDetection(box: box, confidence: 90)])
        }
    }

    func plan(settings: CameraPathPlanner.Settings = .init()) -> CropPath {
        let crop = CameraPathPlanner.cropSize(sourceWidth: Self.width, sourceHeight: Self.height, aspectWidth: 9, aspectHeight: 16)
        return CameraPathPlanner(sourceWidth: Self.width, sourceHeight: Self.height, cropWidth: crop.width,
                                 cropHeight: crop.height, settings: settings)
            .plan(frameTimes: frameTimes, samples: samples, cuts: cuts)
    }

    /// A 160x200 face whose centre is at `x` (and a fixed height).
    static func faceAt(_ x: Double) -> FrameRect { FrameRect(x: x - 80, y: 300, width: 160, height: 200) }
}

/// Small deterministic noise (linear congruential), so tests are repeatable.
struct NoiseGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(amplitude: Double) -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return (Double(state >> 11) / Double(1 << 53) * 2 - 1) * amplitude
    }
}

final class CameraPathPlannerTests: XCTestCase {
    let settings = CameraPathPlanner.Settings()
    var speedLimit: Double { settings.maximumSpeed * Double(SyntheticScene.width) }
    /// Three moving averages of `smoothingSeconds` turn a worst-case speed reversal (-v to +v) into a ramp
    /// no steeper than 2v / smoothingSeconds; measured over ±3 frames with 2-pixel steps, allow 25% more.
    var accelerationLimit: Double { 2 * speedLimit / settings.smoothingSeconds * 1.25 }

    private func assertInsideFrameAndCalm(_ path: CropPath, _ scene: SyntheticScene, reversalsAtMost: Int = 0,
                                          file: StaticString = #filePath, line: UInt = #line) -> PathStatistics {
        let frame = FrameRect(x: 0, y: 0, width: Double(SyntheticScene.width), height: Double(SyntheticScene.height))
        for index in path.offsets.indices {
            XCTAssertTrue(frame.contains(path.rect(frame: index)), "frame \(index) crop outside the picture", file: file, line: line)
            XCTAssertEqual(path.offsets[index] % 2, 0, file: file, line: line)
        }
        let statistics = PathStatistics(path: path, frameTimes: scene.frameTimes)
        XCTAssertLessThanOrEqual(statistics.reversals, reversalsAtMost, "direction reversals", file: file, line: line)
        XCTAssertLessThanOrEqual(statistics.maximumSpeed, speedLimit * 1.05, "speed", file: file, line: line)
        XCTAssertLessThanOrEqual(statistics.maximumAcceleration, accelerationLimit, "acceleration", file: file, line: line)
        XCTAssertLessThanOrEqual(Double(statistics.largestStep), speedLimit / SyntheticScene.fps + 2, "no jump within a shot",
                                 file: file, line: line)
        return statistics
    }

    func testCropSizeIsNineBySixteenAndEven() {
        XCTAssertTrue(CameraPathPlanner.cropSize(sourceWidth: 1920, sourceHeight: 1080, aspectWidth: 9, aspectHeight: 16) == PixelSize(width: 608, height: 1080))
        XCTAssertTrue(CameraPathPlanner.cropSize(sourceWidth: 3840, sourceHeight: 2160, aspectWidth: 9, aspectHeight: 16) == PixelSize(width: 1216, height: 2160))
        // Wider target than a portrait source: the window slides vertically.
        XCTAssertTrue(CameraPathPlanner.cropSize(sourceWidth: 1080, sourceHeight: 1920, aspectWidth: 1, aspectHeight: 1) == PixelSize(width: 1080, height: 1080))
    }

    func testStillSubjectCropDoesNotMoveAtAll() {
        let scene = SyntheticScene(frameCount: 300) { _ in SyntheticScene.faceAt(700) }
        let path = scene.plan()
        let statistics = assertInsideFrameAndCalm(path, scene)
        XCTAssertEqual(statistics.movingFrames, 0)
        XCTAssertEqual(statistics.steadyShots, 1)
        XCTAssertEqual(Set(path.offsets).count, 1)
        XCTAssertEqual(SubjectCoverage(path: path, faces: scene.truth).fraction, 1)
        // Centred on the face, not on the frame.
        XCTAssertEqual(Double(path.offsets[0]) + 304, 700, accuracy: 8)
    }

    func testSlowDriftIsFollowedSmoothlyWithoutReversal() {
        let scene = SyntheticScene(frameCount: 300) { SyntheticScene.faceAt(400 + Double($0) * 1000 / 300) }
        let path = scene.plan()
        let statistics = assertInsideFrameAndCalm(path, scene)
        XCTAssertGreaterThan(statistics.movingFrames, 100)
        XCTAssertEqual(SubjectCoverage(path: path, faces: scene.truth).fraction, 1)
    }

    func testFastMoveIsFollowed() {
        // Still at 300 for 3 s, crosses to 1600 in 1.5 s (~870 px/s), still again.
        let scene = SyntheticScene(frameCount: 270) { index in
            let progress = min(max(Double(index - 90) / 45, 0), 1)
            return SyntheticScene.faceAt(300 + 1300 * progress)
        }
        let path = scene.plan()
        let statistics = assertInsideFrameAndCalm(path, scene)
        XCTAssertGreaterThanOrEqual(SubjectCoverage(path: path, faces: scene.truth).fraction, 0.98)
        // Still before and after the move.
        XCTAssertEqual(Set(path.offsets[0..<45]).count, 1)
        XCTAssertEqual(Set(path.offsets[200...]).count, 1)
        XCTAssertGreaterThan(statistics.maximumSpeed, 500)
    }

    func testStepJumpWithinAShotIsAFastPanNotAJump() {
        let scene = SyntheticScene(frameCount: 300) { SyntheticScene.faceAt($0 < 150 ? 500 : 1400) }
        let path = scene.plan()
        _ = assertInsideFrameAndCalm(path, scene)
        // Teleporting 900 px cannot be followed without a jump: under the speed limit the pan takes about
        // 0.5 s, during which the face is partly outside. Everywhere else it must be inside.
        let coverage = SubjectCoverage(path: path, faces: scene.truth)
        XCTAssertGreaterThanOrEqual(coverage.fraction, 0.94, "\(coverage)")
        let awayFromStep = scene.truth.filter { abs($0.frameIndex - 150) > 15 }
        XCTAssertEqual(SubjectCoverage(path: path, faces: awayFromStep).fraction, 1)
        XCTAssertEqual(Set(path.offsets[0..<100]).count, 1)
        XCTAssertEqual(Set(path.offsets[200...]).count, 1)
    }

    func testCutJumpsOnceAndBothShotsStayStill() {
        let scene = SyntheticScene(frameCount: 300, cuts: [150]) { SyntheticScene.faceAt($0 < 150 ? 500 : 1400) }
        let path = scene.plan()
        XCTAssertEqual(path.shots, [0..<150, 150..<300])
        let statistics = assertInsideFrameAndCalm(path, scene)
        XCTAssertEqual(statistics.movingFrames, 0)
        XCTAssertEqual(statistics.steadyShots, 2)
        XCTAssertNotEqual(path.offsets[149], path.offsets[150])
        XCTAssertEqual(SubjectCoverage(path: path, faces: scene.truth).fraction, 1)
    }

    func testSubjectLeavingAndReturningHoldsThenMeetsItNeverJumpsToCentre() {
        // Walks out to the right (gone at about frame 95), away for 4 s, comes back in from the left side.
        let scene = SyntheticScene(frameCount: 360) { index in
            if index < 120 { return SyntheticScene.faceAt(1300 + Double(index) * 8) }
            if index < 240 { return nil }
            return SyntheticScene.faceAt(300 + Double(index - 240) * 2)
        }
        let path = scene.plan()
        // Two reversals are the subject's own: it left to the right, came back on the left, then walks right.
        _ = assertInsideFrameAndCalm(path, scene, reversalsAtMost: 2)
        XCTAssertGreaterThanOrEqual(SubjectCoverage(path: path, faces: scene.truth).fraction, 0.98)
        // While the face is gone the crop holds where it was last seen (at the right edge) until about
        // a second before it comes back; it is never parked in the middle.
        let rightEdge = SyntheticScene.width - path.cropWidth
        XCTAssertTrue(path.offsets[100..<195].allSatisfy { $0 == rightEdge }, "\(path.offsets[100..<195])")
        XCTAssertLessThan(path.offsets[240], 300)
    }

    func testNoFaceAnywhereKeepsTheCentreOfTheFirstShotAndThePreviousPositionLater() {
        let scene = SyntheticScene(frameCount: 200, cuts: [100]) { $0 < 100 ? SyntheticScene.faceAt(1500) : nil }
        let path = scene.plan()
        XCTAssertTrue(path.offsets.allSatisfy { $0 == path.offsets[0] }, "the face-less shot holds the last position")
        let empty = SyntheticScene(frameCount: 50) { _ in nil }.plan()
        XCTAssertEqual(Set(empty.offsets), [656])  // (1920 - 608) / 2
    }

    func testVariableFrameRateTimingIsRespected() {
        // Same drift, but frames come at irregular intervals: speed is per second, not per frame.
        let scene = SyntheticScene(frameCount: 300) { SyntheticScene.faceAt(400 + Double($0) * 1000 / 300) }
        let irregular: [Double] = (0..<300).map { (index: Int) -> Double in
            Double(index) / 30 + (index % 3 == 0 ? 0.01 : 0)
        }
        let crop = CameraPathPlanner.cropSize(sourceWidth: 1920, sourceHeight: 1080, aspectWidth: 9, aspectHeight: 16)
        let path = CameraPathPlanner(sourceWidth: 1920, sourceHeight: 1080, cropWidth: crop.width, cropHeight: crop.height)
            .plan(frameTimes: irregular, samples: scene.samples, cuts: [])
        XCTAssertEqual(SubjectCoverage(path: path, faces: scene.truth).fraction, 1)
        XCTAssertEqual(PathStatistics(path: path, frameTimes: irregular).reversals, 0)
    }
}

/// Composition: at rest the face sits on the crop's centre line; while the subject moves, within the central 40 %.
final class CompositionTests: XCTestCase {
    let settings = CameraPathPlanner.Settings()

    /// A still → walk → still scene: rests at `from` for `rest` seconds, walks to `to` in `walk` seconds, rests.
    private func stillMoveStill(from: Double, to: Double, rest: Double = 3, walk: Double = 3) -> SyntheticScene {
        let restFrames = Int(rest * SyntheticScene.fps), walkFrames = Int(walk * SyntheticScene.fps)
        return SyntheticScene(frameCount: 2 * restFrames + walkFrames) { index in
            let progress = min(max(Double(index - restFrames) / Double(walkFrames), 0), 1)
            return SyntheticScene.faceAt(from + (to - from) * progress)
        }
    }

    func testRestingFaceIsCentredAndAWalkingOneStaysInTheCentralFortyPercent() {
        // The case that used to rest at 29 % and 71 % of the crop: the dead-zone edge, not the face.
        let scene = stillMoveStill(from: 600, to: 1300)
        let path = scene.plan()
        let framing = FramingStatistics(path: path, faces: scene.truth, frameTimes: scene.frameTimes)
        XCTAssertGreaterThan(framing.restFrames, 100)
        XCTAssertLessThanOrEqual(framing.largestRestOffset, 0.05, "\(framing)")
        XCTAssertEqual(framing.centralFraction, 1, "\(framing)")
        // Perfectly still inside each rest (the pan eases in and out within half a second of the walk).
        XCTAssertEqual(Set(path.offsets[0..<75]).count, 1)
        XCTAssertEqual(Set(path.offsets[195...]).count, 1)
        let statistics = PathStatistics(path: path, frameTimes: scene.frameTimes)
        XCTAssertEqual(statistics.reversals, 0)
        XCTAssertLessThanOrEqual(statistics.maximumSpeed, settings.maximumSpeed * 1920 * 1.05)
        XCTAssertLessThanOrEqual(statistics.maximumAcceleration, 2 * settings.maximumSpeed * 1920 / settings.smoothingSeconds * 1.25)
        // The whole person (about three face widths, centred under the face) is inside at rest.
        for index in [30, 240] {
            let face = scene.face(index)!
            let body = FrameRect(x: face.midX - 1.5 * face.width, y: face.y, width: 3 * face.width, height: 600)
            XCTAssertTrue(path.rect(frame: index).contains(body), "frame \(index)")
        }
    }

    func testFasterWalksBothWaysAndCloseToTheEdge() {
        for (from, to, walk) in [(1500.0, 500.0, 1.5), (350.0, 1000.0, 1.0), (900.0, 1750.0, 2.0)] {
            let scene = stillMoveStill(from: from, to: to, rest: 2, walk: walk)
            let path = scene.plan()
            let framing = FramingStatistics(path: path, faces: scene.truth, frameTimes: scene.frameTimes)
            XCTAssertLessThanOrEqual(framing.largestRestOffset, 0.05, "\(from)→\(to): \(framing)")
            XCTAssertGreaterThanOrEqual(framing.centralFraction, 0.98, "\(from)→\(to): \(framing)")
            XCTAssertEqual(PathStatistics(path: path, frameTimes: scene.frameTimes).reversals, 0, "\(from)→\(to)")
            XCTAssertEqual(SubjectCoverage(path: path, faces: scene.truth).fraction, 1, "\(from)→\(to)")
        }
        // At the frame's edge the crop cannot centre the face: it rests against the edge.
        let edge = SyntheticScene(frameCount: 90) { _ in SyntheticScene.faceAt(150) }.plan()
        XCTAssertEqual(Set(edge.offsets), [0])
    }

    func testRestsAreFoundDespiteDetectorJitterButNotInASlowDrift() {
        let planner = CameraPathPlanner(sourceWidth: 1920, sourceHeight: 1080, cropWidth: 608, cropHeight: 1080)
        var noise = NoiseGenerator(seed: 11)
        let times = (0..<30).map { Double($0) / 3 }  // 10 s, three detections a second
        let jittery = times.map { _ in 800 + noise.next(amplitude: 8) }
        XCTAssertEqual(planner.restRuns(targets: jittery, times: times), [0...29])
        // 40 px/s (0.066 crop widths a second): never a rest, although each second stays within the range.
        let drifting = times.map { 800 + 40 * $0 }
        XCTAssertEqual(planner.restRuns(targets: drifting, times: times), [])
        // Still, walk, still: two rests, the walk in neither.
        let walk = times.map { $0 < 3 ? 500 : $0 < 6 ? 500 + 300 * ($0 - 3) : 1400 }
        let runs = planner.restRuns(targets: walk, times: times)
        XCTAssertEqual(runs.count, 2, "\(runs)")
        XCTAssertEqual(runs.first?.lowerBound, 0)
        XCTAssertEqual(runs.last?.upperBound, 29)
        XCTAssertTrue(runs.allSatisfy { run in run.allSatisfy { walk[$0] == 500 || walk[$0] == 1400 } }, "\(runs)")
    }

    func testVerticalCropKeepsTheFaceAThirdFromTheTop() {
        // A portrait 1080x1920 picture cut to 1:1: the window slides vertically.
        let crop = CameraPathPlanner.cropSize(sourceWidth: 1080, sourceHeight: 1920, aspectWidth: 1, aspectHeight: 1)
        let planner = CameraPathPlanner(sourceWidth: 1080, sourceHeight: 1920, cropWidth: crop.width, cropHeight: crop.height)
        let face = FrameRect(x: 460, y: 800, width: 160, height: 200)
        let times = (0..<90).map { Double($0) / 30 }
        let samples = stride(from: 0, to: 90, by: 10).map { DetectionSample(frameIndex: $0, faces: [FaceDetection(box: face, confidence: 90)]) }
        let path = planner.plan(frameTimes: times, samples: samples, cuts: [])
        XCTAssertEqual(path.axis, .vertical)
        XCTAssertEqual(Set(path.offsets).count, 1)
        XCTAssertEqual((face.midY - Double(path.offsets[0])) / 1080, 1.0 / 3, accuracy: 0.02)
    }
}

/// Where nobody is found at all, the crop follows what moves instead of sitting in the middle.
final class MotionFallbackTests: XCTestCase {
    func testAShotWithNobodyFollowsTheMotionAndAShotWithAFaceIgnoresIt() {
        // Something moves from x 300 to 1500 over 4 s; no face or person is ever found.
        let times = (0..<120).map { Double($0) / 30 }
        let moving = stride(from: 0, to: 120, by: 10).map { index in
            DetectionSample(frameIndex: index, faces: [], motion: FrameRect(x: 300 + Double(index) * 10 - 40, y: 400, width: 80, height: 80))
        }
        let planner = CameraPathPlanner(sourceWidth: 1920, sourceHeight: 1080, cropWidth: 608, cropHeight: 1080)
        let path = planner.plan(frameTimes: times, samples: moving, cuts: [])
        XCTAssertLessThan(path.offsets[0], 100)
        XCTAssertGreaterThan(path.offsets[119], 900)
        XCTAssertEqual(PathStatistics(path: path, frameTimes: times).reversals, 0)
        // The same motion beside a face: the face is the subject.
        let withFace = moving.map { sample in
            var sample = sample
            sample.faces = [FaceDetection(box: SyntheticScene.faceAt(1000), confidence: 90)]
            return sample
        }
        let facePath = planner.plan(frameTimes: times, samples: withFace, cuts: [])
        XCTAssertEqual(Set(facePath.offsets), [1000 - 304])
    }

    /// A face seen, then nobody: for the first `motionTakeoverSeconds` the crop holds where the face was; after
    /// that one mover (a person whose face is not found) half a crop or more away stands in, and the crop follows
    /// it to where it stops. Small movements where the person was, and several movers at once (a motion wider
    /// than three quarters of the crop), never do.
    func testOnceNobodyHasBeenFoundForAWhileOneMoverStandsIn() {
        let times = (0..<240).map { Double($0) / 30 }
        let planner = CameraPathPlanner(sourceWidth: 1920, sourceHeight: 1080, cropWidth: 608, cropHeight: 1080)
        // A face at x 400 on frames 0-30, then nobody; something `width` px wide moves from `from` to `to` on
        // frames 40-150, then rests there.
        func samples(width: Double, from: Double = 1100, to: Double = 1300) -> [DetectionSample] {
            stride(from: 0, to: 240, by: 10).map { index in
                if index <= 30 { return DetectionSample(frameIndex: index, faces: [FaceDetection(box: SyntheticScene.faceAt(400), confidence: 90)]) }
                let centre = index < 40 ? nil : from + (to - from) * min(1, Double(index - 40) / 110)
                return DetectionSample(frameIndex: index, faces: [], motion: centre.map { FrameRect(x: $0 - width / 2, y: 300, width: width, height: width) })
            }
        }
        let path = planner.plan(frameTimes: times, samples: samples(width: 100), cuts: [])
        XCTAssertEqual(Double(path.offsets[0]), 400 - 304, accuracy: 0.01 * 608, "the face centred")
        XCTAssertEqual(path.offsets[40], path.offsets[0], "the motion within 2 s of the face moves nothing")
        XCTAssertEqual(Double(path.offsets[239] + 304), 1300, accuracy: 0.2 * 608, "the mover where it stopped, in the crop's central 40 %")
        XCTAssertEqual(PathStatistics(path: path, frameTimes: times).reversals, 0)
        let crowd = planner.plan(frameTimes: times, samples: samples(width: 500), cuts: [])
        XCTAssertEqual(Set(crowd.offsets), [400 - 304], "a motion 500 px wide is not one person: the crop holds")
        let fidgeting = planner.plan(frameTimes: times, samples: samples(width: 60, from: 450, to: 350), cuts: [])
        XCTAssertEqual(Set(fidgeting.offsets), [400 - 304], "movements where the person was: the crop holds")
    }
}

final class ShotDetectorTests: XCTestCase {
    /// Settling one position at a time, each as soon as the differences `neighbourhood` past it are known (as the
    /// analysis does while it runs), finds exactly the cuts of the whole array: on random clips with flashes and
    /// cuts of every spacing.
    func testCutsSettledAsTheDifferencesArriveAreTheCutsOfTheWholeClip() {
        var generator = SystemRandomNumberGenerator()
        let detector = ShotDetector()
        for _ in 0..<150 {
            let count = Int.random(in: 1...300, using: &generator)
            let differences = (0..<count).map { _ -> Double in
                switch Int.random(in: 0..<10, using: &generator) {
                case 0: return Double.random(in: 0.3...1, using: &generator)  // a cut or a flash
                case 1: return Double.random(in: 0.1...0.4, using: &generator)
                default: return Double.random(in: 0...0.08, using: &generator)
                }
            }
            var settled: [Int] = [], next = 1
            for known in 1...count {
                let prefix = Array(differences.prefix(known))
                while next + detector.neighbourhood < known {
                    if detector.isCut(at: next, differences: prefix, after: settled.last) { settled.append(next) }
                    next += 1
                }
            }
            // What is left unsettled at the end (the last `neighbourhood` positions) the whole array decides.
            while next < count {
                if detector.isCut(at: next, differences: differences, after: settled.last) { settled.append(next) }
                next += 1
            }
            XCTAssertEqual(settled, detector.cuts(differences: differences), "\(differences)")
        }
    }

    func testFindsHardCutsButNotMotionOrNoise() {
        var generator = NoiseGenerator(seed: 3)
        var differences = (0..<200).map { _ in 0.03 + abs(generator.next(amplitude: 0.02)) }
        for index in 60..<90 { differences[index] = 0.15 }  // fast motion: high but sustained
        differences[120] = 0.8
        differences[170] = 0.6
        differences[173] = 0.7  // too close to the previous cut: one shot of 3 frames is not a shot
        XCTAssertEqual(ShotDetector().cuts(differences: differences), [120, 170])
        XCTAssertEqual(ShotDetector.shots(frameCount: 200, cuts: [120, 170]), [0..<120, 120..<170, 170..<200])
    }

    /// A hard cut into a shot that moves on every frame, and one out of it, as stage_cuts_audience's cut to the
    /// over-the-shoulder head reads on the I- and P-frames of a 1280×720 x264 copy (0.40 at the cut, 0.10–0.16
    /// on each analysed frame after it, no still frame among them: missed before, which left the shots joined);
    /// a motion that starts (a step up to a sustained 0.32) is not a cut.
    func testFindsACutIntoOrOutOfAShotThatMovesOnEveryFrame() {
        var generator = NoiseGenerator(seed: 5)
        func calm() -> Double { 0.004 + abs(generator.next(amplitude: 0.002)) }
        let moving = [0.137, 0.155, 0.157, 0.147, 0.147, 0.120, 0.097, 0.140, 0.150, 0.130, 0.145, 0.138]
        let into = (0..<45).map { _ in calm() } + [0.398] + moving + (0..<40).map { _ in calm() }
        XCTAssertEqual(ShotDetector().cuts(differences: into), [45])
        let outOf = (0..<30).map { _ in calm() } + [0.5] + moving + [0.41] + (0..<30).map { _ in calm() }
        XCTAssertEqual(ShotDetector().cuts(differences: outOf), [30, 43])
        let starts = (0..<40).map { _ in calm() } + [Double](repeating: 0.32, count: 30)
        XCTAssertEqual(ShotDetector().cuts(differences: starts), [])
        let startsWithAJolt = (0..<40).map { _ in calm() } + [0.45] + [Double](repeating: 0.32, count: 30)
        XCTAssertEqual(ShotDetector().cuts(differences: startsWithAJolt), [], "0.45 is not twice the motion after it")
    }
}

final class FaceTrackerTests: XCTestCase {
    private func sample(_ frame: Int, _ xs: [Double]) -> DetectionSample {
        DetectionSample(frameIndex: frame, faces: xs.map { FaceDetection(box: SyntheticScene.faceAt($0), confidence: 90) })
    }

    func testTwoPeopleMovingStayTwoTracks() {
        let times = (0..<60).map { Double($0) / 30 }
        let samples = stride(from: 0, to: 60, by: 6).map { sample($0, [300 + Double($0) * 2, 1500 - Double($0) * 2]) }
        let tracks = FaceTracker().link(samples, frameTimes: times, shotStarts: [0])
        XCTAssertEqual(tracks.count, 2)
        XCTAssertEqual(tracks.map(\.points.count), [10, 10])
        XCTAssertTrue(tracks[0].points.allSatisfy { $0.detection.box.midX < 500 })
    }

    func testLongGapAndCutStartNewTracks() {
        let times = (0..<300).map { Double($0) / 30 }
        let samples = [sample(0, [500]), sample(30, [510]), sample(120, [520]), sample(150, [520]), sample(156, [520])]
        let tracks = FaceTracker().link(samples, frameTimes: times, shotStarts: [0, 150])
        XCTAssertEqual(tracks.map { $0.points.map(\.frameIndex) }, [[0, 30], [120], [150, 156]])
    }
}

final class TautStringTests: XCTestCase {
    func testFlatWhenPossibleAndBendsOnlyWhereForced() {
        let corridor = [CorridorPoint(time: 0, low: 0, high: 10), CorridorPoint(time: 1, low: 5, high: 15),
                        CorridorPoint(time: 2, low: 20, high: 30), CorridorPoint(time: 3, low: 20, high: 30)]
        // Rising from 10 at once reaches 20 at t=2 passing t=1 at exactly 15: no bend needed there.
        let path = TautString.solve(corridor, preferred: 0)
        XCTAssertEqual(path.map(\.value), [10, 20, 20])
        XCTAssertEqual(path.map(\.time), [0, 2, 3])
        var held = corridor
        held[1] = CorridorPoint(time: 1, low: 0, high: 10)
        let bent = TautString.solve(held, preferred: 0)
        XCTAssertEqual(bent.map(\.value), [10, 10, 20, 20])
        XCTAssertEqual(bent.map(\.time), [0, 1, 2, 3])
        var hint = 0
        XCTAssertEqual(TautString.value(of: bent, at: 1.5, from: &hint), 15)
        XCTAssertEqual(TautString.value(of: bent, at: -1, from: &hint), 10)
        let flat = TautString.solve([CorridorPoint(time: 0, low: 0, high: 10), CorridorPoint(time: 5, low: 4, high: 12)], preferred: 7)
        XCTAssertEqual(flat.map(\.value), [7, 7])
    }
}
