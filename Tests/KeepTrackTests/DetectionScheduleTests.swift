import XCTest
import KeepTrackFraming

/// The detection schedule: which frames the analysis looks at, within a budget that grows with the frames.
final class DetectionScheduleTests: XCTestCase {
    /// Runs `schedule` over `frames` frames; `cut(frame)` and `still(frame)` describe the picture;
    /// `foundFace(detection)` is what each detection finds, learnt `lag` detections later.
    static func run(_ schedule: inout DetectionSchedule, frames: Int, lag: Int = 4, cut: (Int) -> Bool = { _ in false },
                    still: (Int) -> Bool = { _ in false }, foundFace: (Int) -> Bool = { _ in true }) -> [(frame: Int, people: Bool)] {
        var decisions: [(Int, Bool)] = []
        for frame in 0..<frames {
            while schedule.learnt <= decisions.count - lag {
                let number = schedule.learnt
                schedule.learn(DetectionSchedule.Known(foundFace: foundFace(number), ranPeople: decisions[number].1 && !foundFace(number),
                                                       foundNobody: !foundFace(number)))
            }
            if case .detect(let people) = schedule.decide(frame: frame, likelyCut: cut(frame), still: still(frame)) {
                decisions.append((frame, people))
            }
        }
        return decisions
    }

