import XCTest
import KeepTrackFraming

/// `SubjectAppearance` on colour thumbnails drawn here with known truth: a body of one colour under a face seen
/// once, on a background of many colours, moving, resting, hidden for a while, or dressed like the background.
final class SubjectAppearanceTests: XCTestCase {
    static let columns = 64, rows = 36, width = 640, height = 360  // 10-pixel blocks
    static let shirt: (u: UInt8, v: UInt8) = (70, 200)
    /// Stand-ins move in whole blocks (10 px) and the body is drawn on whole blocks (up to 5 px from its place).
    static let tolerance = 15.0

    /// A picture of pseudo-random background colours (the same every run; `camouflage`: the left half the shirt's)
    /// with a body 4 blocks wide in rows 12–23 whose left edge is at `bodyX` pixels (none when nil).
    static func thumbnail(bodyX: Double?, seed: UInt64, camouflage: Bool = false) -> [UInt8] {
        var state = seed
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let count = columns * rows
        var picture = [UInt8](repeating: 0, count: 2 * count)
        for index in 0..<count {
            // Background colours away from the shirt's: U 100–227, V any.
            picture[index] = 100 + next() % 128
            picture[count + index] = next()
            if camouflage, index % columns < columns / 2 {
                picture[index] = shirt.u
                picture[count + index] = shirt.v
            }
        }
        if let bodyX {
            let first = Int((bodyX / 10).rounded())
            for row in 12..<24 {
                for column in max(0, first)..<min(columns, first + 4) {
                    picture[row * columns + column] = shirt.u
                    picture[count + row * columns + column] = shirt.v
                }
            }
        }
        return picture
    }

    /// The face above a body whose left edge is at `bodyX`: 20 px, its bottom 10 px above the body's top (row 12).
    static func face(bodyX: Double) -> FrameRect { FrameRect(x: bodyX + 10, y: 90, width: 20, height: 20) }

    /// Frames 0–89 at 30 a second, a thumbnail every 5th; the face found on frame 0 only.
    func found(body: (Int) -> Double?, camouflage: Bool = false) -> (SubjectAppearance.Found, [Int: Double]) {
        var frames: [Int: [UInt8]] = [:]
        var truth: [Int: Double] = [:]
        for frame in stride(from: 0, to: 90, by: 5) {
            frames[frame] = Self.thumbnail(bodyX: body(frame), seed: UInt64(frame) + 1, camouflage: camouflage)
            if let x = body(frame) { truth[frame] = Self.face(bodyX: x).midX }
        }
        let thumbnails = ColourThumbnails(columns: Self.columns, rows: Self.rows, width: Self.width, height: Self.height, frames: frames)
        let appearance = SubjectAppearance(thumbnails: thumbnails, axis: .horizontal)
        let sighting = Sighting(frameIndex: 0, box: Self.face(bodyX: body(0)!))
        let times = (0..<90).map { Double($0) / 30 }
        return (appearance.standIns(shot: 0..<90, sightings: [sighting], frameTimes: times), truth)
    }

    func testSubjectWalkingAwayFromItsOnlySightingIsFollowedToTheBlock() {
        // 3 px a frame: 90 px a second, 267 px in all.
        let (found, truth) = found { 100 + 3 * Double($0) }
        // Frames 10–85: frame 5 is too near the sighting (`gapSeconds`).
        XCTAssertEqual(found.moved.count + found.stayed.count, 16, "every look from frame 10 on")
        XCTAssertGreaterThanOrEqual(found.moved.count, 14)
        for sighting in found.moved {
            XCTAssertEqual(sighting.box.midX, truth[sighting.frameIndex]!, accuracy: Self.tolerance, "frame \(sighting.frameIndex)")
        }
        XCTAssertEqual(found.moved.last?.frameIndex, 85)
    }

    func testSubjectAtRestKeepsItsSightingsBox() {
        let (found, _) = found { _ in 200 }
        XCTAssertEqual(found.moved, [], "nothing moved: the path keeps the exact box of the sighting")
        XCTAssertEqual(found.stayed, Array(stride(from: 10, to: 90, by: 5)))
    }

    func testHiddenSubjectIsNotPlacedAndIsFoundAgainFurtherOn() {
        // Hidden (not drawn) on frames 25–45, while walking on.
        let (found, truth) = found { frame in (25...45).contains(frame) ? nil : 100 + 3 * Double(frame) }
        let frames = Set(found.moved.map(\.frameIndex))
        XCTAssertTrue(frames.isDisjoint(with: Set(25...45)), "nothing said while hidden: \(frames.sorted())")
        XCTAssertTrue(frames.isSuperset(of: [50, 55, 60, 85]), "found again after: \(frames.sorted())")
        for sighting in found.moved { XCTAssertEqual(sighting.box.midX, truth[sighting.frameIndex]!, accuracy: Self.tolerance) }
    }

    func testClothesLikeTheBackgroundSayNothing() {
        let (found, _) = found(body: { 400 + Double($0) }, camouflage: true)
        XCTAssertEqual(found, SubjectAppearance.Found(), "half the picture wears the shirt's colour: no stand-ins")
    }
}
