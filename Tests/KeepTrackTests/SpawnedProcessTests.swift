import CFFmpeg
import Foundation
import XCTest
@testable import KeepTrackCodec
@testable import KeepTrackTranscode

/// The pieces `transcode --stereo` runs FFmpeg 9 with (`SpawnedProcess`, `RawFrames`), and the start-up costs
/// taken out of every keeptrack-media command (libavfilter opened on demand, huge pages off for the encoders).
final class SpawnedProcessTests: XCTestCase {
    private func readAll(_ descriptor: Int32) -> String {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let got = read(descriptor, &buffer, buffer.count), got > 0 { data.append(contentsOf: buffer[0..<got]) }
        return String(decoding: data, as: UTF8.self)
    }

    func testOutputErrorsAndExitStatusComeBack() throws {
        let child = try SpawnedProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; read x || echo 'no input'; exit 3"])
        XCTAssertEqual(readAll(child.output), "out\nno input\n", "standard input is /dev/null")
        XCTAssertEqual(readAll(child.errors), "err\n")
        XCTAssertEqual(child.wait(), 3)
        XCTAssertEqual(child.wait(), 3, "a second wait gives the recorded status")
    }

    func testTerminateEndsTheChildWithItsSignal() throws {
        let child = try SpawnedProcess(executable: "/bin/sleep", arguments: ["30"])
        child.terminate()
        XCTAssertEqual(child.wait(), 128 + SIGTERM)
    }

    /// A descriptor this process holds without close-on-exec does not reach the child.
    func testTheChildInheritsNoOtherDescriptor() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]); close(ends[1]) }
        let child = try SpawnedProcess(executable: "/bin/sh", arguments: ["-c", "ls /proc/self/fd"])
        let descriptors = Set(readAll(child.output).split(separator: "\n").compactMap { Int32($0) })
        XCTAssertEqual(child.wait(), 0)
        XCTAssertFalse(descriptors.contains(ends[0]) || descriptors.contains(ends[1]), "the child saw \(descriptors.sorted())")
        XCTAssertTrue(descriptors.isSuperset(of: [0, 1, 2]))
    }

    func testAMissingProgramIsAnErrorNotACrash() {
        XCTAssertThrowsError(try SpawnedProcess(executable: "/nonexistent/ffmpeg", arguments: []))
    }

    /// Frames read straight from a pipe in rawvideo layout: each plane where it belongs, an end between frames
    /// is the end, an end inside one an error.
    func testRawFramesFillEachPlaneFromThePipe() throws {
        let frames = try RawFrames(pixelFormat: AV_PIX_FMT_YUV420P.rawValue, width: 6, height: 4)
        XCTAssertEqual(frames.layout.frameBytes, 6 * 4 + 2 * (3 * 2))
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let first = (0..<36).map { UInt8($0) }, second = (0..<36).map { UInt8(100 + $0) }
        let bytes = first + second + [7, 7, 7]
        XCTAssertEqual(bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }, bytes.count)
        close(ends[1])
        for expected in [first, second] {
            var frame: UnsafeMutablePointer<AVFrame>? = try XCTUnwrap(frames.read(from: ends[0]))
            let picture = try XCTUnwrap(frame)
            XCTAssertEqual([picture.pointee.linesize.0, picture.pointee.linesize.1, picture.pointee.linesize.2], [6, 3, 3])
            XCTAssertEqual(Array(UnsafeBufferPointer(start: picture.pointee.data.0, count: 24)), Array(expected[0..<24]))
            XCTAssertEqual(Array(UnsafeBufferPointer(start: picture.pointee.data.1, count: 6)), Array(expected[24..<30]))
            XCTAssertEqual(Array(UnsafeBufferPointer(start: picture.pointee.data.2, count: 6)), Array(expected[30..<36]))
            av_frame_free(&frame)
        }
        XCTAssertThrowsError(try frames.read(from: ends[0]), "3 bytes of a 36-byte frame")
    }

    /// keeptrack-media starts without libavfilter (about 70 more shared libraries); a graph opens it.
    func testLibavfilterIsOpenedOnlyWhenAGraphIsMade() throws {
        let media = URL(fileURLWithPath: try RemuxProcessTests.binary()).deletingLastPathComponent().appendingPathComponent("keeptrack-media").path
        let dynamic = try XCTUnwrap(runTool("readelf", ["-d", media]), "readelf reads \(media)")
        XCTAssertTrue(dynamic.out.contains("[libavcodec.so."), "the check reads the executable's NEEDED entries")
        XCTAssertFalse(dynamic.out.contains("libavfilter"), "keeptrack-media links libavfilter")
        let graph = try FilterGraph("scale=4:2", width: 8, height: 4, pixelFormat: AV_PIX_FMT_YUV420P.rawValue, timeBase: 30)
        XCTAssertEqual(graph.description, "scale=4:2")
        XCTAssertNotNil(dlopen("libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)", RTLD_NOW | RTLD_NOLOAD), "the graph loaded libavfilter")
    }

    func testEncodersRunWithoutHugePages() throws {
        let settings = VideoEncoder.Settings(codec: .h264, width: 64, height: 64, pixelFormat: AV_PIX_FMT_YUV420P.rawValue, timeBase: 30,
                                             frameRate: .init(numerator: 30, denominator: 1), crf: 20, preset: "ultrafast", colour: nil)
        _ = try VideoEncoder(settings)
        XCTAssertEqual(cffmpeg_huge_pages_disabled(), 1, "prctl(PR_GET_THP_DISABLE) after an encoder opened")
    }
}
