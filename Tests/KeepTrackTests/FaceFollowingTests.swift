import Foundation
import XCTest
import KeepTrackFraming

/// `FaceFollowing` on grids of block means made from rendered pictures: a textured head moving over a textured
/// background, its true position known on every frame.
final class FaceFollowingTests: XCTestCase {
    static let width = 640, height = 360
    static let grid = StillPictures.Grid(columns: 64, rows: 36, blockWidth: 10, blockHeight: 10)
    static let head = (width: 170.0, height: 260.0, top: 100.0)

    /// A smooth pseudo-random texture (a few sines), 0–255.
    static func texture(_ x: Double, _ y: Double, seed: Double) -> Double {
        let value = sin(x * 0.043 + seed) * cos(y * 0.051 - seed) + 0.6 * sin((x + 2 * y) * 0.021 + 3 * seed)
            + 0.4 * cos((x - y) * 0.067 + seed * 1.7)
        return 128 + 50 * value
    }

    /// The 64×36 luma grid (block means) of a picture with the head's left edge at `headX` (nil: no head), over
    /// the background moved `pan` pixels; `headSeed` sets the head's texture.
    static func thumbnail(headX: Double?, pan: Double = 0, headSeed: Double = 5) -> [UInt8] {
        var sums = [Double](repeating: 0, count: 64 * 36)
        for y in 0..<height {
            for x in 0..<width {
                let px = Double(x) + 0.5, py = Double(y) + 0.5
                var value = texture(px + pan, py, seed: 1) * 0.6
                if let headX, px >= headX, px < headX + head.width, py >= head.top {
                    value = texture(px - headX, py - head.top, seed: headSeed) * 0.9 + 20
                }
                sums[(y / 10) * 64 + x / 10] += value
            }
        }
        return sums.map { UInt8(max(0, min(255, ($0 / 100).rounded()))) }
    }

    static func box(at x: Double) -> FrameRect { FrameRect(x: x, y: head.top, width: head.width, height: head.height) }

    /// Runs a detection on frame 0 with the head at `path[0]`, analysed frames 1..<path.count, and the next
    /// detection after them; the detection is learnt after `learnAfter` analysed frames.
    static func follow(_ path: [Double], learnAfter: Int = 0, faces: [FrameRect]? = nil, cutAt: Int? = nil,
                       picture: (Int, Double) -> [UInt8] = { _, x in thumbnail(headX: x) }) -> FaceFollowing {
        var following = FaceFollowing(grid: grid)
        following.detected(frame: 0, thumbnail: picture(0, path[0]))
        if learnAfter == 0 { following.learn(faces: faces ?? [box(at: path[0])]) }
        for frame in 1..<path.count {
            following.analysed(frame: frame, thumbnail: picture(frame, path[frame]), likelyCut: frame == cutAt)
            if frame == learnAfter { following.learn(faces: faces ?? [box(at: path[0])]) }
        }
        following.detected(frame: path.count, thumbnail: picture(path.count, path.last!))
        if learnAfter >= path.count { following.learn(faces: faces ?? [box(at: path[0])]) }
        return following
    }

    /// A swing like stage_cuts_audience's over-the-shoulder head (right by 250 px and back within 40 frames, up
    /// to 20 px a frame), then a slow drift of 3 px a frame (a third of a block: a whole-block match alone never
    /// moves), followed on every frame to within a block.
    func testALargeFaceIsFollowedToWhereItMovedBetweenDetections() throws {
        let swing = (0..<40).map { 300 + 125 * (1 - cos(Double($0) / 40 * 2 * .pi)) }
        let drift = (0..<30).map { 300 + 3 * Double($0 + 1) }
        let path = swing + drift
        let following = Self.follow(path)
        let followed = try XCTUnwrap(following.followed.first)
        XCTAssertEqual(followed.detectionFrame, 0)
        XCTAssertEqual(followed.positions.map(\.frame), Array(1..<path.count), "every analysed frame up to the next detection")
        let errors = followed.positions.map { abs($0.box.x - path[$0.frame]) }
        XCTAssertLessThanOrEqual(errors.max()!, 10, "errors \(errors.map { Int($0.rounded()) })")
        XCTAssertLessThanOrEqual(abs(followed.positions.last!.box.x - path.last!), 6, "the slow drift's 90 px, to within 6")
        XCTAssertEqual(followed.positions.map(\.box.width), Array(repeating: Self.head.width, count: path.count - 1))
    }

