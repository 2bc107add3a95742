import KeepTrack
import KeepTrackCLI
import KeepTrackCodec

/// `keeptrack levels FILE... [--json]` and `keeptrack levels --compare A B [A2 B2 ...]`.
enum LevelsCommand {
    static let spec = CommandSpec(
        name: "levels",
        summary: "Decode the audio and measure RMS, peak and loudness per track and for what a player plays.",
        arguments: "FILE...",
        minimumPositionals: 0,
        options: [
            .flag(.json, "Print JSON (keys documented on its page in docs/commands)."),
            .flag(.compare, "Treat the files as pairs A B [A2 B2 ...]: compare the enabled-audio RMS of each pair."),
        ] + CompareCommand.pairOptions(modeFlag: "--compare"),
        discussion: """
        Decodes keeptrack's own demuxed samples with FFmpeg's libavcodec (AAC, ALAC, LPCM, AC-3, E-AC-3, AMR, TrueHD, ...),
        honouring the edit list and encoder priming, so the levels cover exactly the presented range.
        Per track: RMS dBFS (a full-scale sine is −3.01), sample peak dBFS, integrated loudness (EBU R128, LUFS).
        mix: the enabled audio tracks summed sample-aligned and downmixed to stereo — what a simple player plays.
        A track FFmpeg cannot decode (APAC) is reported "not decodable here", never measured as silence.
        A packet the decoder rejects is left out of its track's levels and named in a note (JSON: skippedPackets);
        a track of which no packet decodes is malformed input (65).
        --compare prints one row per pair: A and B enabled-audio RMS, B−A in dB, and ECHO RISK when B plays
        more tracks of one alternate group at once than A.
        Exit status: 0; with --compare 1 when a pair differs or has echo risk; 65/66/74 on bad input (with --json and one FILE,
        nothing is printed on stdout then: the error is on stderr).
        """
    ) { invocation, console in
        if invocation.flag(.compare) { return try compare(invocation, console) }
        guard !invocation.positionals.isEmpty else { throw KeepTrackCLIError.usage("levels needs at least one FILE") }
        var documents: [JSONValue] = []
        var worst: Int32 = 0
        for (index, path) in invocation.positionals.enumerated() {
            do {
                let levels = try LevelsAnalyzer.measure(path: path)
                if invocation.flag(.json) { documents.append(levels.json) } else {
                    if index > 0 { console.print() }
                    console.print(levels.text)
                }
            } catch let error as KeepTrackError {
                console.error("\(path): \(error.description)")
                worst = max(worst, error.exitCode)
            } catch let error as CodecError {
                console.error("\(path): \(error.description)")
                worst = max(worst, ExitCode.dataError)
            }
        }
        if invocation.flag(.json) {
            // One FILE that could not be measured prints no JSON at all (its error is on stderr): never an empty `[]`.
            if invocation.positionals.count == 1 {
                if let document = documents.first { console.print(document.rendered()) }
            } else {
                console.print(JSONValue.array(documents).rendered())
            }
        }
        return worst
    }

    static func compare(_ invocation: Invocation, _ console: Console) throws -> Int32 {
        var pairs: [LevelsComparison.Pair] = []
        if let list = invocation.value(.list) { pairs += try LevelsComparison.readPairs(listFile: list) }
        let files = invocation.positionals
        guard files.count % 2 == 0 else { throw KeepTrackCLIError.usage("comparing levels takes files in pairs (A B [A2 B2 ...]); got \(files.count)") }
        pairs += stride(from: 0, to: files.count, by: 2).map { LevelsComparison.Pair(files[$0], files[$0 + 1]) }
        guard !pairs.isEmpty else { throw KeepTrackCLIError.usage("comparing levels needs pairs of files or --list FILE") }
        var tolerance = 0.1
        if let text = invocation.value(.tolerance) {
            guard let value = Double(text), value >= 0 else { throw KeepTrackCLIError.usage("--tolerance needs a number of dB, got '\(text)'") }
            tolerance = value
        }
        let comparison = try LevelsComparison.compare(pairs: pairs, tolerance: tolerance)
        console.print(invocation.flag(.json) ? comparison.json.rendered() : comparison.text)
        return comparison.allMatch ? ExitCode.ok : ExitCode.findings
    }
}
