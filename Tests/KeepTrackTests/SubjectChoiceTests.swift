import Foundation
import XCTest
import KeepTrackFraming

/// Several people in one shot: who the camera follows (importance, hysteresis, minimum hold) and which layout
/// `auto` picks, on detections with known positions (1920×1080, 9:16 crop 608 wide, 3 detections a second).
final class SubjectChoiceTests: XCTestCase {
    let planner = CameraPathPlanner(sourceWidth: 1920, sourceHeight: 1080, cropWidth: 608, cropHeight: 1080)
    let frameRate = 30.0

    /// A face centred at `x` (and y 400), `size` pixels square.
    func face(_ x: Double, _ size: Double, confidence: Int = 95) -> FaceDetection {
        FaceDetection(box: FrameRect(x: x - size / 2, y: 400 - size / 2, width: size, height: size), confidence: confidence)
    }

    /// `seconds` of frames; at every `every`th frame (10: three a second) the faces `at(sampleNumber)` are detected.
    func scene(seconds: Double, every: Int = 10, _ at: (Int) -> [FaceDetection]) -> (times: [Double], samples: [DetectionSample]) {
        let count = Int(seconds * frameRate)
        let samples = stride(from: 0, to: count, by: every).enumerated().map { number, frame in
            DetectionSample(frameIndex: frame, faces: at(number))
        }
        return ((0..<count).map { Double($0) / frameRate }, samples)
    }

    /// Whether face box `box` lies inside the crop of `frame` (along x).
    func inside(_ path: CropPath, _ frame: Int, _ box: FrameRect) -> Bool {
        let rect = path.rect(frame: frame)
        return box.x >= rect.x && box.maxX <= rect.maxX
    }

    /// Two people of the same weight whose detections take turns being the larger: the camera stays on one.
    func testTwoPeopleOfSimilarWeightNeverPingPong() throws {
        let (times, samples) = scene(seconds: 10) { n in
            [self.face(500, n % 2 == 0 ? 130 : 110, confidence: n % 3 == 0 ? 90 : 97),
             self.face(1400, n % 2 == 0 ? 110 : 130, confidence: n % 3 == 1 ? 90 : 97)]
        }
        for mode in [LayoutMode.follow, .auto] {
            let planned = planner.plan(frameTimes: times, samples: samples, cuts: [], layout: mode)
            let path = planned.path, shots = planned.shots
            XCTAssertEqual(shots.count, 1)
            XCTAssertEqual(shots[0].switches, 0, "\(mode)")
            XCTAssertEqual(Set(shots[0].subjects.map(\.track)).count, 1, "one subject throughout (\(mode))")
            let statistics = PathStatistics(path: path, frameTimes: times)
            XCTAssertEqual(statistics.reversals, 0, "\(mode)")
            if mode == .follow {
                // The camera holds one of them and never turns to the other.
                let subject = samples[0].faces[shots[0].subjects[0].track == 0 ? 0 : 1].box
                XCTAssertTrue((0..<times.count).allSatisfy { inside(path, $0, subject) })
                XCTAssertEqual(statistics.movingFrames, 0)
            } else {
                XCTAssertEqual(shots[0].layout, .split, "900 px apart do not share a 608-px crop: two people, one per half")
                XCTAssertEqual(path.layout(frame: 150), .split)
                // Each window holds its own person on every frame (the left one above) and stays still.
                for frame in 0..<times.count {
                    let windows = try XCTUnwrap(path.splitRects(frame: frame))
                    XCTAssertTrue(windows.top.contains(samples[0].faces[0].box) && windows.bottom.contains(samples[0].faces[1].box), "frame \(frame)")
                }
                XCTAssertEqual(Set(path.splitWindows.map { $0?.top.x }).count, 1, "no jitter from the alternating sizes")
                XCTAssertEqual(Set(path.splitWindows.map { $0?.bottom.x }).count, 1)
            }
        }
    }