    func testWithAmpleBudgetItDetectsOnTheRhythmAndLessOftenWhileNothingMoves() {
        var schedule = DetectionSchedule(costs: .init(earnedPerFrame: 1000, face: 10, people: 20), minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
        let moving = Self.run(&schedule, frames: 100).map(\.frame)
        XCTAssertEqual(moving, Array(stride(from: 0, to: 100, by: 10)))
        var still = DetectionSchedule(costs: .init(earnedPerFrame: 1000, face: 10, people: 20), minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
        XCTAssertEqual(Self.run(&still, frames: 100, still: { _ in true }).map(\.frame), [0, 30, 60, 90])
    }

    func testACutIsLookedAtAtOnceEvenJustAfterADetectionAndOnDebt() {
        // Earns almost nothing: only the first frame and cuts are looked at.
        var schedule = DetectionSchedule(costs: .init(earnedPerFrame: 0.1, face: 10, people: 20), minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
        let decisions = Self.run(&schedule, frames: 200, cut: { $0 == 3 || $0 == 120 })
        XCTAssertEqual(decisions.map(\.frame), [0, 3, 120])
        XCTAssertLessThan(schedule.credit, 0, "the last cut overdrew the budget")
        XCTAssertGreaterThanOrEqual(schedule.credit, -10, "by at most one face detection")
    }

    /// Whatever the picture does, detection never spends more than it earned (plus the first frame's
    /// allowance and one face detection of overdraft), and never looks twice within the minimum interval
    /// (a third of it while nobody is found) except at a cut.
    func testSpendingStaysWithinTheBudget() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let costs = DetectionSchedule.Costs(earnedPerFrame: Double.random(in: 0.5...40, using: &generator), face: 100, people: 300)
            var schedule = DetectionSchedule(costs: costs, minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
            let cuts = Set((0..<20).map { _ in Int.random(in: 1..<3000, using: &generator) })
            let faces = (0..<3000).map { _ in Bool.random(using: &generator) }
            let decisions = Self.run(&schedule, frames: 3000, cut: { cuts.contains($0) }, still: { ($0 / 200) % 2 == 1 }, foundFace: { faces[$0] })
            var spent = 0.0
            for (number, decision) in decisions.enumerated() {
                spent += costs.face + (decision.people && !faces[number] ? costs.people : 0)
            }
            XCTAssertLessThanOrEqual(spent, costs.face + costs.people + costs.earnedPerFrame * 3000 + costs.face + 1e-6)
            for (earlier, later) in zip(decisions, decisions.dropFirst()) where !cuts.contains(later.frame) {
                XCTAssertGreaterThanOrEqual(later.frame - earlier.frame, 3)
            }
        }
        // A clip that is cheap to encode gets fewer detections, not a slower reframe.
        var cheap = DetectionSchedule(costs: .init(earnedPerFrame: 1, face: 100, people: 0), minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
        var dear = DetectionSchedule(costs: .init(earnedPerFrame: 10, face: 100, people: 0), minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
        let few = Self.run(&cheap, frames: 3000).count, many = Self.run(&dear, frames: 3000).count
        XCTAssertEqual(many, 300)
        XCTAssertEqual(few, 30, "the first frame, then one per 100 frames earned")
    }

    func testWhileNobodyIsFoundItLooksThreeTimesAsOften() {
        var schedule = DetectionSchedule(costs: .init(earnedPerFrame: 1000, face: 10, people: 0), minimumInterval: 9, stillInterval: 30, peopleInterval: 15)
        // Nobody (no face; people never asked) from detection 3 on, learnt one detection later.
        let frames = Self.run(&schedule, frames: 60, lag: 1, foundFace: { $0 < 3 }).map(\.frame)
        XCTAssertEqual(Array(frames.prefix(4)), [0, 9, 18, 27], "faces: every 9 frames")
        XCTAssertEqual(Array(frames[4...].prefix(3)), [30, 33, 36], "nobody at 27: every 3 frames")
    }

    func testPeopleAreLookedForOnlyWhileNoFaceIsKnownAndTheirCostIsRefundedWhenAFaceWasFound() {
        // Faces on detections 0–9, none after: people are asked for on the first detections (nothing known
        // yet), not once faces are known, and again once the missing faces are learnt.
        var schedule = DetectionSchedule(costs: .init(earnedPerFrame: 1000, face: 10, people: 20), minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
        let decisions = Self.run(&schedule, frames: 300, foundFace: { $0 < 10 })
        let asked = decisions.map(\.people)
        XCTAssertEqual(Array(asked.prefix(4)), [true, false, true, false], "unknown: every other detection (people at most every 15 frames)")
        XCTAssertEqual(Array(asked[4..<14]), Array(repeating: false, count: 10), "faces known")
        XCTAssertTrue(asked[14...].contains(true))
        let peopleFrames = decisions.filter(\.people).map(\.frame)
        for (earlier, later) in zip(peopleFrames, peopleFrames.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later - earlier, 15, "people at most every 15 frames")
        }
        XCTAssertGreaterThan(peopleFrames.filter { $0 > decisions[14].frame }.count, 5, "and steadily once no face is known")
        // Refunds: the first detection asked for people, found a face, so its people cost comes back.
        var refund = DetectionSchedule(costs: .init(earnedPerFrame: 0, face: 10, people: 20), minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
        XCTAssertEqual(refund.decide(frame: 0, likelyCut: false), .detect(people: true))
        XCTAssertEqual(refund.credit, 0)
        refund.learn(DetectionSchedule.Known(foundFace: true, ranPeople: false))
        XCTAssertEqual(refund.credit, 20)
    }
    enum Kind: Equatable { case full, reduced, regions }

    /// Like `run`, with reduced detections: every detection finds faces whose smallest is `smallestFace(detection)`
    /// tall (nil: nobody), learnt one detection later; a detection around those faces would cost `regionsCost`.
    static func runReduced(_ schedule: inout DetectionSchedule, frames: Int, cut: (Int) -> Bool = { _ in false },
                           smallestFace: (Int) -> Double? = { _ in 50 },
                           regionsCost: Double? = nil) -> [(frame: Int, kind: Kind)] {
        var decisions: [(Int, Kind)] = []
        for frame in 0..<frames {
            while schedule.learnt <= decisions.count - 1 {
                let face = smallestFace(schedule.learnt)
                schedule.learn(DetectionSchedule.Known(foundFace: face != nil, ranPeople: false, foundNobody: face == nil, smallestFace: face))
            }
            // As the analysis does: regions only where the latest known detection found a face.
            let known = schedule.learnt > 0 && smallestFace(schedule.learnt - 1) != nil
            switch schedule.decide(frame: frame, likelyCut: cut(frame), regionsCost: known ? regionsCost : nil) {
            case .skip: break
            case .detect: decisions.append((frame, .full))
            case .detectReduced: decisions.append((frame, .reduced))
            case .detectRegions: decisions.append((frame, .regions))
            }
        }
        return decisions
    }

    static func reducing(earned: Double, refresh: Int = 60) -> DetectionSchedule {
        DetectionSchedule(costs: .init(earnedPerFrame: earned, face: 40, people: 0, reducedFace: 10), minimumInterval: 10,
                          stillInterval: 30, peopleInterval: 15, reduction: .init(minimumFace: 20, refreshInterval: refresh))
    }

    func testLargeKnownFacesAreLookedForOnTheReducedPictureWithAFullOneEveryRefreshInterval() {
        var schedule = Self.reducing(earned: 1000)
        let decisions = Self.runReduced(&schedule, frames: 130)
        XCTAssertEqual(decisions.map(\.frame), Array(stride(from: 0, to: 130, by: 10)), "the same rhythm")
        XCTAssertEqual(decisions.filter { $0.kind == .full }.map(\.frame), [0, 60, 120], "full first (nothing known), then every 60 frames")
        // Without a reduction nothing changes: every detection is a full one.
        var plain = DetectionSchedule(costs: .init(earnedPerFrame: 1000, face: 40, people: 0, reducedFace: 10), minimumInterval: 10,
                                      stillInterval: 30, peopleInterval: 15)
        XCTAssertEqual(Self.runReduced(&plain, frames: 130).filter { $0.kind == .reduced }.count, 0)
    }

    func testACutNobodyOrASmallFaceMeansTheFullPicture() {
        var cut = Self.reducing(earned: 1000)
        let atCut = Self.runReduced(&cut, frames: 130, cut: { $0 == 35 })
        XCTAssertEqual(atCut.filter { $0.kind == .full }.map(\.frame), [0, 35, 95], "at the cut, and the refresh counts from it")
        var small = Self.reducing(earned: 1000)
        XCTAssertEqual(Self.runReduced(&small, frames: 100, smallestFace: { _ in 19 }).filter { $0.kind == .reduced }.count, 0,
                       "a face below the reduced picture's reliable minimum")
        // Detection 3 finds nobody (learnt before detection 4), detection 4 a small face, then large ones again.
        var nobody = Self.reducing(earned: 1000)
        let kinds = Self.runReduced(&nobody, frames: 100, smallestFace: { $0 == 3 ? nil : $0 == 4 ? 10 : 50 })
        XCTAssertEqual(kinds.map(\.frame), [0, 10, 20, 30, 33, 43, 53, 63, 73, 83, 93], "nobody at 30: sooner")
        XCTAssertEqual(kinds.map(\.kind), [.full, .reduced, .reduced, .reduced, .full, .full, .reduced, .reduced, .reduced, .reduced, .reduced])
    }

    /// Reduced detections keep the rhythm the budget gives full ones (the same count) at their own cost, and
    /// what they save pays for full detections later: once the face is gone, the search for it is faster.
    func testReducedDetectionsKeepTheCountAndTheirSavingsPayForTheSearchWhenTheFaceIsGone() {
        var full = DetectionSchedule(costs: .init(earnedPerFrame: 1, face: 40, people: 0), minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
        var reduced = Self.reducing(earned: 1, refresh: 10_000)
        let fullRun = Self.runReduced(&full, frames: 1200), reducedRun = Self.runReduced(&reduced, frames: 1200)
        XCTAssertEqual(fullRun.count, 30, "the first, then one per 40 frames earned")
        XCTAssertEqual(reducedRun.map(\.frame), fullRun.map(\.frame), "the same detections")
        XCTAssertEqual(reducedRun.filter { $0.kind == .reduced }.count, 29)
        XCTAssertEqual(reduced.reserve, 80, "the savings, up to the most credit kept")
        // Faces on detections 0–5 (frames 0–200), nobody from detection 6 (frame 240) on, learnt before the next.
        let gone: (Int) -> Double? = { $0 < 6 ? 50 : nil }  // detection 6 is frame 240
        var plain = DetectionSchedule(costs: .init(earnedPerFrame: 1, face: 40, people: 0), minimumInterval: 10, stillInterval: 30, peopleInterval: 15)
        var saving = Self.reducing(earned: 1, refresh: 10_000)
        XCTAssertEqual(Array(Self.runReduced(&plain, frames: 300, smallestFace: gone).map(\.frame).prefix(8)), [0, 40, 80, 120, 160, 200, 240, 280])
        let searched = Self.runReduced(&saving, frames: 300, smallestFace: gone)
        XCTAssertEqual(Array(searched.map(\.frame).prefix(10)), [0, 40, 80, 120, 160, 200, 240, 243, 246, 280],
                       "the reserve pays for two more looks before the budget's next one")
        XCTAssertEqual(Array(searched.map(\.kind)[5...9]), [.reduced, .reduced, .full, .full, .full])
        // The refresh of large faces is not urgent: it waits for credit and leaves the reserve alone (the saving
        // is CPU not spent); drawing on the reserve, it would have come at frame 190.
        var refreshing = Self.reducing(earned: 1, refresh: 190)
        let refreshed = Self.runReduced(&refreshing, frames: 300)
        XCTAssertEqual(refreshed.map(\.frame), fullRun.prefix(8).map(\.frame), "the same rhythm as full detections")
        XCTAssertEqual(refreshed.filter { $0.kind == .full }.map(\.frame), [0, 200], "the refresh due at 190 waits for the credit of 200")
        XCTAssertGreaterThan(refreshing.reserve, 0, "the savings stay unspent")
        // What was spent (reduced detections at their own cost) stays within what was earned plus the first allowance.
        var spent = 0.0
        for (frame, kind) in searched { spent += kind == .full ? 40 : 10; XCTAssertLessThanOrEqual(spent, 40 + Double(frame) + 1e-9) }
    }

    /// Around the faces known, when that looks at fewer pixels than the reduced picture: for faces too small
    /// for the reduced picture too. Never at a cut, never past the refresh, never when it costs a full look.
    func testRegionsAroundTheFacesAreUsedWhenTheyCostLessThanTheOtherLooks() {
        var cheap = Self.reducing(earned: 1000)
        let regions = Self.runReduced(&cheap, frames: 130, cut: { $0 == 35 }, regionsCost: 5)
        XCTAssertEqual(regions.map(\.frame), [0, 10, 20, 30, 35, 45, 55, 65, 75, 85, 95, 105, 115, 125], "the same rhythm")
        XCTAssertEqual(regions.filter { $0.kind == .full }.map(\.frame), [0, 35, 95], "first, at the cut, at the refresh")
        XCTAssertEqual(regions.filter { $0.kind == .reduced }.count, 0, "cheaper than the reduced picture")
        var dearer = Self.reducing(earned: 1000)
        XCTAssertEqual(Self.runReduced(&dearer, frames: 60, regionsCost: 15).map(\.kind), [.full, .reduced, .reduced, .reduced, .reduced, .reduced],
                       "the reduced picture is cheaper")
        var small = Self.reducing(earned: 1000)
        XCTAssertEqual(Self.runReduced(&small, frames: 60, smallestFace: { _ in 19 }, regionsCost: 15).map(\.kind),
                       [.full, .regions, .regions, .regions, .regions, .regions], "faces too small for the reduced picture")
        var whole = Self.reducing(earned: 1000)
        XCTAssertEqual(Self.runReduced(&whole, frames: 60, smallestFace: { _ in 19 }, regionsCost: 40).map(\.kind),
                       [.full, .full, .full, .full, .full, .full], "regions that cost a whole look")
        // Nobody found by a detection (a region lost its face): the next one looks at the whole picture, sooner.
        var lost = Self.reducing(earned: 1000)
        let search = Self.runReduced(&lost, frames: 60, smallestFace: { $0 == 2 ? nil : 19 }, regionsCost: 5)
        XCTAssertEqual(search.map(\.frame), [0, 10, 20, 23, 33, 43, 53])
        XCTAssertEqual(search.map(\.kind), [.full, .regions, .regions, .full, .regions, .regions, .regions])
    }

    /// What a region detection saves is CPU not spent: unlike a reduced one's saving, it does not feed the
    /// reserve, so the search for a person who left keeps the beat it has without regions. A region that lost
    /// its face (and so looked at the whole picture as well) is charged on top.
    func testRegionSavingsAreCPUNotSpentAndALostRegionIsChargedOnTop() {
        var schedule = Self.reducing(earned: 1, refresh: 10_000)
        let run = Self.runReduced(&schedule, frames: 400, smallestFace: { _ in 19 }, regionsCost: 4)
        XCTAssertEqual(run.map(\.frame), [0, 40, 80, 120, 160, 200, 240, 280, 320, 360], "the budget's rhythm")
        XCTAssertEqual(run.filter { $0.kind == .regions }.count, 9)
        XCTAssertEqual(schedule.reserve, 0)
        var lost = Self.reducing(earned: 1, refresh: 10_000)
        XCTAssertEqual(lost.decide(frame: 0, likelyCut: false), .detect(people: true))
        lost.learn(DetectionSchedule.Known(foundFace: true, ranPeople: false, smallestFace: 19))
        XCTAssertEqual(lost.decide(frame: 40, likelyCut: false, regionsCost: 4), .detectRegions)
        XCTAssertEqual(lost.credit, 0)
        lost.learn(DetectionSchedule.Known(foundFace: true, ranPeople: false, smallestFace: 19, lookedWhole: true))
        XCTAssertEqual(lost.credit, -4, "the region's cost on top of the whole look")
        XCTAssertEqual(lost.decide(frame: 80, likelyCut: false, regionsCost: 4), .skip, "the beat waits for the credit")
        XCTAssertEqual(lost.decide(frame: 84, likelyCut: false, regionsCost: 4), .detectRegions)
    }
}