    /// The detection is learnt later than the frames after it arrive (the detector runs behind the analysis):
    /// the same positions as when it is known at once.
    func testFollowingIsTheSameWhenTheDetectionIsLearntLate() {
        let path = (0..<30).map { 200 + 6 * Double($0) }
        let atOnce = Self.follow(path)
        XCTAssertEqual(Self.follow(path, learnAfter: 12).followed, atOnce.followed)
        XCTAssertEqual(Self.follow(path, learnAfter: 30).followed, atOnce.followed)
        XCTAssertEqual(atOnce.followed.first?.positions.count, 29)
    }

    /// Nothing is followed across a likely cut, nor a face too small on the grid, nor a head that is replaced
    /// by something else; the whole background panning under a still head does not carry it along.
    func testFollowingStopsWhereItCannotHold() throws {
        let path = (0..<30).map { 200 + 6 * Double($0) }
        let cut = Self.follow(path, cutAt: 10)
        XCTAssertEqual(cut.followed.first?.positions.map(\.frame), Array(1..<10))

        let small = FrameRect(x: 200, y: 100, width: 60, height: 60)  // 6 × 6 blocks
        XCTAssertTrue(Self.follow(path, faces: [small]).followed.isEmpty)

        // From frame 10 the head's place holds an unrelated flat grey picture: lost, not followed onto it.
        let replaced = Self.follow(path) { frame, x in
            frame < 10 ? Self.thumbnail(headX: x) : [UInt8](repeating: frame % 2 == 0 ? 20 : 235, count: 64 * 36)
        }
        XCTAssertEqual(replaced.followed.first?.positions.map(\.frame), Array(1..<10))

        let still = [Double](repeating: 250, count: 20)
        let panned = Self.follow(still) { frame, x in Self.thumbnail(headX: x, pan: 8 * Double(frame)) }
        let drift = try XCTUnwrap(panned.followed.first?.positions.map { abs($0.box.x - 250) }.max())
        XCTAssertLessThanOrEqual(drift, 10, "the head stays where it is while the background pans under it")
    }

    /// The planner takes the subject's followed positions between its sightings (and only the subject's): a
    /// 9:16 crop of the 640×360 picture follows the swing, and they do not count as faces seen.
    func testThePlannerFollowsTheSubjectsFollowedPositions() throws {
        let swing = (0..<40).map { 300 + 125 * (1 - cos(Double($0) / 40 * 2 * .pi)) }
        let following = Self.follow(swing)
        let frameTimes = (0..<41).map { Double($0) / 30 }
        let samples = [DetectionSample(frameIndex: 0, faces: [FaceDetection(box: Self.box(at: swing[0]), confidence: 90)]),
                       DetectionSample(frameIndex: 40, faces: [FaceDetection(box: Self.box(at: swing[39]), confidence: 90)])]
        let planner = CameraPathPlanner(sourceWidth: Self.width, sourceHeight: Self.height, cropWidth: 202, cropHeight: 360)
        let without = planner.plan(frameTimes: frameTimes, samples: samples, cuts: [], layout: .follow).path
        let with = planner.plan(frameTimes: frameTimes, samples: samples, cuts: [], layout: .follow, followed: following.followed).path
        // The head's visible centre at the top of the swing (frame 20: its left edge at 550, cut by the picture's edge).
        let visibleCentre = (550.0 + 640) / 2
        XCTAssertTrue(Double(with.offsets[20]) <= visibleCentre && visibleCentre <= Double(with.offsets[20] + 202),
                      "followed: the crop at \(with.offsets[20]) holds the head")
        XCTAssertFalse(Double(without.offsets[20]) <= visibleCentre && visibleCentre <= Double(without.offsets[20] + 202),
                       "without: the crop at \(without.offsets[20]) stays between the two sightings")
        XCTAssertEqual(with.subjectFaces.map(\.frameIndex), [0, 40], "followed positions are not faces seen")
    }