    /// The subject leaves; the two who remain take turns being the larger. The old rule (the strongest face of
    /// each detection once the subject is gone) turns back and forth between them; the choice holds one.
    func testWhenTheSubjectLeavesTheCameraTakesOneOfTheOthersAndStays() throws {
        let (times, samples) = scene(seconds: 10) { n in
            var faces = [self.face(900, n % 2 == 0 ? 105 : 95), self.face(1500, n % 2 == 0 ? 95 : 105)]
            if n < 15 { faces.append(self.face(650, 250)) }  // the subject, for the first 5 s
            return faces
        }
        let old = planner.plan(frameTimes: times, samples: samples, cuts: [])
        XCTAssertGreaterThan(PathStatistics(path: old, frameTimes: times).reversals, 0, "the old rule ping-pongs (what this test guards)")
        let planned = planner.plan(frameTimes: times, samples: samples, cuts: [], layout: .follow)
        let path = planned.path, shots = planned.shots
        XCTAssertEqual(shots[0].switches, 1, "\(shots[0].subjects)")
        XCTAssertEqual(Set(shots[0].subjects.filter { $0.frameIndex >= 150 }.map(\.track)).count, 1)
        XCTAssertEqual(PathStatistics(path: path, frameTimes: times).reversals, 0)
    }

    /// A clearly more important person (three times the size, central) arrives: the camera turns to them once,
    /// after the minimum hold, and never back.
    func testAClearlyMoreImportantPersonTakesOverOnce() throws {
        let (times, samples) = scene(seconds: 10) { n in
            [self.face(400, 100)] + (n >= 9 ? [self.face(1300, 300)] : [])
        }
        let planned = planner.plan(frameTimes: times, samples: samples, cuts: [], layout: .follow)
        let path = planned.path, shots = planned.shots
        XCTAssertEqual(shots[0].switches, 1)
        let first = try XCTUnwrap(shots[0].subjects.first), last = try XCTUnwrap(shots[0].subjects.last)
        XCTAssertNotEqual(first.track, last.track)
        let switchFrame = try XCTUnwrap(shots[0].subjects.first { $0.track == last.track }?.frameIndex)
        XCTAssertGreaterThanOrEqual(Double(switchFrame) / frameRate, 3, "not before the newcomer is seen")
        XCTAssertLessThanOrEqual(Double(switchFrame) / frameRate, 5, "soon after")
        XCTAssertTrue(inside(path, 30, samples[3].faces[0].box), "the first subject is framed first")
        XCTAssertTrue(inside(path, times.count - 1, samples.last!.faces[1].box), "the newcomer at the end")
        XCTAssertEqual(PathStatistics(path: path, frameTimes: times).reversals, 0)
    }

    /// Two people close together: they share one crop, and the camera keeps both inside (follow and auto).
    func testPeopleWhoFitInOneCropAreFollowedTogether() throws {
        let (times, samples) = scene(seconds: 6) { n in [self.face(820 + Double(n % 2) * 6, 110), self.face(1080, 100)] }
        for mode in [LayoutMode.follow, .auto] {
            let planned = planner.plan(frameTimes: times, samples: samples, cuts: [], layout: mode)
            let path = planned.path, shots = planned.shots
            XCTAssertTrue(shots[0].groupFits)
            XCTAssertEqual(shots[0].layout, .follow)
            for frame in 0..<times.count {
                XCTAssertTrue(inside(path, frame, samples[0].faces[0].box) && inside(path, frame, samples[0].faces[1].box), "frame \(frame) (\(mode))")
            }
        }
    }

    /// One person dominates (a small face at the edge in the background): auto follows; fit is only asked.
    func testOneDominantPersonIsFollowed() throws {
        let (times, samples) = scene(seconds: 6) { n in [self.face(960, 180)] + (n % 3 == 0 ? [self.face(1800, 40, confidence: 70)] : []) }
        let autoPlan = planner.plan(frameTimes: times, samples: samples, cuts: [], layout: .auto)
        let auto = autoPlan.shots
        XCTAssertEqual(auto[0].mattering.count, 1)
        XCTAssertEqual(auto[0].layout, .follow)
        let fitPlan = planner.plan(frameTimes: times, samples: samples, cuts: [], layout: .fit)
        let fitted = fitPlan.path, fit = fitPlan.shots
        XCTAssertEqual(fit[0].layout, .fit)
        XCTAssertEqual(fitted.layouts, [.fit])
    }

