import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackCodec

/// What proves a trim exact, checked with independent clients (ffmpeg, ffprobe) against the source:
/// presented durations, every presented video frame's pixels, the enabled AAC track's PCM sample for
/// sample, every kept sample's bytes, lint, levels, and that the source is untouched.
enum TrimProof {
    /// Decoded frames (framemd5 hashes, in presentation order) of `path`'s first video stream, from
    /// `start` for `duration` seconds with ffmpeg's accurate seeking (nil: the whole stream).
    static func frameHashes(_ path: String, start: Double? = nil, duration: Double? = nil, frameDuration: Double = 0) throws -> [String] {
        var arguments = ["-v", "error"]
        if let start {
            // A quarter frame early, so float rounding never drops the frame that starts exactly at `start`.
            arguments += ["-ss", String(format: "%.6f", max(0, start - frameDuration / 4))]
        }
        arguments += ["-i", path]
        if let duration { arguments += ["-t", String(format: "%.6f", duration)] }
        arguments += ["-map", "0:v:0", "-f", "framemd5", "-"]
        guard let result = runTool("ffmpeg", arguments) else { throw unavailable("ffmpeg is not installed") }
        XCTAssertEqual(result.code, 0, "ffmpeg framemd5 of \(path)")
        return result.out.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Interleaved float PCM of the first audio stream ffmpeg decodes, edit list applied as ffmpeg applies it.
    static func pcm(_ path: String, stream: String = "0:a:0") throws -> [Float] {
        guard let data = runToolData("ffmpeg", ["-v", "error", "-i", path, "-map", stream, "-f", "f32le", "-"]) else {
            throw unavailable("ffmpeg is not installed (or cannot decode \(path))")
        }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func sampleBytes(_ movie: Movie, track id: UInt32) throws -> [[UInt8]] {
        let track = try XCTUnwrap(movie.track(id: id))
        return try track.sampleTable.samples.map { try movie.source.read(at: $0.offset, count: Int($0.size)) }
    }

    /// Every check of the issue's proof list; `frameDuration` of the reference video, `audioRate` of the enabled AAC track.
    static func check(source: String, output: String, plan: Trim.Plan, requested: (start: Double, end: Double),
                      frameDuration: Double, audioRate: Double = 48000, exactVideo: Bool = true,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let label = "\((source as NSString).lastPathComponent) [\(requested.start), \(requested.end))"
        // Durations: what ffprobe presents equals the request within one video frame and one audio sample.
        let probe = try FFprobe.probe(output, packets: false)
        let presented = try XCTUnwrap(probe.duration, "ffprobe format duration of \(label)", file: file, line: line)
        let slack = frameDuration + 1 / audioRate + 1e-6
        XCTAssertEqual(presented, requested.end - requested.start, accuracy: slack, "presented duration of \(label)", file: file, line: line)
        XCTAssertEqual(presented, plan.duration, accuracy: 1 / audioRate + 1e-6, "ffprobe duration is the planned one (\(label))", file: file, line: line)
        let sourceMovie = try Movie.open(path: source)
        let movie = try Movie.open(path: output)
        if let video = probe.streams.first(where: { $0.codecType == "video" }), let seconds = video.duration {
            XCTAssertEqual(seconds, plan.duration, accuracy: 1e-6, "video stream duration (\(label))", file: file, line: line)
        }

        // Video pixels: every presented frame (the first and the last included) equals the source's at that time.
        if movie.tracks.contains(where: { $0.kind == .video }) {
            let expected = try frameHashes(source, start: plan.startSeconds, duration: plan.duration, frameDuration: frameDuration)
            let written = try frameHashes(output)
            XCTAssertEqual(written.count, Int((plan.duration / frameDuration).rounded()), "presented frames (\(label))", file: file, line: line)
            if exactVideo {
                XCTAssertEqual(written, expected, "decoded frames of \(label) equal the source's from \(plan.startSeconds) s", file: file, line: line)
            }
            XCTAssertEqual(written.first, expected.first, "first presented frame (\(label))", file: file, line: line)
            XCTAssertEqual(written.last, expected.last, "last presented frame (\(label))", file: file, line: line)
        }

        // The enabled AAC track's PCM over the range, sample for sample.
        if let aac = sourceMovie.tracks.first(where: { $0.kind == .audio && $0.isEnabled && $0.format == "mp4a" }) {
            let index = try XCTUnwrap(sourceMovie.tracks.filter { $0.kind == .audio }.firstIndex { $0.id == aac.id })
            let channels = try XCTUnwrap(probe.streams.first { $0.trackID == aac.id }?.channels)
            let sourcePCM = try pcm(source, stream: "0:a:\(index)")
            let outputPCM = try pcm(output, stream: "0:a:\(index)")
            let first = Int((plan.startSeconds * audioRate).rounded()) * channels
            let count = min(Int((plan.duration * audioRate).rounded()) * channels, sourcePCM.count - first)
            XCTAssertGreaterThan(count, 0, label, file: file, line: line)
            XCTAssertGreaterThanOrEqual(outputPCM.count, count, "decoded output audio covers the range (\(label))", file: file, line: line)
            if outputPCM.count >= count, count > 0 {
                let mismatch = (0..<count).first { sourcePCM[first + $0].bitPattern != outputPCM[$0].bitPattern }
                XCTAssertNil(mismatch, "AAC PCM of \(label) differs from the source's at sample \(mismatch.map { $0 / channels } ?? 0)", file: file, line: line)
                XCTAssertTrue(outputPCM[..<count].contains { $0 != 0 }, "the compared audio is not silence (\(label))", file: file, line: line)
            }
        }

        // Every kept sample byte-identical, every track kept with its flags, group and references.
        XCTAssertEqual(movie.tracks.map(\.id), sourceMovie.tracks.map(\.id), label, file: file, line: line)
        for cut in plan.tracks {
            let original = try XCTUnwrap(sourceMovie.track(id: cut.trackID))
            let written = try XCTUnwrap(movie.track(id: cut.trackID))
            XCTAssertEqual(written.isEnabled, original.isEnabled, file: file, line: line)
            XCTAssertEqual(written.alternateGroup, original.alternateGroup, file: file, line: line)
            XCTAssertEqual(written.references.map(\.type), original.references.map(\.type), file: file, line: line)
            XCTAssertEqual(written.references.map(\.trackIDs), original.references.map(\.trackIDs), file: file, line: line)
            XCTAssertEqual(written.sampleEntries.map { try? $0.serialized() }, original.sampleEntries.map { try? $0.serialized() },
                           "track \(cut.trackID): sample entries byte for byte (\(label))", file: file, line: line)
            let kept = try sampleBytes(movie, track: cut.trackID)
            let all = try sampleBytes(sourceMovie, track: cut.trackID)
            XCTAssertEqual(kept.count, cut.samples.count, "track \(cut.trackID) sample count (\(label))", file: file, line: line)
            XCTAssertTrue(kept.elementsEqual(all[cut.samples]), "track \(cut.trackID): kept samples byte-identical (\(label))", file: file, line: line)
            if cut.samples.isEmpty { continue }
            XCTAssertEqual(written.duration ?? 0, Double(cut.edits.reduce(0) { $0 + $1.segmentDuration }) / Double(plan.movieTimescale), accuracy: 1e-9, file: file, line: line)
        }
        let lint = Linter.lint(path: output)
        XCTAssertNil(lint.error, label, file: file, line: line)
        XCTAssertEqual(lint.findings.map(\.rule.id), [], "lint of \(label)", file: file, line: line)
    }

    /// `keeptrack levels` of the output equals levels of the same range of the source. keeptrack has no
    /// range option for levels, so the source range is cut by ffmpeg (accurate seek) into float PCM.
    static func checkLevels(source: String, output: String, plan: Trim.Plan, in folder: TemporaryFolder,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let reference = folder.path("range-\(plan.start).mov")
        guard let result = runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-ss", String(format: "%.6f", plan.startSeconds),
                                              "-t", String(format: "%.6f", plan.duration), "-map", "0:a:0", "-c:a", "pcm_f32le", reference]),
              result.code == 0 else { throw unavailable("ffmpeg cannot cut the reference range") }
        let trimmed = try XCTUnwrap(LevelsAnalyzer.measure(path: output).enabledMix, file: file, line: line)
        let range = try XCTUnwrap(LevelsAnalyzer.measure(path: reference).enabledMix, file: file, line: line)
        XCTAssertEqual(trimmed.frames, range.frames, "levels frames", file: file, line: line)
        XCTAssertEqual(trimmed.rmsDBFS, range.rmsDBFS, accuracy: 0.01, "levels RMS", file: file, line: line)
        XCTAssertEqual(trimmed.peakDBFS, range.peakDBFS, accuracy: 0.01, "levels peak", file: file, line: line)
    }
}
