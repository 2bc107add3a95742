import Foundation
import KeepTrack

/// `keeptrack join IN1 IN2 [IN3 ...] OUT` (or `--list FILE OUT`): clips end to end, losslessly, every track kept.
enum JoinCommand {
    static let spec = CommandSpec(
        name: "join",
        summary: "Put clips end to end losslessly, keeping every track (spatial audio, timed metadata, text), flag, group and reference.",
        arguments: "IN1 IN2 [IN3 ...] OUT",
        minimumPositionals: 1,
        options: [
            .value(.list, "FILE", "Read the clips from FILE, one path a line (relative to FILE's folder); then only OUT is given."),
            .flag(.chapters, "Add a QuickTime chapter track: one chapter per clip, named after its file."),
            .value(.metadataFrom, "N", "Keep the movie metadata of clip N (1-based; default 1).", range: 1...100_000),
            .flag(.force, "Replace OUT if it exists."),
            .flag(.json, "Print the join as JSON (clip starts, per-track samples, descriptions and edits)."),
        ],
        discussion: """
        Tracks are matched by what they are, never by position or ID: video with video, audio by format
        and channels (the stereo AAC fallback with the stereo fallback, APAC with APAC), mebx timed
        metadata by its key set, text by handler. Each clip contributes exactly what it presents (its
        edit list applied): the joined track gets one edit per clip where priming, pre-roll or a
        composition offset needs skipping, on a movie clock (the least common multiple of every time
        scale) in which every edit is exact. Identical sample descriptions are shared; ones that differ
        but play in one decoder (parameter sets, colr) become several stsd entries. Flags, alternate
        groups and references are the first clip's, movie metadata the first clip's (or --metadata-from
        N's). Every sample's bytes are copied as they are (copy_file_range), the output is written
        atomically and read back before it gets its name. Inputs are never modified.
        Exit status: 0 written, 64 usage, 65 clips that cannot be joined (the message names the clip,
        the track and the difference: another codec, picture size, orientation matrix, channel layout,
        a missing or extra track, mismatched flags, group or references) or malformed input, 66 a clip
        missing, 73 OUT exists (without --force) or cannot be created, 74 I/O. Nothing is written on
        any refusal.
        """
    ) { invocation, console in
        var inputs = invocation.positionals
        guard let output = inputs.popLast() else { throw KeepTrackCLIError.usage("join needs the clips and OUT") }
        if let list = invocation.value(.list) {
            guard inputs.isEmpty else { throw KeepTrackCLIError.usage("give the clips either as arguments or with --list, not both") }
            inputs = try readList(list)
        }
        guard inputs.count >= 2 else { throw KeepTrackCLIError.usage("join needs at least two clips and OUT") }
        var options = Join.Options()
        options.chapters = invocation.flag(.chapters)
        options.metadataFrom = (invocation.value(.metadataFrom) ?? 1) - 1
        var outputOptions = MovieOutput.Options()
        outputOptions.overwrite = invocation.flag(.force)
        let written = try Join.write(inputs: inputs, output: output, options: options, outputOptions: outputOptions)
        report(written, inputs: inputs, json: invocation.flag(.json), console: console)
        for note in written.summary.notes { console.note("note: \(note)") }
        return ExitCode.ok
    }

    /// The paths in a list file: one a line, blank lines and lines starting with # skipped.
    static func readList(_ path: String) throws -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw KeepTrackError.missingInput("\(path): cannot read the list") }
        let folder = (path as NSString).deletingLastPathComponent
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map { $0.hasPrefix("/") || folder.isEmpty ? $0 : (folder as NSString).appendingPathComponent($0) }
    }

    static func report(_ written: Join.Written, inputs: [String], json: Bool, console: Console) {
        let plan = written.plan
        let seconds = { (value: UInt64) in Double(value) / Double(plan.movieTimescale) }
        if json {
            console.print(JSONValue.object([
                ("output", .string(written.path)),
                ("duration", .double(plan.duration)),
                ("movieTimescale", .int(Int64(plan.movieTimescale))),
                ("bytesWritten", .int(Int64(written.summary.written.bytesWritten))),
                ("clips", .array(inputs.indices.map { index in
                    .object([("input", .string(inputs[index])), ("start", .double(seconds(plan.clipStarts[index]))),
                             ("duration", .double(seconds(plan.clipLengths[index])))])
                })),
                ("tracks", .array(plan.tracks.map { track in
                    .object([
                        ("id", .int(Int64(track.trackID))),
                        ("kind", .string(track.kind.rawValue)),
                        ("format", .string(track.format)),
                        ("samples", .int(Int64(track.samples))),
                        ("sampleDescriptions", .int(Int64(track.descriptions))),
                        ("edits", .array(track.edits.map { .object([("segmentDuration", .int(Int64($0.segmentDuration))), ("mediaTime", .int($0.mediaTime))]) })),
                    ])
                })),
            ]).rendered())
            return
        }
        console.print("wrote \(written.path): \(inputs.count) clips, \(Trim.format(seconds: plan.duration)) s, movie time scale \(plan.movieTimescale), \(written.summary.written.bytesWritten) bytes")
        for track in plan.tracks {
            console.print("  track \(track.trackID) (\(track.kind.rawValue) \(track.format)): \(track.samples) samples, \(track.descriptions) sample description\(track.descriptions == 1 ? "" : "s"), \(track.edits.count) edit\(track.edits.count == 1 ? "" : "s")")
        }
    }
}
