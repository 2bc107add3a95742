import Foundation
import XCTest
@testable import KeepTrack
@testable import KeepTrackCodec

/// Codecs FFmpeg 5.1 decodes are decoded (AMR-NB and TrueHD checked on third-party files against
/// ffmpeg's own decode; AMR-WB is mapped the same way, with no file here to check it on); `levels --json` of a file it cannot read is an error, not `[]`.
final class DecoderChoiceTests: XCTestCase {
    func testAMRAndTrueHDFromOtherMuxersAreMeasuredAsFFmpegDecodesThem() throws {
        for name in ["androidx-media/bbb_mono_8kHz_12.2kbps_amrnb.3gp", "androidx-media/sample_dthd.mp4"] {
            let path = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/" + name).path)
            let levels = try LevelsAnalyzer.measure(path: path)
            let track = try XCTUnwrap(levels.tracks.first, name)
            XCTAssertTrue(["samr", "mlpa"].contains(track.format), "\(name): \(track.format)")
            let measured = try XCTUnwrap(track.levels, "\(name): \(track.note ?? "no levels")")
            let reference = try LevelsTests.ffmpegLevels(path)
            XCTAssertEqual(measured.rmsDBFS, reference.rms, accuracy: 0.1, name)
            XCTAssertEqual(measured.peakDBFS, reference.peak, accuracy: 0.1, name)
            if reference.lufs <= -70 {
                // ebur128 prints its floor, -70, when no block passes the absolute gate (the TrueHD file is near silence).
                XCTAssertLessThanOrEqual(measured.integratedLUFS, -70, name)
            } else {
                XCTAssertEqual(measured.integratedLUFS, reference.lufs, accuracy: 0.2, name)
            }
        }
    }

    /// `mp4a` entries that are not AAC (MP3, Vorbis, DTS by their esds object type) and QuickTime's
    /// `.mp3` entry are decoded, and measure what ffmpeg measures of the same file.
    func testNonAACMP4AudioIsMeasuredAsFFmpegDecodesIt() throws {
        let folder = TemporaryFolder()
        for (codec, name) in [("libmp3lame", "mp3.mp4"), ("libvorbis", "vorbis.mp4"), ("dca", "dts.mp4"), ("libmp3lame", "mp3.mov")] {
            let path = folder.path(name)
            guard let made = runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=1000:duration=2:sample_rate=48000",
                                                "-af", "volume=-12dB", "-ac", "2", "-c:a", codec, "-strict", "-2", path]) else {
                throw unavailable("ffmpeg not installed")
            }
            XCTAssertEqual(made.code, 0, "\(name): \(made.out)")
            let levels = try LevelsAnalyzer.measure(path: path)
            let track = try XCTUnwrap(levels.tracks.first, name)
            let measured = try XCTUnwrap(track.levels, "\(name): \(track.note ?? "no levels")")
            let reference = try LevelsTests.ffmpegLevels(path)
            XCTAssertEqual(measured.rmsDBFS, reference.rms, accuracy: 0.1, name)
            XCTAssertEqual(measured.peakDBFS, reference.peak, accuracy: 0.1, name)
            XCTAssertEqual(measured.integratedLUFS, reference.lufs, accuracy: 0.2, name)
        }
    }

    func testLevelsJSONOfAnUnreadableFileIsAnErrorNotAnEmptyList() throws {
        let folder = TemporaryFolder()
        let path = folder.path("garbage.mp4")
        try Data("this is not a movie at all".utf8).write(to: URL(fileURLWithPath: path))
        let result = runCLI(["levels", "--json", path])
        XCTAssertEqual(result.code, 65)
        XCTAssertEqual(result.out.trimmingCharacters(in: .whitespacesAndNewlines), "", result.out)
        XCTAssertTrue(result.error.contains("garbage.mp4") && result.error.contains("not a QuickTime/MP4 movie"), result.error)
    }
}
