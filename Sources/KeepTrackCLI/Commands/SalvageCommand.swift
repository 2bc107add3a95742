import KeepTrack

/// `keeptrack salvage IN OUT`: the complete samples of a truncated movie as a movie of its own.
enum SalvageCommand {
    static let spec = CommandSpec(
        name: "salvage",
        summary: "Save what a truncated movie (moov whole, media data cut short) still holds: every complete sample, tracks ending together.",
        arguments: "IN OUT",
        positionals: 2...2,
        options: [
            .flag(.force, "Replace OUT if it exists."),
            .flag(.json, "Print what was kept and cut as JSON (the truncation, the common end, per-track samples)."),
        ],
        discussion: """
        For a file whose moov is whole but whose last mdat stops early (a copy or download cut short, a card
        pulled): each track keeps its samples from the first up to the first one not entirely in the file, and
        every track ends where the first audio or video track stops being whole (on a frame boundary), so no
        audio plays on after the pictures unless the source did so. Nothing is re-encoded: the cut is made as
        `trim` makes it (edit lists, sample groups, sync tables, flags, groups, references and metadata kept).
        `inspect` and `lint` show the same counts without writing; every other writing command refuses a
        truncated file and names this one. See docs/damaged-files.md.
        Exit status: 0 written, 64 usage (IN is not truncated: `remux` copies it), 65 malformed (or nothing
        complete to save), 66 IN missing, 73 OUT exists, 74 I/O.
        """
    ) { invocation, console in
        var options = MovieOutput.Options()
        options.overwrite = invocation.flag(.force)
        let (input, output) = (invocation.positionals[0], invocation.positionals[1])
        let (plan, summary) = try Salvage.write(input: input, output: output, options: options)
        if invocation.flag(.json) {
            console.print(Salvage.json(plan, output: output, bytes: summary.written.bytesWritten).rendered())
        } else {
            console.print("\(input): \(plan.truncation.summary)")
            console.print("wrote \(output): \(summary.written.bytesWritten) bytes, every track ending at \(Trim.format(seconds: plan.end)) s")
            for line in Salvage.lines(plan) { console.print("  " + line) }
        }
        for note in summary.notes { console.note("note: \(note)") }
        return ExitCode.ok
    }
}