    /// Layouts are decided per shot: a shot of two people far apart, a cut, a shot of one.
    func testAutoDecidesPerShot() throws {
        let (times, samples) = scene(seconds: 8) { n in
            n < 12 ? [self.face(300, 120), self.face(1600, 120)] : [self.face(1000, 150)]
        }
        let planned = planner.plan(frameTimes: times, samples: samples, cuts: [120], layout: .auto)
        let path = planned.path, shots = planned.shots
        XCTAssertEqual(shots.map(\.layout), [.split, .follow])
        XCTAssertEqual(path.layouts, [.split, .follow])
        XCTAssertEqual(path.layout(frame: 119), .split)
        XCTAssertEqual(path.layout(frame: 120), .follow)
        XCTAssertNotNil(path.split(frame: 119))
        XCTAssertNil(path.split(frame: 120))
    }

    /// auto's rule for split: exactly two people who matter, far apart, holding most of the shot's
    /// importance. Three far apart (a group), two too close for two windows yet too far for one crop, or two
    /// with a third person nearly as important: fit. --layout split splits any shot where two or more matter.
    func testAutoSplitsOnlyForTwoDominantPeopleFarApart() throws {
        func layout(_ faces: @escaping (Int) -> [FaceDetection], _ mode: LayoutMode = .auto) -> (ShotLayout, Int) {
            let (times, samples) = scene(seconds: 6, faces)
            let planned = planner.plan(frameTimes: times, samples: samples, cuts: [], layout: mode)
            let shots = planned.shots
            return (shots[0].layout, shots[0].mattering.count)
        }
        XCTAssertEqual(layout { _ in [self.face(300, 120), self.face(1600, 120)] }.0, .split)
        let three = layout { _ in [self.face(200, 120), self.face(900, 120), self.face(1600, 120)] }
        XCTAssertEqual(three.0, .fit)
        XCTAssertEqual(three.1, 3)
        XCTAssertEqual(layout { _ in [self.face(700, 120), self.face(1250, 120)] }.0, .fit, "550 px apart: the windows would overlap")
        // Three small faces in the background, each under the matter threshold, together hold more than a
        // quarter of the importance: an audience, not two people.
        let background = layout { _ in [self.face(200, 120), self.face(1600, 120), self.face(700, 30), self.face(950, 30), self.face(1200, 30)] }
        XCTAssertEqual(background.1, 2)
        XCTAssertEqual(background.0, .fit)
        XCTAssertEqual(layout({ _ in [self.face(200, 120), self.face(900, 120), self.face(1600, 120)] }, .split).0, .split)
        XCTAssertEqual(layout({ _ in [self.face(960, 150)] }, .split).0, .follow, "one person: nothing to split")
    }

    /// A shot shorter than a second follows whatever auto would choose for a longer one: a split that lasts
    /// a moment only flashes between two followed shots, on two or three detections.
    func testAutoFollowsInAShotShorterThanASecond() throws {
        let (times, samples) = scene(seconds: 6) { n in
            n < 9 ? [self.face(960, 150)] : [self.face(300, 120), self.face(1600, 120)]
        }
        // Shots: 0–89 one person, 90–114 (0.83 s) two far apart, 115–179 (2.2 s) the same two far apart.
        let planned = planner.plan(frameTimes: times, samples: samples, cuts: [90, 115], layout: .auto)
        XCTAssertEqual(planned.shots.map(\.layout), [.follow, .follow, .split])
        XCTAssertEqual(planned.shots[1].mattering.count, 2, "two people matter in the short shot too")
        let longer = planner.plan(frameTimes: times, samples: samples, cuts: [90, 120], layout: .auto)
        XCTAssertEqual(longer.shots.map(\.layout), [.follow, .split, .split], "a shot of exactly 1 s may split")
    }

    /// The layout of the one shot of `samples`, and how many people matter in it.
    func autoLayout(_ times: [Double], _ samples: [DetectionSample], _ mode: LayoutMode = .auto) -> (ShotLayout, Int) {
        let planned = planner.plan(frameTimes: times, samples: samples, cuts: [], layout: mode)
        let shots = planned.shots
        return (shots[0].layout, shots[0].mattering.count)
    }

