import Foundation
import XCTest
import KeepTrackFraming
@testable import KeepTrackReframePipeline

/// People on real footage that reframe once followed only partly (issue 12, "follow people, not only faces"),
/// judged against positions read by eye from the frames (frame numbers in presentation order, from 0). Each
/// test asserts that reframe does better than a plain centre crop and meets the camera operator's target
/// given in its comment (both do since 2026-12-03; before, they asserted what reframe reached then).
final class FootageFollowingTests: XCTestCase {
    private func plannedPath(_ name: String) throws -> CropPath {
        let source = try PersonDetectorTests.footage(name)
        let folder = TemporaryFolder()
        var options = ReframeOptions()
        options.preset = "ultrafast"
        return try XCTUnwrap(try Reframer.run(input: source, output: folder.path("vertical.mp4"), options: options).path)
    }

    /// stage_cuts_audience.mp4 (640×360): after the hard cut between frames 19 and 20 (wide stage shot →
    /// over-the-shoulder close shot; found since the picture difference counts changed blocks, before it the
    /// crop panned across it) a head in profile faces left, cut by the right edge; by eye, its nose tip at x 358,
    /// 297, 289, 334, 447, 562, 596, 571, 488, 439, 441 on frames 23, 29, …, 77 (every 6th) and 81; the visible
    /// head spans from the nose to the right edge. Expected: the cut found, and the visible head's centre inside
    /// the crop on 80 % of those frames. Before faces were followed on the luma grid (2026-12-03): 4 of 11 (the crop rested at x 322–524 from frame 44 while the
    /// head moved to the edge; YuNet finds the profile on all three looks of the shot, frames 20, 30 and 41, and the
    /// budget of a 202×360 output allows none until the cut at 82). Since the head is followed on the luma grid
    /// between looks (`FaceFollowing`): 11 of 11. Centre crop: 0 of 11.
    /// On how many of the 11 frames read by eye the over-the-shoulder head's visible centre (half-way from the nose
    /// to the right edge) is inside `path`'s crop, and inside a centre crop's; for a copy whose frames are `shift`
    /// later and `scale` times the size.
    static func overTheShoulderHeadsInside(_ path: CropPath, shift: Int = 0, scale: Int = 1) -> (inside: Int, centreCrop: Int) {
        let noses = [(23, 358), (29, 297), (35, 289), (41, 334), (47, 447), (53, 562), (59, 596), (65, 571), (71, 488), (77, 439), (81, 441)]
        let heads = noses.map { (frame: $0.0 + shift, centre: scale * ($0.1 + 640) / 2) }
        let centre = (640 * scale - path.cropWidth) / 2
        func inside(_ offset: (Int) -> Int) -> Int {
            heads.filter { offset($0.frame) <= $0.centre && $0.centre <= offset($0.frame) + path.cropWidth }.count
        }
        return (inside { path.offsets[$0] }, inside { _ in centre })
    }

    func testOverTheShoulderShotIsCutFromTheWideShotAndFollowsTheHead() throws {
        let path = try plannedPath("stage_cuts_audience.mp4")
        XCTAssertTrue(path.shots.map(\.lowerBound).contains(20), "shots start at \(path.shots.map(\.lowerBound))")
        let (inside, centreCrop) = Self.overTheShoulderHeadsInside(path)
        print("stage over-the-shoulder: the head's centre inside reframe's crop on \(inside)/11 sampled frames, a centre crop's on \(centreCrop)")
        // Target: 80 % of the frames (9 of 11). Today: 11 of 11 (centre crop 0).
        XCTAssertGreaterThan(inside, centreCrop, "better than a centre crop")
        XCTAssertGreaterThanOrEqual(inside, 9, "the target")
    }

    /// basketball_running.mp4 (426×240, 29.97 fps): two players, 100–180 px tall with faces of 10–15 px. reframe
    /// finds a face once (the player in blue, frame 0), then nobody in its 7 other analysed frames. By eye, two
    /// frames a second, the blue player's body centre x (hidden behind the other player at 5.5 s): at 1–3 s it is
    /// at 323–339. Expected: the player the crop chose inside it on 90 % of the samples. Measured: 13 of 18 while
    /// the crop never moved (x 184–320: at 1–3 s it showed only the bleachers), 18 of 18 since the colours of the
    /// player's shirt find him between detections (`SubjectAppearance`); centre crop 8.
    func testBasketballPlayerIsFollowedAcrossTheCourt() throws {
        let path = try plannedPath("basketball_running.mp4")
        let player: [(time: Double, x: Int)] = [(0, 254), (0.5, 298), (1, 337), (1.5, 339), (2, 334), (2.5, 330), (3, 323), (3.5, 289),
                                                (4, 258), (4.5, 229), (5, 207), (6, 226), (6.5, 254), (7, 277), (7.5, 298), (8, 313),
                                                (8.5, 312), (9, 244)]
        let samples = player.map { (frame: Int(($0.time * 30000 / 1001).rounded()), x: $0.x) }
        let inside = samples.filter { path.offsets[$0.frame] <= $0.x && $0.x <= path.offsets[$0.frame] + path.cropWidth }
        let centre = (426 - path.cropWidth) / 2
        let insideCentreCrop = samples.filter { centre <= $0.x && $0.x <= centre + path.cropWidth }
        print("basketball: the blue player's centre inside reframe's crop on \(inside.count)/\(samples.count) samples (offsets \(Set(path.offsets).sorted())), a centre crop's on \(insideCentreCrop.count)")
        // Target: 90 % of the samples (17 of 18). Today: 18 of 18 (centre crop 8).
        XCTAssertGreaterThan(inside.count, insideCentreCrop.count, "better than a centre crop")
        XCTAssertGreaterThanOrEqual(inside.count, 17, "the target")
    }

