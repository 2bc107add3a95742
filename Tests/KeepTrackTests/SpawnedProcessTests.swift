import CFFmpeg
import Foundation
import XCTest
@testable import KeepTrack
@testable import KeepTrackCodec
@testable import KeepTrackTranscode

/// The pieces `transcode --stereo` runs FFmpeg 9 with (`SpawnedProcess`, `RawFrames`, `StereoPrestart`), and the
/// start-up costs taken out of every keeptrack-media command (libavfilter opened on demand, huge pages off for the
/// encoders).
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

    /// Huge pages are off after an encoder opened exactly where the hypervisor takes free memory back.
    func testEncodersFollowTheHugePagePolicy() throws {
        let settings = VideoEncoder.Settings(codec: .h264, width: 64, height: 64, pixelFormat: AV_PIX_FMT_YUV420P.rawValue, timeBase: 30,
                                             frameRate: .init(numerator: 30, denominator: 1), crf: 20, preset: "ultrafast", colour: nil)
        _ = try VideoEncoder(settings)
        XCTAssertEqual(cffmpeg_huge_pages_disabled(), HugePagePolicy.hostReclaimsFreeMemory ? 1 : 0,
                       "prctl(PR_GET_THP_DISABLE) after an encoder opened")
    }

    /// The sysfs `features` text of virtio devices, bit 0 first: the balloon (device 5) here negotiated bit 5, free
    /// page reporting (copied from this machine's /sys/bus/virtio/devices/virtio0, 2026-12-05).
    func testFreePageReportingIsReadFromTheBalloonsFeatureBits() {
        let reporting = "0110010100000000000000000000000010000000000000000000000000000000"
        let withoutReporting = "0110000100000000000000000000000010000000000000000000000000000000"
        XCTAssertTrue(HugePagePolicy.hostReclaimsFreeMemory(devices: [("0x0002", "0010001001"), ("0x0005\n", reporting + "\n")]))
        XCTAssertFalse(HugePagePolicy.hostReclaimsFreeMemory(devices: [("0x0005", withoutReporting)]), "balloon without reporting")
        XCTAssertFalse(HugePagePolicy.hostReclaimsFreeMemory(devices: [("0x0002", reporting)]), "bit 5 of a block device")
        XCTAssertFalse(HugePagePolicy.hostReclaimsFreeMemory(devices: [("0x0005", "01100")]), "too few bits")
        XCTAssertFalse(HugePagePolicy.hostReclaimsFreeMemory(devices: []), "bare metal")
    }

    /// The pid keeptrack's prestart put in the environment.
    private func prestartedPid() throws -> pid_t {
        let text = try XCTUnwrap(getenv(StereoPrestart.environmentKey).map { String(cString: $0) }, "the prestart said nothing")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return pid_t(try XCTUnwrap(object["pid"] as? Int))
    }

    private func isGone(_ pid: pid_t) -> Bool { kill(pid, 0) == -1 && errno == ESRCH }

    /// keeptrack starts FFmpeg 9 for `transcode --stereo` before handing over; the transcode adopts that very child
    /// (it is reaped by the transcode) and the output is the two views as always.
    func testAPrestartedFFmpeg9IsAdoptedForTheSameCommand() throws {
        _ = try NewerFFmpeg.require()
        let folder = TemporaryFolder()
        let water = try AudioFactsTests.wild(StereoVideoTests.water), output = folder.path("half.mov")
        let arguments = ["transcode", water, output, "--stereo", "sbs", "--half", "--preset", "ultrafast"]
        StereoPrestart.start(for: arguments)
        let pid = try prestartedPid()
        XCTAssertFalse(isGone(pid))
        let before = StereoPrestart.counts
        let run = runCLI(arguments)
        XCTAssertEqual(run.code, 0, run.error)
        XCTAssertEqual(StereoPrestart.counts.adopted, before.adopted + 1)
        XCTAssertEqual(StereoPrestart.counts.stopped, before.stopped)
        XCTAssertNil(getenv(StereoPrestart.environmentKey), "the entry is removed once read")
        XCTAssertTrue(isGone(pid), "the transcode waited for the FFmpeg 9 keeptrack started")
        let stream = try XCTUnwrap(FFprobe.probe(output, packets: true).streams.first { $0.codecType == "video" })
        XCTAssertEqual([stream.width, stream.height], [1934, 2160])
    }

    /// A prestart for another command (here over-under where the transcode asks side by side) is stopped and a
    /// new FFmpeg 9 started: the output is what was asked for.
    func testAPrestartForAnotherCommandIsStoppedAndReplaced() throws {
        _ = try NewerFFmpeg.require()
        let folder = TemporaryFolder()
        let spatial = try AudioFactsTests.wild(StereoVideoTests.spatial), output = folder.path("sbs.mp4")
        StereoPrestart.start(for: ["transcode", spatial, output, "--stereo", "ou"])
        let pid = try prestartedPid()
        let before = StereoPrestart.counts
        let run = runCLI(["transcode", spatial, output, "--stereo", "sbs", "--preset", "ultrafast"])
        XCTAssertEqual(run.code, 0, run.error)
        XCTAssertEqual(StereoPrestart.counts.stopped, before.stopped + 1)
        XCTAssertEqual(StereoPrestart.counts.adopted, before.adopted)
        XCTAssertTrue(isGone(pid), "the over-under FFmpeg 9 was stopped and reaped")
        let stream = try XCTUnwrap(FFprobe.probe(output, packets: false).streams.first { $0.codecType == "video" })
        XCTAssertEqual([stream.width, stream.height], [320, 120], "side by side, as asked")
    }

    /// An environment entry naming a process that is not this one's child (pid 1 here) is ignored, not signalled.
    func testAnEntryForAProcessNotOursIsIgnored() throws {
        setenv(StereoPrestart.environmentKey, #"{"pid":1,"output":3,"errors":4,"command":["ffmpeg"]}"#, 1)
        XCTAssertNil(StereoPrestart.adopt(binary: "ffmpeg", arguments: []))
        XCTAssertNil(getenv(StereoPrestart.environmentKey))
        setenv(StereoPrestart.environmentKey, "not json", 1)
        XCTAssertNil(StereoPrestart.adopt(binary: "ffmpeg", arguments: []))
    }

    /// On a short movie FFmpeg 9 can finish before keeptrack-media has loaded (10 frames of 320x120 fit in its
    /// 1 MiB pipe): the transcode adopts it all the same, reads the frames it left and writes every one.
    func testAPrestartThatAlreadyEndedIsAdoptedWithTheFramesItLeft() throws {
        _ = try NewerFFmpeg.require()
        let folder = TemporaryFolder()
        let spatial = try AudioFactsTests.wild(StereoVideoTests.spatial), output = folder.path("sbs.mp4")
        let arguments = ["transcode", spatial, output, "--stereo", "sbs", "--preset", "ultrafast"]
        StereoPrestart.start(for: arguments)
        let pid = try prestartedPid()
        var waited = 0
        while waited < 1000, !isZombie(pid) { usleep(10_000); waited += 1 }
        XCTAssertTrue(isZombie(pid), "FFmpeg 9 ended before the transcode started")
        let before = StereoPrestart.counts
        let run = runCLI(arguments)
        XCTAssertEqual(run.code, 0, run.error)
        XCTAssertEqual(StereoPrestart.counts.adopted, before.adopted + 1)
        XCTAssertEqual(StereoPrestart.counts.stopped, before.stopped)
        XCTAssertTrue(isGone(pid), "reaped")
        let stream = try XCTUnwrap(FFprobe.probe(output, packets: true).streams.first { $0.codecType == "video" })
        XCTAssertEqual([stream.width, stream.height], [320, 120])
        XCTAssertEqual(stream.packets.count, 10, "every frame FFmpeg 9 left in the pipe")
    }

    /// The exit status of a prestarted child that ended is the one `wait` gives, and its output is still there.
    func testAnEndedPrestartKeepsItsOutputAndExitStatus() throws {
        let arguments = ["-c", "printf frames; exit 3"]
        let child = try SpawnedProcess(executable: "/bin/sh", arguments: arguments, inheritable: true)
        _ = Unmanaged.passRetained(child)  // as keeptrack leaves it: the ends are the adopter's to close
        var waited = 0
        while waited < 200, !isZombie(child.pid) { usleep(10_000); waited += 1 }
        let entry: [String: Any] = ["pid": Int(child.pid), "output": Int(child.output), "errors": Int(child.errors), "command": ["/bin/sh"] + arguments]
        setenv(StereoPrestart.environmentKey, String(decoding: try JSONSerialization.data(withJSONObject: entry), as: UTF8.self), 1)
        let adopted = try XCTUnwrap(StereoPrestart.adopt(binary: "/bin/sh", arguments: arguments))
        XCTAssertTrue(isGone(child.pid), "reaped by adopt")
        adopted.terminate()  // must not signal a pid that was reaped (it could be someone else's by now)
        XCTAssertEqual(adopted.wait(), 3)
        var bytes = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(String(decoding: bytes[0..<max(0, read(adopted.output, &bytes, 16))], as: UTF8.self), "frames")
    }

    /// A prestarted child that already ended, having run another command, is reaped and its pipe ends closed.
    func testAPrestartThatEndedIsReapedAndItsPipesClosed() throws {
        let child = try SpawnedProcess(executable: "/bin/true", arguments: [], inheritable: true)
        _ = Unmanaged.passRetained(child)  // as keeptrack leaves it: the ends are the adopter's to close
        var waited = 0
        while waited < 200, kill(child.pid, 0) == 0, !isZombie(child.pid) { usleep(10_000); waited += 1 }
        setenv(StereoPrestart.environmentKey, #"{"pid":\#(child.pid),"output":\#(child.output),"errors":\#(child.errors),"command":["/bin/true"]}"#, 1)
        let before = StereoPrestart.counts
        XCTAssertNil(StereoPrestart.adopt(binary: "ffmpeg", arguments: []))
        XCTAssertEqual(StereoPrestart.counts.stopped, before.stopped + 1)
        XCTAssertTrue(isGone(child.pid), "reaped")
        XCTAssertEqual(fcntl(child.output, F_GETFD), -1, "the output pipe end is closed")
        XCTAssertEqual(fcntl(child.errors, F_GETFD), -1, "the error pipe end is closed")
    }

    private func isZombie(_ pid: pid_t) -> Bool {
        ((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "").contains(") Z ")
    }

    /// What keeptrack reads from the arguments without transcode's option table: a single stereo input with --stereo.
    func testThePrestartGuessesOnlyWhatItCanTell() throws {
        let folder = TemporaryFolder()
        let spatial = try AudioFactsTests.wild(StereoVideoTests.spatial), flat = folder.path("flat.mp4")
        XCTAssertEqual(runCLI(["fixture", "iphone", flat]).code, 0)
        let command = try XCTUnwrap(StereoPrestart.command(for: ["--preset", "fast", spatial, "out.mp4", "--stereo=ou", "--half"]))
        XCTAssertEqual(command.input, spatial)
        XCTAssertEqual(command.packing, StereoPacking(.ou, half: true))
        XCTAssertEqual(command.pixelFormat, "yuv420p")
        XCTAssertNil(StereoPrestart.command(for: [spatial, "out.mp4"]), "no --stereo")
        XCTAssertNil(StereoPrestart.command(for: [flat, "out.mp4", "--stereo", "sbs"]), "a 2D movie")
        XCTAssertNil(StereoPrestart.command(for: [spatial, "--out-dir", folder.path("out"), "--stereo", "sbs"]), "a folder run")
        XCTAssertNil(StereoPrestart.command(for: [folder.path(""), "out.mp4", "--stereo", "sbs"]), "a folder")
    }
}
