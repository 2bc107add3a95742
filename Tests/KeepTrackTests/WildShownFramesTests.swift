import Foundation
import XCTest
@testable import KeepTrack

/// remux of every wild movie with video, judged by what FFmpeg decodes and shows (Shown in
/// ProbeSupport.swift), not by packet lists: every picture at its time with the same pixels, every
/// audio track's samples from the same start with the same PCM. This closes the blind spot of
/// `FFprobe.difference(fragmented:)`, which leaves out discard flags and durations: a progressive
/// copy whose edit list showed fewer frames, or showed them at other times, passed there.
final class WildShownFramesTests: XCTestCase {
    /// Where FFmpeg's account of the source is not what the file says, so the copy (which follows
    /// the file) differs in FFmpeg's eyes; each must still reproduce.
    static let ffmpegMisreads: [String: String] = [
        // The mvhd's type is damaged: without a movie time scale FFmpeg ignores the edit list (media
        // time 166 of 2500) and shows the source's frames 66.4 ms late; the copy has an mvhd, so
        // FFmpeg applies the edit there.
        "mozilla-mp4parse-rust/no_timescale.mp4": "frame 0 of",
    ]

    func testRemuxShowsEveryFrameAndSampleOfEveryWildMovieWithVideo() throws {
        let folder = try RealFixtures.require(WildCorpusTests.folder.path)
        let scratch = TemporaryFolder()
        var checked: [String] = []
        var misread: Set<String> = []
        for name in try WildCorpusTests.files(in: folder) {
            let source = folder + "/" + name
            guard let movie = try? Movie.open(path: source), movie.tracks.contains(where: { $0.kind == .video }) else { continue }
            let output = scratch.path("\(checked.count).\(["mov", "qt"].contains((name as NSString).pathExtension.lowercased()) ? "mov" : "mp4")")
            let result = runCLI(["remux", source, output])
            // Encrypted video is refused (WildCorpusTests checks the message); everything else is written.
            if movie.tracks.contains(where: { $0.protection != nil && $0.kind == .video }) && movie.isFragmented {
                XCTAssertEqual(result.code, 65, "\(name): \(result.error)")
                continue
            }
            XCTAssertEqual(result.code, 0, "\(name): \(result.error)")
            guard result.code == 0 else { continue }
            checked.append(name)
            let differences = try Self.differences(source: source, output: output)
            if let expected = Self.ffmpegMisreads[name] {
                XCTAssertTrue(differences.contains { $0.contains(expected) },
                              "\(name): FFmpeg no longer misreads the source (\(differences)): remove it from ffmpegMisreads")
                misread.insert(name)
                continue
            }
            for difference in differences { XCTFail("\(name) remux: \(difference)") }
        }
        XCTAssertEqual(misread, Set(Self.ffmpegMisreads.keys), "every listed misreading is checked")
        print("shown frames compared for \(checked.count) wild movies")
        XCTAssertGreaterThanOrEqual(checked.count, 20)
    }

    /// remux of each of `files` (in `folder`) shown by FFmpeg as its source is; `known`: files whose
    /// source FFmpeg shows otherwise than the file says (why), where a difference must remain.
    static func checkRemux(folder: TemporaryFolder, files: [String], known: [String: String],
                           file: StaticString = #filePath, line: UInt = #line) {
        for name in files.sorted() {
            let output = folder.path("shown-\(name).\(name.hasSuffix(".mov") ? "mov" : "mp4")")
            let result = runCLI(["remux", folder.path(name), output])
            XCTAssertEqual(result.code, 0, "\(name): \(result.error)", file: file, line: line)
            do {
                let differences = try differences(source: folder.path(name), output: output)
                if let why = known[name] {
                    XCTAssertFalse(differences.isEmpty, "\(name): FFmpeg now shows the source as the file says (\(why)): remove it", file: file, line: line)
                } else {
                    XCTAssertEqual(differences, [], "\(name): remux shown by FFmpeg", file: file, line: line)
                }
            } catch {
                XCTFail("\(name): \(error)", file: file, line: line)
            }
        }
    }

    /// What `output` shows differently from `source`, stream by stream (matched by track id): every
    /// video stream and every audio stream FFmpeg decodes, within 1 ms or one tick of the stream.
    static func differences(source: String, output: String, tracks: Set<UInt32>? = nil) throws -> [String] {
        let before = try FFprobe.probe(source, packets: false), after = try FFprobe.probe(output, packets: false)
        var found: [String] = []
        for stream in before.streams where ["video", "audio"].contains(stream.codecType) && stream.codecName != "none" {
            guard let id = stream.trackID, tracks?.contains(id) ?? true else { continue }
            // FFmpeg 5.1 reads ipcm/fpcm with the sample entry's sample size, so what it decodes follows the chunks (ProbeSupport).
            if ["ipcm", "fpcm"].contains(stream.codecTag) { continue }
            guard let copy = after.stream(track: id) else { found.append("track \(id) is not in the output"); continue }
            let parts = stream.timeBase.split(separator: "/").compactMap { Double($0) }
            let tick = parts.count == 2 && parts[1] > 0 ? parts[0] / parts[1] : 0
            let tolerance = max(0.001, tick) + 1e-9
            let audio = stream.codecType == "audio"
            // A stream FFmpeg cannot decode in the source (an init segment's: no samples) must fail alike in the copy.
            guard let shown = try? Shown.frames(source, stream: stream.index, audio: audio) else {
                if (try? Shown.frames(output, stream: copy.index, audio: audio)) != nil { found.append("track \(id): FFmpeg decodes the copy, not the source") }
                continue
            }
            let copied = try Shown.frames(output, stream: copy.index, audio: audio)
            let difference = audio ? Shown.difference(audio: shown, copied, tolerance: tolerance) : Shown.difference(video: shown, copied, tolerance: tolerance)
            if let difference {
                found.append("track \(id) (\(stream.codecName)): \(difference)")
            } else if audio, try Shown.pcmHash(source, stream: stream.index) != Shown.pcmHash(output, stream: copy.index) {
                found.append("track \(id) (\(stream.codecName)): decoded PCM differs")
            }
        }
        return found
    }
}
