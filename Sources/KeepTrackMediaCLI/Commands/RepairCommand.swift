import KeepTrack
import KeepTrackCLI
import KeepTrackCodec

/// `keeptrack repair BROKEN --reference GOOD OUT`: an interrupted recording rebuilt with a healthy one.
enum RepairCommand {
    static let spec = CommandSpec(
        name: "repair",
        summary: "Rebuild an interrupted recording (media data, no moov) from a healthy reference recording of the same device and settings.",
        arguments: "BROKEN --reference GOOD OUT",
        positionals: 2...2,
        options: [
            .value(.reference, "GOOD", "A complete recording from the same device and settings: its tracks, sample descriptions and chunk pattern."),
            .flag(.json, "Print the report as JSON."),
            .flag(.force, "Replace OUT if it exists."),
        ],
        discussion: """
        For a recording whose camera app or battery died: an mdat with no moov. The reference's tracks describe the
        samples (sample entries, durations, edit of the audio priming) and its chunk pattern says which track's
        chunk follows which. Walking the media data: H.264/HEVC access units are found by their length-prefixed
        NAL units, AAC frames by decoding (libavcodec: the shortest length whose frame decodes with the
        reference's channels), Apple's constant-size timed metadata (mebx) by its item structure. Every recovered
        video and AAC sample is then decoded in order; the first that does not decode ends its track (video at the
        sync sample before it: other settings' parameter sets decode a picture or two into garbage). Composition
        offsets come from the decoder's picture order; the last pictures, which the decoder gives out only at the
        end of the stream (they are shown after B-frames that were cut off), are left out and counted.
        APAC (and any other track whose samples carry no length and that no decoder here reads) is located by the
        chunk pattern only and not written: its bytes are reported, never guessed into samples. Bytes no track
        claims are reported with their offset. The reference's movie metadata (place, time) is not copied.
        OUT is written through the movie writer: a hidden temporary file, verified, renamed.
        Exit status: 0 written (the report says what was left out), 64 usage, 65 BROKEN has a moov or no
        mdat, or no sample was found, 66 an input missing, 73 OUT exists (without --force) or cannot be created,
        74 I/O error.
        """
    ) { invocation, console in
        guard let reference = invocation.value(.reference) else { throw KeepTrackCLIError.usage("repair needs --reference GOOD: a complete recording of the same device and settings") }
        let (broken, output) = (invocation.positionals[0], invocation.positionals[1])
        let recovery = try RecordingRecovery(broken: broken, reference: reference, output: output, overwrite: invocation.flag(.force))
        if invocation.flag(.json) {
            console.print(json(recovery, output: output).rendered())
        } else {
            console.print("wrote \(output): media data of \(broken) (\(recovery.data.count) bytes at byte \(recovery.data.lowerBound)) read with \(reference)")
            for track in recovery.tracks {
                var line = "  track \(track.id) (\(track.format)): \(track.written) of \(track.found) samples found written; \(track.check)"
                if track.unplacedBytes > 0 { line += "; \(track.unplacedBytes) bytes left out" }
                if track.heldBack > 0 { line += "; the last \(track.heldBack) left out: shown after pictures that were cut off, their times are unknown" }
                console.print(line)
                if let failure = track.failure { console.print("    stopped: \(failure)") }
            }
            for range in recovery.unplaced { console.note("not placed: \(range.length) bytes at byte \(range.offset): \(range.reason)") }
        }
        return ExitCode.ok
    }

    static func json(_ recovery: RecordingRecovery, output: String) -> JSONValue {
        .object([
            ("output", .string(output)),
            ("mediaData", .object([("offset", .int(Int64(recovery.data.lowerBound))), ("bytes", .int(Int64(recovery.data.count)))])),
            ("tracks", .array(recovery.tracks.map { track in
                .object([("id", .int(Int64(track.id))), ("format", .string(track.format)), ("found", .int(Int64(track.found))),
                         ("written", .int(Int64(track.written))), ("check", .string(track.check)), ("stopped", .optional(track.failure)), ("heldBack", .int(Int64(track.heldBack))),
                         ("unplacedBytes", .int(Int64(track.unplacedBytes)))])
            })),
            ("unplaced", .array(recovery.unplaced.map { range in
                .object([("offset", .int(Int64(range.offset))), ("bytes", .int(Int64(range.length))),
                         ("track", .optional(range.track.map(Int.init))), ("reason", .string(range.reason))])
            })),
        ])
    }
}
