import KeepTrack

/// `keeptrack split IN (--at T [--at T ...] | --every D) --out-dir DIR`: consecutive exact pieces in one pass.
enum SplitCommand {
    static let spec = CommandSpec(
        name: "split",
        summary: "Cut a movie into consecutive lossless, sample-exact pieces (NAME-001.mov, ...), every track kept.",
        arguments: "IN",
        positionals: 1...1,
        options: [
            .value(.at, "T", "A cut point (repeat for several): seconds or [HH:]MM:SS[.fff]."),
            .value(.every, "D", "Cut every D instead of --at (the last piece holds the rest)."),
            .value(.outDir, short: "o", "DIR", "Folder for the pieces (created when missing)."),
            .flag(.force, "Replace pieces that exist."),
            .flag(.json, "Print the pieces as JSON: an array of what 'trim --json' prints."),
        ],
        discussion: """
        The pieces are [0, T1), [T1, T2), ..., [Tn, end): each exact as 'keeptrack trim' makes it (see
        'keeptrack trim --help'), and consecutive pieces meet exactly: a cut point is snapped once to the
        frame shown at it, which starts the next piece and ends the one before. Pieces are named after IN
        with a 3-digit number and IN's extension (IMG_0001-001.MOV, ...). The movie's tables are read once
        and every piece is planned before the first is written (a cut point outside the movie exits 64
        and writes nothing); each piece is written atomically, copying only its samples' bytes.
        Exit status: 0 written, 64 usage (a cut point outside the movie names its duration), 65 malformed
        or a track trim cannot cut exactly, 66 IN missing, 73 a piece exists (without --force), 74 I/O.
        """
    ) { invocation, console in
        guard let folder = invocation.value(.outDir) else { throw KeepTrackCLIError.usage("split needs --out-dir DIR") }
        let atTexts = invocation.allValues(.at)
        var points: [Double]?
        var every: Double?
        switch (atTexts.isEmpty, invocation.value(.every)) {
        case (false, nil): points = try atTexts.map { try TrimCommand.parseTime($0, option: "at") }
        case (true, let text?): every = try TrimCommand.parseTime(text, option: "every")
        case (true, nil): throw KeepTrackCLIError.usage("split needs --at T (one or more) or --every D")
        case (false, _?): throw KeepTrackCLIError.usage("give --at or --every, not both")
        }
        var options = MovieOutput.Options()
        options.overwrite = invocation.flag(.force)
        let input = invocation.positionals[0]
        let pieces = try Trim.writeSplit(input: input, folder: folder, points: points, every: every, options: options)
        if invocation.flag(.json) {
            console.print(JSONValue.array(pieces.map { TrimCommand.json($0.plan, output: $0.path, bytes: $0.summary.written.bytesWritten) }).rendered())
        } else {
            for piece in pieces {
                console.print("wrote \(piece.path): \(Trim.format(seconds: piece.plan.startSeconds))-\(Trim.format(seconds: piece.plan.endSeconds)) s (\(Trim.format(seconds: piece.plan.duration)) s), \(piece.summary.written.bytesWritten) bytes")
            }
        }
        for note in Set(pieces.flatMap(\.summary.notes)).sorted() { console.note("note: \(note)") }
        return ExitCode.ok
    }
}