    /// Every way of adding one stray face to one analysed frame (four places across the picture, a small, a
    /// typical and a large face) or of removing one detection: the layouts each of them gives.
    func layoutsUnderOneDetectionChange(_ times: [Double], _ samples: [DetectionSample]) -> [(change: String, layout: ShotLayout)] {
        var result: [(change: String, layout: ShotLayout)] = []
        for index in samples.indices {
            for x in [150.0, 700, 1250, 1800] {
                for size in [40.0, 130, 260] {
                    var changed = samples
                    changed[index].faces.append(face(x, size, confidence: 80))
                    result.append(("a \(Int(size)) px face at x \(Int(x)) on frame \(samples[index].frameIndex)", autoLayout(times, changed).0))
                }
            }
            for removed in samples[index].faces.indices {
                var changed = samples
                changed[index].faces.remove(at: removed)
                result.append(("face \(removed) of frame \(samples[index].frameIndex) removed", autoLayout(times, changed).0))
            }
        }
        return result
    }

    /// auto rests on evidence that persists: one person seen throughout stays followed whatever one stray
    /// sighting appears on any frame (a second face, small or as large as the subject's, anywhere) and
    /// whichever one detection is missed, in a long shot (18 analysed frames), a short one (5) and one analysed
    /// sparsely, as a still shot is (3 frames 0.9 s apart: one stray is seen on a third of them, and a missed
    /// detection breaks the subject's track in two, which is still one person).
    func testOneStraySightingNeverChangesAFollowedShot() throws {
        for (seconds, every) in [(6.0, 10), (1.6, 10), (2.7, 27)] {
            let (times, samples) = scene(seconds: seconds, every: every) { _ in [self.face(960, 150)] }
            XCTAssertEqual(autoLayout(times, samples).0, .follow)
            let changed = layoutsUnderOneDetectionChange(times, samples)
            XCTAssertGreaterThan(changed.count, 12 * samples.count)
            let flipped = changed.filter { $0.layout != .follow }.map(\.change)
            XCTAssertEqual(flipped, [], "\(samples.count) analysed frames")
        }
    }

    /// ...and the same evidence still gives a real second person seen throughout a split (two far apart) or a
    /// fit (three), whatever one detection is added or missed; seen on only one frame, the stray is no person
    /// who matters but seen on a third of the frames it is.
    func testARealSecondPersonSeenThroughoutKeepsSplitOrFit() throws {
        let (times, two) = scene(seconds: 6) { _ in [self.face(300, 120), self.face(1600, 120)] }
        XCTAssertEqual(autoLayout(times, two).0, .split)
        XCTAssertEqual(layoutsUnderOneDetectionChange(times, two).filter { $0.layout != .split }.map(\.change), [])
        let (_, three) = scene(seconds: 6) { _ in [self.face(200, 120), self.face(900, 120), self.face(1600, 120)] }
        XCTAssertEqual(autoLayout(times, three).0, .fit)
        XCTAssertEqual(layoutsUnderOneDetectionChange(times, three).filter { $0.layout != .fit }.map(\.change), [])
        // A second person who is really there, on 6 of 18 frames (two seconds): that is evidence (fit: not seen
        // on half the shot, as a split needs).
        let (_, visiting) = scene(seconds: 6) { n in [self.face(300, 120)] + (n >= 6 && n < 12 ? [self.face(1600, 120)] : []) }
        XCTAssertEqual(autoLayout(times, visiting).1, 2)
        XCTAssertEqual(autoLayout(times, visiting).0, .fit)
        let (_, once) = scene(seconds: 6) { n in [self.face(300, 120)] + (n == 8 ? [self.face(1600, 120)] : []) }
        XCTAssertEqual(autoLayout(times, once).1, 1)
        XCTAssertEqual(autoLayout(times, once).0, .follow)
    }

    /// A person lost for longer than the tracker's gap comes back as a new track: still one person (no fit of
    /// one person with themselves, which the old rule made of two tracks never seen together).
    func testASubjectLostAndFoundIsOnePerson() throws {
        let (times, samples) = scene(seconds: 8) { n in n >= 8 && n < 14 ? [] : [self.face(960, 150)] }
        let planned = planner.plan(frameTimes: times, samples: samples, cuts: [], layout: .auto)
        let shots = planned.shots
        XCTAssertEqual(FaceTracker().link(samples, frameTimes: times, shotStarts: [0]).count, 2, "two tracks")
        XCTAssertEqual(shots[0].people.count, 1)
        XCTAssertEqual(shots[0].people[0].sightings, samples.filter { !$0.faces.isEmpty }.count)
        XCTAssertEqual(shots[0].layout, .follow)
        XCTAssertEqual(autoLayout(times, samples, .split).0, .follow, "--layout split: one person, nothing to split")
    }
}
