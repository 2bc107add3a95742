import CFFmpeg
import XCTest
@testable import KeepTrack
@testable import KeepTrackCodec
import KeepTrackFixtures
@testable import KeepTrackReframePipeline
@testable import KeepTrackTranscode

/// The analysis decodes on a thread of its own, ahead of itself (`DecodeAhead`): it must hand over the very
/// pictures, times and order the decoder gives on the caller's thread, and stop cleanly when the analysis
/// gives up part-way.
final class DecodeAheadTests: XCTestCase {
    func scene(_ codec: ReframeScene.VideoCodec, in folder: TemporaryFolder) throws -> (Movie, Track, String) {
        let scene = ReframeScene(name: "ahead-\(codec.rawValue)", segments: [
            ReframeScene.Segment(duration: 1, colours: ReframeScene.Colours("0x203050", "0x4060a0"),
                                 keyframes: [ReframeScene.Keyframe(0, x: 200), ReframeScene.Keyframe(1, x: 900)]),
        ])
        let path = try writeScene(scene, in: folder, codec: codec)
        let movie = try Movie.open(path: path)
        return (movie, try XCTUnwrap(movie.tracks.first { $0.kind == .video }), path)
    }

    func check(_ codec: ReframeScene.VideoCodec, bytesPerSample: Int) throws {
        let folder = TemporaryFolder()
        let (movie, video, _) = try scene(codec, in: folder)
        var expected: [(Int64, [[UInt8]])] = []
        try VideoDecoding.decode(movie, video, analysing: true) { frame, time in
            expected.append((time, PictureArenaTests.planes(frame, bytesPerSample: bytesPerSample)))
        }
        XCTAssertEqual(expected.count, video.sampleTable.sampleCount)
        // A queue of 2 makes the decoder wait for the analysis again and again; into an arena and into the pool.
        for arena in [nil, PictureArena(pictures: expected.count + 8, width: 1920, height: 1080, bytesPerSample: bytesPerSample)] {
            var seen: [(Int64, [[UInt8]])] = []
            try VideoDecoding.decode(movie, video, analysing: true, pictureArena: arena, ahead: 2) { frame, time in
                if seen.count % 7 == 0 { usleep(2000) }  // the analysis waiting for the detector now and then
                seen.append((time, PictureArenaTests.planes(frame, bytesPerSample: bytesPerSample)))
            }
            XCTAssertEqual(seen.map(\.0), expected.map(\.0), "times, in order (arena: \(arena != nil))")
            for (position, picture) in seen.enumerated() where position < expected.count {
                XCTAssertEqual(picture.1, expected[position].1, "picture \(position) (arena: \(arena != nil))")
            }
        }
    }

    func testH264FramesDecodedAheadAreTheDecodersOwnInOrder() throws {
        try check(.h264, bytesPerSample: 1)
    }

    /// HEVC decodes ahead on two frame threads.
    func testHEVCFramesDecodedAheadAreTheDecodersOwnInOrder() throws {
        try check(.hevcHLG, bytesPerSample: 2)
    }

    /// The analysis throws on frame 5 (a frame the sample table does not list, say): the error comes out as it
    /// was, at once, and the decoder's thread has let go of the decoder (a second decode of the movie works).
    func testAnAnalysisThatGivesUpStopsTheDecoderAndKeepsItsError() throws {
        struct GaveUp: Error {}
        let folder = TemporaryFolder()
        let (movie, video, _) = try scene(.h264, in: folder)
        var handed = 0
        XCTAssertThrowsError(try VideoDecoding.decode(movie, video, analysing: true, ahead: 3) { _, _ in
            handed += 1
            if handed == 5 { throw GaveUp() }
        }) { XCTAssertTrue($0 is GaveUp, "\($0)") }
        XCTAssertEqual(handed, 5, "no frame after the error")
        var again = 0
        try VideoDecoding.decode(movie, video, analysing: true, ahead: 3) { _, _ in again += 1 }
        XCTAssertEqual(again, video.sampleTable.sampleCount)
    }

    /// Samples whose bytes are garbage make the decoder fail (or conceal) on its thread: the analysis sees what
    /// it would on its own thread, the same error or the same frames, never a hang or a crash.
    func testADecoderErrorOnItsThreadReachesTheAnalysis() throws {
        let folder = TemporaryFolder()
        let (_, video, source) = try scene(.h264, in: folder)
        var direct: Result<Int, Error> = .success(0)
        var ahead: Result<Int, Error> = .success(0)
        // Every sample from a third of the way on overwritten with a repeating garbage pattern.
        let damaged = folder.path("damaged.mp4")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let samples = Array(video.sampleTable.samples)
        for sample in samples[(samples.count / 3)...] {
            for offset in Int(sample.offset)..<(Int(sample.offset) + Int(sample.size)) { bytes[offset] = UInt8(truncatingIfNeeded: offset &* 151) }
        }
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let cut = try Movie.open(path: damaged)
        let cutVideo = try XCTUnwrap(cut.tracks.first { $0.kind == .video })
        direct = Result { var n = 0; try VideoDecoding.decode(cut, cutVideo, analysing: true) { _, _ in n += 1 }; return n }
        ahead = Result { var n = 0; try VideoDecoding.decode(cut, cutVideo, analysing: true, ahead: 2) { _, _ in n += 1 }; return n }
        switch (direct, ahead) {
        case (.success(let a), .success(let b)): XCTAssertEqual(a, b)
        case (.failure(let a), .failure(let b)): XCTAssertEqual("\(a)", "\(b)")
        default: XCTFail("the decoder's own thread changed the outcome: \(direct) vs \(ahead)")
        }
    }
}
