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
        try ToolAnswers.shared.answer(about: path, ["framemd5", "\(start ?? -1)", "\(duration ?? -1)", "\(frameDuration)"]) {
            try askFrameHashes(path, start: start, duration: duration, frameDuration: frameDuration)
        }
    }

    private static func askFrameHashes(_ path: String, start: Double?, duration: Double?, frameDuration: Double) throws -> [String] {
        var arguments = ["-v", "error"]
        if let start {
            // A quarter frame early, so float rounding never drops the frame that starts exactly at `start`.
            arguments += ["-ss", String(format: "%.6f", max(0, start - frameDuration / 4))]
        }
        arguments += ["-i", path]
        if let duration { arguments += ["-t", String(format: "%.6f", duration)] }
        // Every decoded frame once, as timed in the file (no frame-rate conversion of variable-rate video).
        arguments += ["-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", "-"]
        guard let result = runTool("ffmpeg", arguments) else { throw unavailable("ffmpeg is not installed") }
        XCTAssertEqual(result.code, 0, "ffmpeg framemd5 of \(path)")
        return result.out.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Interleaved float PCM of the first audio stream ffmpeg decodes, edit list applied as ffmpeg applies it.
    static func pcm(_ path: String, stream: String = "0:a:0") throws -> [Float] {
        try ToolAnswers.shared.answer(about: path, ["pcm", stream]) { try askPCM(path, stream: stream) }
    }

    private static func askPCM(_ path: String, stream: String) throws -> [Float] {
        guard let data = runToolData("ffmpeg", ["-v", "error", "-i", path, "-map", stream, "-f", "f32le", "-"]) else {
            throw unavailable("ffmpeg is not installed (or cannot decode \(path))")
        }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// ffprobe's start time of a stream (seconds; an empty edit before a track shows here).
    static func startTime(_ path: String, stream: String) throws -> Double {
        try ToolAnswers.shared.answer(about: path, ["start_time", stream]) {
            guard let result = runTool("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=start_time", "-of", "csv=p=0", path]) else {
                throw unavailable("ffprobe is not installed")
            }
            return Double(result.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
    }

    /// PCM ffmpeg decodes from packet `index` (0-based) of the source's audio stream on, with a fresh
    /// decoder: the stream copied alone by ffmpeg, then seeked to that packet (every AAC packet is a sync sample).
    static func pcm(fromPacket index: Int, of source: String, stream: String, rate: Double) throws -> [Float] {
        let folder = TemporaryFolder()
        let alone = folder.path("audio.mov")
        guard let copy = runTool("ffmpeg", ["-v", "error", "-i", source, "-map", "0:" + stream, "-c", "copy", alone]), copy.code == 0,
              let packets = runTool("ffprobe", ["-v", "error", "-show_entries", "packet=pts_time", "-of", "csv=p=0", alone]) else {
            throw unavailable("ffmpeg cannot copy the audio of \(source)")
        }
        // One line per packet; a packet with side data (the first: skip samples) has more fields after its time.
        let times = packets.out.split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        guard index < times.count else { return [] }
        guard let data = runToolData("ffmpeg", ["-v", "error", "-noaccurate_seek", "-ss", String(format: "%.7f", times[index] + 0.25 / rate),
                                                "-i", alone, "-f", "f32le", "-"]) else { return [] }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func sampleBytes(_ movie: Movie, track id: UInt32) throws -> [[UInt8]] {
        let track = try XCTUnwrap(movie.track(id: id))
        return try track.sampleTable.samples.map { try movie.source.read(at: $0.offset, count: Int($0.size)) }
    }

    /// Every check of the issue's proof list; `frameDuration` of the reference video, `audioRate` of the enabled AAC track.
    static func check(source: String, output: String, plan: Trim.Plan, requested: (start: Double, end: Double),
                      frameDuration: Double, constantFrameRate: Bool = true, aacDependsOnHistory: Bool = false,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let label = "\((source as NSString).lastPathComponent) [\(requested.start), \(requested.end))"
        // Durations: what ffprobe presents equals the request within one video frame and one audio sample.
        let probe = try FFprobe.probe(output, packets: false)
        let presented = try XCTUnwrap(probe.duration, "ffprobe format duration of \(label)", file: file, line: line)
        let sourceMovie = try Movie.open(path: source)
        let aac = sourceMovie.tracks.first { $0.kind == .audio && $0.isEnabled && $0.format == "mp4a" }
        let audioRate = Double(aac?.mediaHeader.timescale ?? 48000)
        let slack = frameDuration + 1 / audioRate + 1e-6
        XCTAssertEqual(presented, requested.end - requested.start, accuracy: slack, "presented duration of \(label)", file: file, line: line)
        XCTAssertEqual(presented, plan.duration, accuracy: 1 / audioRate + 1e-6, "ffprobe duration is the planned one (\(label))", file: file, line: line)
        let movie = try Movie.open(path: output)
        if let video = probe.streams.first(where: { $0.codecType == "video" }), let seconds = video.duration {
            XCTAssertEqual(seconds, plan.duration, accuracy: 1e-6, "video stream duration (\(label))", file: file, line: line)
        }

        // Video pixels: every presented frame (the first and the last included) equals the source's at that time.
        if movie.tracks.contains(where: { $0.kind == .video }) {
            let expected = try frameHashes(source, start: plan.startSeconds, duration: plan.duration, frameDuration: frameDuration)
            let written = try frameHashes(output)
            XCTAssertFalse(expected.isEmpty, label, file: file, line: line)
            if constantFrameRate {
                XCTAssertEqual(written.count, Int((plan.duration / frameDuration).rounded()), "presented frames (\(label))", file: file, line: line)
            }
            XCTAssertEqual(written, expected, "decoded frames of \(label) equal the source's from \(plan.startSeconds) s", file: file, line: line)
            XCTAssertEqual(written.first, expected.first, "first presented frame (\(label))", file: file, line: line)
            XCTAssertEqual(written.last, expected.last, "last presented frame (\(label))", file: file, line: line)
        }

        // The enabled AAC track's PCM over the range, sample for sample.
        if let aac {
            let index = try XCTUnwrap(sourceMovie.tracks.filter { $0.kind == .audio }.firstIndex { $0.id == aac.id })
            let stream = "a:\(index)"
            let written = try XCTUnwrap(probe.streams.first { $0.trackID == aac.id }, file: file, line: line)
            let channels = try XCTUnwrap(written.channels)
            let sourcePCM = try pcm(source, stream: "0:" + stream)
            let outputPCM = try pcm(output, stream: "0:" + stream)
            // ffmpeg's PCM starts where each file's audio starts (after an empty edit): map both to the movie timeline.
            let outputStart = try startTime(output, stream: stream)
            let sourceStart = try startTime(source, stream: stream)
            let first = Int(((plan.startSeconds + outputStart - sourceStart) * audioRate).rounded()) * channels
            let presented = Int(((written.duration ?? 0) * audioRate).rounded()) * channels
            let count = min(presented, sourcePCM.count - first)
            XCTAssertGreaterThan(count, 0, label, file: file, line: line)
            XCTAssertGreaterThanOrEqual(outputPCM.count, count, "decoded output audio covers the range (\(label))", file: file, line: line)
            XCTAssertEqual(Double(count / channels) / audioRate, min(plan.duration - outputStart, (written.duration ?? 0)), accuracy: 1 / audioRate + 1e-6, label, file: file, line: line)
            if aacDependsOnHistory, let cut = plan.tracks.first(where: { $0.trackID == aac.id }), let edit = cut.edits.last {
                // AAC whose decoded output depends on more than one packet of history (perceptual noise
                // substitution draws from the decoder's random generator): no cut decodes like the whole
                // file. The piece must then decode exactly as ffmpeg decodes the source from the same packet.
                let fromSamePacket = try pcm(fromPacket: cut.samples.lowerBound, of: source, stream: stream, rate: audioRate)
                let offset = Int(edit.mediaTime) * channels
                XCTAssertGreaterThanOrEqual(fromSamePacket.count, offset + count, label, file: file, line: line)
                let mismatch = (0..<min(count, fromSamePacket.count - offset)).first { fromSamePacket[offset + $0].bitPattern != outputPCM[$0].bitPattern }
                XCTAssertNil(mismatch, "AAC PCM of \(label) differs from ffmpeg's decode of the source from packet \(cut.samples.lowerBound + 1) at sample \(mismatch.map { $0 / channels } ?? 0)", file: file, line: line)
            } else if outputPCM.count >= count, count > 0, first >= 0 {
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
