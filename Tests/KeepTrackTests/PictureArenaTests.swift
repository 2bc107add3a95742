import CFFmpeg
import XCTest
@testable import KeepTrack
@testable import KeepTrackCodec
import KeepTrackFixtures
@testable import KeepTrackReframePipeline
@testable import KeepTrackTranscode

/// The frames reframe's analysis keeps are decoded straight into a `PictureArena`: byte for byte the pictures
/// libavcodec's own pool gives, 8-bit and 10-bit alike, and once the arena is full the decoder goes on in
/// its own pool.
final class PictureArenaTests: XCTestCase {
    /// The samples of `frame`, row by row without the stride's padding.
    static func planes(_ frame: UnsafePointer<AVFrame>, bytesPerSample: Int) -> [[UInt8]] {
        (0..<3).map { plane in
            let layout = PictureArena.planeLayout(plane, width: Int(frame.pointee.width), height: Int(frame.pointee.height),
                                                  bytesPerSample: bytesPerSample)
            let base = VideoFrames.pointer(frame, plane)!, stride = Int(VideoFrames.linesize(frame, plane))
            return (0..<layout.rows).flatMap { row in Array(UnsafeBufferPointer(start: base + row * stride, count: layout.rowBytes)) }
        }
    }

    func check(codec: ReframeScene.VideoCodec, bytesPerSample: Int) throws {
        let folder = TemporaryFolder()
        let scene = ReframeScene(name: "arena-\(codec.rawValue)", segments: [
            ReframeScene.Segment(duration: 1, colours: ReframeScene.Colours("0x203050", "0x4060a0"),
                                 keyframes: [ReframeScene.Keyframe(0, x: 200), ReframeScene.Keyframe(1, x: 900)]),
        ])
        let source = try writeScene(scene, in: folder, codec: codec)
        let movie = try Movie.open(path: source)
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        var expected: [[[UInt8]]] = []
        try VideoDecoding.decode(movie, video) { frame, _ in expected.append(Self.planes(frame, bytesPerSample: bytesPerSample)) }
        XCTAssertEqual(expected.count, video.sampleTable.sampleCount)

        // Room for all but the last 5 pictures (and the arena's alignment margin): the rest come from libavcodec's pool.
        let room = video.sampleTable.sampleCount - 5
        let arena = try XCTUnwrap(PictureArena(pictures: room, width: 1920, height: 1080, bytesPerSample: bytesPerSample))
        var kept: [UnsafeMutablePointer<AVFrame>?] = []
        defer { for var frame in kept { av_frame_free(&frame) } }
        try VideoDecoding.decode(movie, video, pictureArena: arena) { frame, _ in kept.append(av_frame_clone(frame)) }
        XCTAssertEqual(kept.count, expected.count)
        XCTAssertGreaterThanOrEqual(arena.placed, room, "at least the pictures it was made for")
        XCTAssertLessThan(arena.placed, expected.count, "and no more than fit")
        var inArena = 0
        for (position, frame) in kept.enumerated() {
            let frame = try XCTUnwrap(frame)
            XCTAssertEqual(Self.planes(frame, bytesPerSample: bytesPerSample), expected[position], "picture \(position)")
            if arena.contains(frame.pointee.data.0!) {
                inArena += 1
                XCTAssertEqual(Int(frame.pointee.linesize.0) % 64, 0)
            }
        }
        XCTAssertEqual(inArena, arena.placed, "every picture placed in the arena is a kept frame")
        XCTAssertLessThan(inArena, kept.count, "the last ones came from the decoder's pool once the arena was full")
    }

    func testH264PicturesDecodedIntoTheArenaAreTheDecodersOwn() throws {
        try check(codec: .h264, bytesPerSample: 1)
    }

    func testHEVCMain10PicturesDecodedIntoTheArenaAreTheDecodersOwn() throws {
        try check(codec: .hevcHLG, bytesPerSample: 2)
    }
}