    /// The same clip as ffmpeg's 1280×720 x264 copy (`-preset medium -crf 20`: B-frames, so a clip too large to
    /// keep decoded is analysed on its referenced frames only, 236 of 300, and faces are followed over gaps).
    /// Found on it: a trap in the following (a face at the right edge searched 6 blocks far made a reversed
    /// range: exit 132) and a missed cut (the cut into the over-the-shoulder shot, 0.40 against 0.10–0.16 on
    /// every analysed frame after it, the skipped repeated frames that had kept the median low on the original
    /// among those not analysed: the shots were joined).
    /// Expected: the three cuts of the original (shifted: the copy shows the frames the original's edit list
    /// hides), and the head inside the crop as on the original. Measured: the cuts, and the head on 6 of 11
    /// (centre crop 0): this copy's budget pays for a look every 10 frames, and YuNet misses the head on the
    /// look at frame 94 of the copy (the 69th of the original), where it is cut by the edge; the subject's track
    /// then ends and the camera takes the next face. Target: 9 of 11, as on the original.
    func testTheOverTheShoulderShotOnAnX264CopyAnalysedOnItsReferencedFrames() throws {
        let folder = TemporaryFolder()
        let copy = folder.path("stage720.mp4")
        guard let made = runTool("ffmpeg", ["-v", "error", "-i", try PersonDetectorTests.footage("stage_cuts_audience.mp4"),
                                            "-vf", "scale=1280:720", "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-an", copy]),
              made.code == 0 else { throw unavailable("ffmpeg with libx264 is needed") }
        var options = ReframeOptions()
        options.preset = "ultrafast"
        let summary = try Reframer.run(input: copy, output: folder.path("vertical.mp4"), options: options)
        let path = try XCTUnwrap(summary.path)
        XCTAssertLessThan(summary.decodedForAnalysis, path.offsets.count, "the analysis skipped frames nothing references")
        let cuts = path.shots.dropFirst().map(\.lowerBound)
        let shift = (cuts.first ?? 0) - 20
        XCTAssertEqual(cuts, [20, 82, 211].map { $0 + shift }, "the original's cuts, shifted alike")
        let (inside, centreCrop) = Self.overTheShoulderHeadsInside(path, shift: shift, scale: 2)
        print("stage over-the-shoulder, 720p x264 copy: the head's centre inside reframe's crop on \(inside)/11, a centre crop's on \(centreCrop)")
        // Target: 9 of 11. Today: 6 of 11 (centre crop 0).
        XCTAssertGreaterThan(inside, centreCrop, "better than a centre crop")
        XCTAssertGreaterThanOrEqual(inside, 6, "no worse than when written")
    }

    /// The clip stored turned (a quarter turn either way, or upside down) with a matrix that shows it upright, as
    /// phones write: the following works on the luma grid turned upright, and the head is followed as on the
    /// original (before, a turned picture was not followed: 3 of 11 for a quarter turn, 4 upside down).
    func testTheOverTheShoulderHeadIsFollowedOnAPictureStoredTurned() throws {
        let folder = TemporaryFolder()
        for (filter, rotation) in [("hflip,vflip", 180), ("transpose=2", 270), ("transpose=1", 90)] {
            let turned = folder.path("turned-\(rotation).mp4"), tagged = folder.path("tagged-\(rotation).mp4")
            guard let made = runTool("ffmpeg", ["-v", "error", "-i", try PersonDetectorTests.footage("stage_cuts_audience.mp4"), "-vf", filter,
                                                "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-an", turned]), made.code == 0,
                  let tag = runTool("ffmpeg", ["-v", "error", "-i", turned, "-c", "copy", "-metadata:s:v", "rotate=\(rotation)", tagged]),
                  tag.code == 0 else { throw unavailable("ffmpeg with libx264 is needed") }
            var options = ReframeOptions()
            options.preset = "ultrafast"
            let summary = try Reframer.run(input: tagged, output: folder.path("vertical-\(rotation).mp4"), options: options)
            let path = try XCTUnwrap(summary.path)
            XCTAssertNotEqual(summary.orientation.rotation, 0, "stored turned (ffmpeg tag rotate=\(rotation))")
            XCTAssertEqual(path.sourceWidth, 640)
            let cuts = path.shots.dropFirst().map(\.lowerBound)
            let shift = (cuts.first ?? 0) - 20
            XCTAssertEqual(cuts, [20, 82, 211].map { $0 + shift })
            XCTAssertGreaterThan(summary.framesFollowed, 0)
            let (inside, _) = Self.overTheShoulderHeadsInside(path, shift: shift)
            print("stage over-the-shoulder, stored turned (rotate=\(rotation)): the head inside the crop on \(inside)/11")
            XCTAssertGreaterThanOrEqual(inside, 9, "the target, as upright")
        }
    }
}
