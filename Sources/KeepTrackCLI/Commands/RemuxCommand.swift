import KeepTrack

/// `keeptrack remux IN OUT`: lossless passthrough of every track, sample and box.
enum RemuxCommand {
    static let spec = CommandSpec(
        name: "remux",
        summary: "Copy every track, sample and box losslessly into a new file, flags included.",
        arguments: "IN OUT",
        positionals: 2...2,
        options: [
            .flag("moov-last", "Keep moov after the media data (default: moov first, fast start)."),
            .flag("force", "Replace OUT if it exists."),
        ]
    ) { invocation, console in
        var options = MovieOutput.Options()
        options.overwrite = invocation.flag("force")
        options.writer.moovFirst = !invocation.flag("moov-last")
        let summary = try MovieOutput.remux(input: invocation.positionals[0], output: invocation.positionals[1], options: options)
        console.print("wrote \(invocation.positionals[1]): \(summary.bytesWritten) bytes, \(summary.chunkCount) chunks, \(summary.largeOffsets ? "co64" : "stco")")
        return ExitCode.ok
    }
}
