import Foundation
import XCTest
@testable import KeepTrack

/// reframe on the movies of other projects' test data (`wild/`) that have a video track, judged by ffprobe:
/// exit 0 with every frame the source shows, at the same time, and every other track's packets as they were;
/// or a refusal with the reason (65). This found two silent losses: movies without an edit list lost their
/// last frames and moved their picture earlier than their sound, and a fragmented movie's 0-length edit
/// ("to the end of the fragments") came out as an output that shows no frame (ReframeTimingTests).
final class WildReframeTests: XCTestCase {
    /// Left out for time (4–6 s each in a release build, many more in a debug one), not for what they hold:
    /// their timing is the ffmpeg default (an edit list), and sample_fragmented_seekable_multiple_sidx.mp4's
    /// 0-length edit is rebuilt small in ReframeTimingTests.
    static let slow: Set<String> = ["androidx-media/sample_fragmented_seekable_multiple_sidx.mp4", "androidx-media/sowt-with-video.mov",
                                    "androidx-media/edit_list_positive_shift.mp4", "gopro-gpmf-parser/max-heromode.mp4"]
    /// Why reframe refuses the others with a video track (65).
    static let refused: [String: String] = [
        "eyevinn-mp4ff/init_with_colr.mp4": "decoded to no frames",  // an init segment: no samples
        "eyevinn-mp4ff/cbcs.mp4": "FFmpeg has no decoder for 'encv'",
        "mozilla-mp4parse-rust/short-cenc.mp4": "FFmpeg has no decoder for 'encv'",
        "mozilla-mp4parse-rust/no_timescale.mp4": "decoding failed",
        "androidx-media/sample_malformed_free_box.mp4": "box size 3 is smaller than its 8-byte header",
    ]

    func testEveryWildMovieWithVideoIsReframedWithEveryFrameOrRefusedWithItsReason() throws {
        let wild = RealFixtures.folder.appendingPathComponent("wild")
        let names = try FileManager.default.subpathsOfDirectory(atPath: try RealFixtures.require(wild.path))
            .filter { name in [".mp4", ".mov", ".MOV", ".3gp"].contains { name.hasSuffix($0) } }.sorted()
        XCTAssertGreaterThan(names.count, 30)
        let folder = TemporaryFolder()
        var reframed: [String] = []
        for name in names where !Self.slow.contains(name) {
            let source = wild.appendingPathComponent(name).path
            if let reason = Self.refused[name] {
                let result = runCLI(["reframe", source, folder.path("refused.mp4"), "--preset", "ultrafast"])
                XCTAssertEqual(result.code, 65, "\(name): \(result.error)")
                XCTAssertTrue(result.error.contains(reason), "\(name): \(result.error)")
                continue
            }
            guard let movie = try? Movie.open(path: source), movie.tracks.contains(where: { $0.kind == TrackKind.video }) else { continue }
            let output = folder.path("\(reframed.count).mp4")
            let result = runCLI(["reframe", source, output, "--preset", "ultrafast"])
            XCTAssertEqual(result.code, 0, "\(name): \(result.error)")
            guard result.code == 0 else { continue }
            reframed.append(name)
            // Every frame at its time, to the millisecond: a fragmented source's first decode time, which a
            // progressive file can only express as an empty edit of whole movie ticks (1 ms here), moves them by less.
            let shown = try ReframeTimingTests.frameTimes(output).compactMap(Double.init)
            let expected = try ReframeTimingTests.frameTimes(source).compactMap(Double.init)
            XCTAssertEqual(shown.count, expected.count, "\(name): frames shown")
            if let worst = zip(shown, expected).map({ abs($0 - $1) }).max() { XCTAssertLessThanOrEqual(worst, 0.001, "\(name): frame times") }
            let before = try FFprobe.probe(source), after = try FFprobe.probe(output)
            for stream in before.streams where stream.codecType != "video" {
                guard let id = stream.trackID, let kept = after.stream(track: id) else {
                    XCTFail("\(name): track \(stream.trackID.map(String.init) ?? "?") (\(stream.codecName)) is missing from the output")
                    continue
                }
                // ffprobe derives a fragmented stream's packet durations and discard flags from the fragments.
                if let difference = movie.isFragmented ? FFprobe.difference(fragmented: stream, kept) : FFprobe.difference(stream, kept) {
                    XCTFail("\(name): \(stream.label) vs \(kept.label): \(difference)")
                }
            }
        }
        print("reframed \(reframed.count) wild movies: \(reframed.joined(separator: ", "))")
        XCTAssertGreaterThanOrEqual(reframed.count, 12)
    }
}
