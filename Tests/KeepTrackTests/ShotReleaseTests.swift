import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackCodec
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
        XCTAssertNil(FFprobe.difference(try videoPackets(folder.path("beside.mp4")), try videoPackets(folder.path("after.mp4"))))
        XCTAssertEqual(try videoPackets(folder.path("beside.mp4")).count, 275)
        try ReframeTests.assertAudioPassedThrough(source: source, output: folder.path("beside.mp4"))
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
        XCTAssertNil(FFprobe.difference(try videoPackets(folder.path("again.mp4")), try videoPackets(folder.path("after.mp4"))))
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
        XCTAssertNil(FFprobe.difference(try videoPackets(folder.path("beside.mov")), try videoPackets(folder.path("after.mov"))))
    }

    /// A run stopped while its path is released only in part (the analysis failed) ends its threads and frees
    /// its frames; nothing waits forever.
    func testAnEncodingRunStoppedHalfwayEndsItsThreads() throws {
        let source = try PersonDetectorTests.footage("stage_cuts_audience.mp4")
        let movie = try Movie.open(path: source)
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        let orientation = DisplayOrientation(rotation: 0, storedWidth: 640, storedHeight: 360)
        var analysis = Reframer.Analysis()
        analysis.timeline = Reframer.timeline(of: video)
        (analysis.shown, _) = Reframer.shownFrames(of: video)
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