    /// Followed positions that end more than half a face width from where the next look found the same person
    /// (the following went astray) are dropped, and the path keeps to the looks; ending near it, they are kept.
    func testFollowingThatEndsAwayFromTheNextLookIsDropped() {
        let frameTimes = (0..<31).map { Double($0) / 30 }
        let face = Self.box(at: 100)
        let samples = [DetectionSample(frameIndex: 0, faces: [FaceDetection(box: face, confidence: 90)]),
                       DetectionSample(frameIndex: 30, faces: [FaceDetection(box: face, confidence: 90)])]
        func followed(to end: Double) -> FaceFollowing.Followed {
            FaceFollowing.Followed(detectionFrame: 0, face: face, positions: (1..<30).map { frame in
                var box = face
                box.x += (end - 100) * Double(frame) / 29
                return (frame, box)
            })
        }
        let planner = CameraPathPlanner(sourceWidth: Self.width, sourceHeight: Self.height, cropWidth: 202, cropHeight: 360)
        let looksOnly = planner.plan(frameTimes: frameTimes, samples: samples, cuts: [], layout: .follow).path
        let astray = planner.plan(frameTimes: frameTimes, samples: samples, cuts: [], layout: .follow, followed: [followed(to: 400)]).path
        XCTAssertEqual(astray.offsets, looksOnly.offsets, "a following that ends 300 px from the next look is not used")
        XCTAssertTrue(astray.followedSightings.isEmpty)
        let near = planner.plan(frameTimes: frameTimes, samples: samples, cuts: [], layout: .follow, followed: [followed(to: 160)]).path
        XCTAssertEqual(near.followedSightings.count, 29, "ending 60 px (a third of the face) from the next look: used")
    }

    /// Of a crowd of large faces, the four largest are followed (the positions kept stay bounded).
    func testTheLargestFourFacesOfADetectionAreFollowed() {
        let faces: [FrameRect] = (0..<6).map { index in
            let width = Double(80 + 5 * index)
            return FrameRect(x: Double(20 + 100 * index), y: 100, width: width, height: 120)
        }
        let path = [Double](repeating: 250, count: 5)
        let following = Self.follow(path, faces: faces)
        XCTAssertEqual(Set(following.followed.map { $0.face }), Set(faces.suffix(4)))
        XCTAssertEqual(following.followed.map { $0.positions.count }, [4, 4, 4, 4])
    }

    /// A face at the picture's right edge, on frames 5 apart (I- and P-frames only: the search reaches 12 blocks),
    /// once made a reversed range and trapped (a 1280×720 x264 clip of stage_cuts_audience: exit 132).
    func testAFaceAtTheEdgeSearchedFarDoesNotTrap() {
        var following = FaceFollowing(grid: Self.grid)
        following.detected(frame: 0, thumbnail: Self.thumbnail(headX: 560))
        following.learn(faces: [FrameRect(x: 560, y: 100, width: 80, height: 200)])
        for frame in stride(from: 5, through: 30, by: 5) {
            following.analysed(frame: frame, thumbnail: Self.thumbnail(headX: 560 + Double(frame)), likelyCut: false)
        }
        XCTAssertFalse(following.followed.isEmpty)
    }

    /// Seeded random boxes (inside, across the edges, far outside, huge, empty), grids (tiny blocks, none) and
    /// thumbnails (of the grid's size or not): following never traps, and positions are always finite.
    func testFollowingAnythingNeverTraps() {
        var seed: UInt64 = 0x5EED_F011
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 33
        }
        func number(_ range: ClosedRange<Double>) -> Double { range.lowerBound + Double(next() % 10_000) / 10_000 * (range.upperBound - range.lowerBound) }
        let grids = [Self.grid, StillPictures.Grid(columns: 64, rows: 36, blockWidth: 4, blockHeight: 4),
                     StillPictures.Grid(columns: 64, rows: 36, blockWidth: 0, blockHeight: 0),
                     StillPictures.Grid(columns: 64, rows: 36, blockWidth: 30, blockHeight: 30)]
        for round in 0..<300 {
            let grid = grids[round % grids.count]
            var following = FaceFollowing(grid: grid)
            func thumbnail() -> [UInt8] {
                switch next() % 6 {
                case 0: return []
                case 1: return [UInt8](repeating: 7, count: 100)
                default: return (0..<(64 * 36)).map { _ in UInt8(next() % 256) }
                }
            }
            let faces = (0..<Int(next() % 6)).map { _ in
                FrameRect(x: number(-3000...3000), y: number(-2000...2000), width: number(0...2500), height: number(0...2500))
            }
            following.detected(frame: 0, thumbnail: thumbnail())
            var frame = 0
            for step in 0..<Int(next() % 40) {
                frame += 1 + Int(next() % 8)
                if step == 3 { following.learn(faces: faces) }
                if next() % 17 == 0 { following.detected(frame: frame, thumbnail: thumbnail()) } else {
                    following.analysed(frame: frame, thumbnail: thumbnail(), likelyCut: next() % 23 == 0)
                }
            }
            following.learn(faces: faces)
            for face in following.followed {
                XCTAssertTrue(face.positions.allSatisfy { $0.box.x.isFinite && $0.box.y.isFinite }, "round \(round)")
            }
        }
    }
}
