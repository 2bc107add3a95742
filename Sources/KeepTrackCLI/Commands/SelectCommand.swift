import KeepTrack

/// `keeptrack select IN OUT --prefer enabled|stereo|spatial [--language CODE]`: one track per alternate group.
enum SelectCommand {
    static let spec = CommandSpec(
        name: "select",
        summary: "Keep one track per alternate group (enabled, group 0), for tools that cannot handle groups.",
        arguments: "IN OUT",
        positionals: 2...2,
        options: [
            .value(.prefer, "WHICH", "enabled (default: the track the source plays), stereo, or spatial.",
                   choices: SelectTracks.Preference.allCases.map(\.rawValue)),
            .value(.language, "CODE", "Prefer tracks in this language (as stored: 'eng', 'en-US') when a group has one."),
            .flag(.force, "Replace OUT if it exists."),
        ],
        discussion: "Tracks outside alternate groups stay as they are; references to dropped tracks are removed."
    ) { invocation, console in
        let preferText = invocation.value(.prefer) ?? "enabled"
        guard let prefer = SelectTracks.Preference(rawValue: preferText) else {
            throw KeepTrackCLIError.usage("--prefer takes \(SelectTracks.Preference.allCases.map(\.rawValue).joined(separator: ", ")), not '\(preferText)'")
        }
        let (input, output) = (invocation.positionals[0], invocation.positionals[1])
        let edit = try SelectTracks.edit(try Movie.open(path: input), prefer: prefer, language: invocation.value(.language))
        let summary = try GroupOperations.write(edit.writer(), to: output, input: input, overwrite: invocation.flag(.force))
        for change in edit.changes { console.print(change) }
        for note in summary.notes { console.note("note: \(note)") }
        console.print("wrote \(output): \(edit.tracks.count) tracks")
        return ExitCode.ok
    }
}
