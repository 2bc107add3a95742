import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackCodec
@testable import KeepTrackTranscode
import KeepTrackFixtures
import KeepTrackFraming
@testable import KeepTrackReframePipeline

/// Encoding beside the analysis (`ShotRelease`): the shots before a cut the analysis has passed for good are
/// encoded while it looks at the rest. The output must be the one encoding afterwards writes, packet for
/// packet as ffprobe reads them; a whole plan that disagrees with the part released early must be encoded again.
final class ShotReleaseTests: XCTestCase {
    private var options: ReframeOptions {
        var options = ReframeOptions()
        options.preset = "veryfast"
        return options
    }

    /// Every packet of the video stream (pts, dts, size, flags and sha256 of its bytes), as ffprobe reads it.
    private func videoPackets(_ path: String) throws -> [FFprobe.Packet] {
        let report = try FFprobe.probe(path)
        let video = try XCTUnwrap(report.streams.first { $0.codecType == "video" }, "no video stream in \(path)")
        XCTAssertFalse(video.packets.isEmpty)
        return video.packets
    }

    /// The two videos hold the same pictures at the same times: every packet's pts, dts and key flag equal, and
    /// every decoded frame within 40 dB PSNR of the other's. Not the packets' bytes: libx264 was seen
    /// (2026-12-03, `swift test --filter ShotReleaseTests` three times) to write different bits for
    /// identical frames (same pixels hashed at the encoder's input, same pts and settings, even on one
    /// thread) from one run to the next within one process (a run of 9ed4fff, before the encode stage moved,
    /// did too); a frame cropped or placed wrongly is far below 40 dB.
    private func assertSamePictures(_ a: String, _ b: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (x, y) = (try videoPackets(a), try videoPackets(b))
        XCTAssertEqual(x.map(\.pts), y.map(\.pts), file: file, line: line)
        XCTAssertEqual(x.map(\.dts), y.map(\.dts), file: file, line: line)
        XCTAssertEqual(x.map(\.isKey), y.map(\.isKey), file: file, line: line)
        let folder = TemporaryFolder()
        let stats = folder.path("psnr.log")
        guard let run = runTool("ffmpeg", ["-v", "error", "-nostdin", "-i", a, "-i", b, "-lavfi", "[0:v][1:v]psnr=stats_file=\(stats)", "-f", "null", "-"]),
              run.code == 0 else { throw unavailable("ffmpeg is needed") }
        let values = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").compactMap { row -> Double? in
            guard let field = row.split(separator: " ").first(where: { $0.hasPrefix("psnr_avg:") }) else { return nil }
            let value = field.dropFirst("psnr_avg:".count)
            return value == "inf" ? .infinity : Double(value)
        }
        XCTAssertEqual(values.count, x.count, file: file, line: line)
        XCTAssertGreaterThanOrEqual(values.min() ?? 0, 40, "the least alike frame", file: file, line: line)
    }

    private func seconds(_ summary: ReframeSummary, _ stage: String) -> Double? {
        summary.timings.first { $0.stage == stage }?.seconds
    }

    /// stage_cuts_audience (real footage, cuts at frames 20, 82 and 211): the encoder starts beside the
    /// analysis, and the video is the same, packet for packet, as when it starts after it.
    func testEncodingBesideTheAnalysisWritesTheSameVideoOnFootageWithCuts() throws {
        let source = try PersonDetectorTests.footage("stage_cuts_audience.mp4")
        let folder = TemporaryFolder()
        var after = options
        after.overlapEncoding = false
        let late = try Reframer.run(input: source, output: folder.path("after.mp4"), options: after)
        let early = try Reframer.run(input: source, output: folder.path("beside.mp4"), options: options)
        XCTAssertNil(seconds(late, "encodeBesideAnalysis"))
        let beside = try XCTUnwrap(seconds(early, "encodeBesideAnalysis"), "encoding did not start before the analysis ended")
        XCTAssertGreaterThan(beside, 0)
        XCTAssertEqual(early.path, late.path)
        XCTAssertEqual(early.path?.shots.count, 4)
        XCTAssertFalse(early.notes.contains { $0.contains("encoded again") }, "\(early.notes)")
        try assertSamePictures(folder.path("beside.mp4"), folder.path("after.mp4"))
        XCTAssertEqual(try videoPackets(folder.path("beside.mp4")).count, 275)
        try ReframeTests.assertAudioPassedThrough(source: source, output: folder.path("beside.mp4"))
    }

    /// The analysis skips B-frames, releases the shots before a cut, and only then finds its frames sparser than
    /// the spacing it assumed (1 here: the clip's first two shots are noise, which x264 codes as P-frames only,
    /// and its third is still, which it codes as IBBBP): it starts again on the referenced frames without
    /// releasing more, and the video is the one a run that never skipped B-frames writes, packet for packet.
    func testAnalysisStartedAgainAfterAnEarlyReleaseWritesTheSameVideo() throws {
        let folder = TemporaryFolder()
        let source = folder.path("late-b-frames.mp4")
        let noise = { (range: String) in "nullsrc=s=640x360:r=30:d=1,geq=lum='\(range)':cb=128:cr=128" }
        guard let made = runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", noise("random(1)*100"), "-f", "lavfi", "-i", noise("150+random(1)*100"),
                                            "-f", "lavfi", "-i", "color=c=0x406080:s=640x360:r=30:d=1.5,drawbox=x=200:y=100:w=120:h=160:color=white:t=fill",
                                            "-filter_complex", "[0:v][1:v][2:v]concat=n=3:v=1[v]", "-map", "[v]",
                                            "-c:v", "libx264", "-preset", "medium", "-pix_fmt", "yuv420p", source]), made.code == 0,
              let probed = runTool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pict_type", "-of", "csv=p=0", source]) else {
            throw unavailable("ffmpeg with libx264 and ffprobe are needed")
        }
        let types = probed.out.split(separator: "\n").compactMap { $0.split(separator: ",").first }.joined()
        XCTAssertFalse(types.prefix(60).contains("B"), "the noise is coded without B-frames: \(types)")
        XCTAssertTrue(types.dropFirst(60).contains("B"), "the still shot has B-frames: \(types)")
        var twice = options
        twice.retainedFramesBudget = 0  // decoded twice, as a large picture is
        var never = twice
        never.bFrameSkippingSpacing = 0
        let reference = try Reframer.run(input: source, output: folder.path("never.mp4"), options: never)
        var assumed = twice
        assumed.assumedAnchorSpacing = 1
        let restarted = try Reframer.run(input: source, output: folder.path("restarted.mp4"), options: assumed)
        XCTAssertNotNil(seconds(restarted, "encodeBesideAnalysis"), "nothing was released before the analysis started again")
        XCTAssertEqual(restarted.decodedForAnalysis, reference.decodedForAnalysis, "the referenced frames, analysed again")
        XCTAssertEqual(restarted.path, reference.path)
        try assertSamePictures(folder.path("restarted.mp4"), folder.path("never.mp4"))
    }

    /// A whole plan that differs from what was released early (the released part moved 2 px, for the test):
    /// what was encoded beside the analysis is thrown away and the video encoded again from the source, as
    /// encoding afterwards writes it; the note says so, and no data file is left behind.
    func testAWholePlanThatDisagreesIsEncodedAgain() throws {
        let source = try PersonDetectorTests.footage("stage_cuts_audience.mp4")
        let folder = TemporaryFolder()
        var after = options
        after.overlapEncoding = false
        _ = try Reframer.run(input: source, output: folder.path("after.mp4"), options: after)
        var shifted = options
        shifted.releasedPathShift = 2
        let again = try Reframer.run(input: source, output: folder.path("again.mp4"), options: shifted)
        XCTAssertTrue(again.notes.contains { $0.contains("differs on frame 1 from the part released early") && $0.contains("encoded again") },
                      "\(again.notes)")
        try assertSamePictures(folder.path("again.mp4"), folder.path("after.mp4"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted(), ["after.mp4", "again.mp4"])
    }

    /// A cut on a frame the analysis skipped (only I and P frames analysed, decoded twice): the encoder,
    /// started beside the analysis, settles it as it does afterwards, and writes the same video.
    func testACutBetweenAnalysedFramesIsSettledTheSameWhenEncodingBesideTheAnalysis() throws {
        let folder = TemporaryFolder()
        // Long enough after the cut for the analysis to pass it for good well before the end.
        let scene = ReframeTests.cutOnFrame61(framesAfter: 89)
        let source = try writeScene(scene, in: folder, x264Parameters: "bframes=3:b-adapt=0:b-pyramid=none:scenecut=0")
        var twice = options
        twice.retainedFramesBudget = 0
        var after = twice
        after.overlapEncoding = false
        let late = try Reframer.run(input: source, output: folder.path("after.mov"), options: after)
        let early = try Reframer.run(input: source, output: folder.path("beside.mov"), options: twice)
        XCTAssertNotNil(seconds(early, "encodeBesideAnalysis"), "encoding did not start before the analysis ended")
        XCTAssertLessThan(early.decodedForAnalysis, 150, "only the I and P frames were decoded to analyse")
        XCTAssertEqual(early.path?.shots.map(\.lowerBound), [0, 61], "the cut moved back to the skipped frame where it is")
        XCTAssertEqual(early.path, late.path)
        try assertSamePictures(folder.path("beside.mov"), folder.path("after.mov"))
    }

    /// A run stopped while its path is released only in part (the analysis failed) ends its threads and frees
    /// its frames; nothing waits forever.
    func testAnEncodingRunStoppedHalfwayEndsItsThreads() throws {
        let source = try PersonDetectorTests.footage("stage_cuts_audience.mp4")
        let movie = try Movie.open(path: source)
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        let orientation = DisplayOrientation(rotation: 0, storedWidth: 640, storedHeight: 360)
        var analysis = Reframer.Analysis()
        analysis.timeline = PresentedVideo.timeline(of: video)
        (analysis.shown, _) = PresentedVideo.shownFrames(of: video)
        let crop = PixelSize(width: 202, height: 360)
        let cropper = try FrameCropper(orientation: orientation, crop: crop, output: crop, sourceFormat: 0, outputFormat: 0)
        let settings = VideoEncoder.Settings(codec: .h264, width: 202, height: 360, pixelFormat: 0, timeBase: 30000,
                                             frameRate: .init(numerator: 30, denominator: 1), crf: 23, preset: "ultrafast", colour: nil)
        let encoder = try VideoEncoder(settings)
        let folder = TemporaryFolder()
        let destination = try OutputFile(destination: folder.path("data"), overwrite: true)
        let paths = ReleasedPath()
        // The first 30 frames' path only: the producer crops them, then waits for more.
        paths.release(CropPath(axis: .horizontal, sourceWidth: 640, sourceHeight: 360, cropWidth: 202, cropHeight: 360,
                               offsets: Array(repeating: 100, count: 30), shots: [0..<30]),
                      uncertainCuts: [], whole: false)
        let run = EncodingRun(movie: movie, video: video, analysis: analysis, paths: paths, cropper: cropper, encoder: encoder,
                              into: destination, retained: nil)
        let deadline = Date().addingTimeInterval(30)
        while run.framesEncoded < 30, Date() < deadline { usleep(10_000) }
        XCTAssertEqual(run.framesEncoded, 30, "the frames of the path released went to the encoder")
        usleep(50_000)
        XCTAssertEqual(run.framesEncoded, 30, "and no frame beyond them")
        let stopped = expectation(description: "cancel returns")
        DispatchQueue.global().async {
            run.cancel()
            stopped.fulfill()
        }
        wait(for: [stopped], timeout: 30)
        destination.discard()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path), [])
    }
}
