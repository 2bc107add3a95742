import KeepTrack

/// `keeptrack compare A B [--json]`: tracks side by side, the check that a rewrite lost nothing.
public enum CompareCommand {
    public static let spec = CommandSpec(
        name: "compare",
        summary: "Compare two movies track by track: sample bytes, enabled flags, groups, references, boxes.",
        arguments: "A B [A2 B2 ...]",
        minimumPositionals: 0,
        options: [
            .flag(.json, "Print JSON (keys documented on its page in docs/commands)."),
            .value(.digest, "sha256", "Also print each track's SHA-256 of its samples in decode order (hashes both files; several times slower)."),
            .flag(.levels, "Compare what a player hears instead: enabled-audio RMS of each pair A B side by side, B−A in dB."),
        ] + pairOptions(modeFlag: "--levels"),
        discussion: """
        Tracks are matched by id. For each: format, enabled, alternate group, references, sample count, bytes,
        the sample data (every sample's bytes in decode order compared byte for byte, naming the first sample
        that differs), and the boxes of the trak whose bytes differ (the layout boxes stsc, stco and co64 are
        not compared). Then the enabled flags of both files in file order.
        Reads every sample of both files once, on every core; --digest sha256 adds each track's SHA-256.
        Exit status: 0 when every track of A is in B with identical samples, flags, group, references and
        boxes (tracks only in B are listed but allowed); 1 otherwise, each difference named; 65/66/74 on errors.
        --levels decodes the enabled audio of each file (as `keeptrack levels`) and prints one row per pair:
        RMS of A and B, the difference, and ECHO RISK when B plays more tracks of one alternate group at once
        than A. Exit 1 when a pair differs by more than the tolerance or has echo risk.
        """
    ) { invocation, console in
        if invocation.flag(.levels) {
            // Only reached in-process without the media commands: the keeptrack executable hands
            // `compare --levels` to keeptrack-media, which decodes audio.
            throw KeepTrackError.unsupported("compare --levels needs the media commands (keeptrack-media)")
        }
        guard invocation.value(.list) == nil, invocation.value(.tolerance) == nil else {
            throw KeepTrackCLIError.usage("--list and --tolerance go with --levels")
        }
        guard invocation.positionals.count == 2 else {
            throw KeepTrackCLIError.usage("compare takes two files A B (several pairs only with --levels)")
        }
        let pathA = invocation.positionals[0]
        let pathB = invocation.positionals[1]
        var columns = ComparisonColumn.standard
        switch invocation.value(.digest) {
        case nil: break
        case "sha256": columns = ComparisonColumn.withDigest
        case let other?: throw KeepTrackCLIError.usage("--digest takes sha256, not '\(other)'")
        }
        let comparison = try MovieComparison(Movie.open(path: pathA), Movie.open(path: pathB), nameA: pathA, nameB: pathB, columns: columns)
        console.print(invocation.flag(.json) ? comparison.json.rendered() : comparison.text)
        return comparison.isIdentical ? ExitCode.ok : ExitCode.findings
    }
}

extension CompareCommand {
    /// Options of the pairwise levels comparison, shared by `levels --compare` and `compare --levels`.
    public static func pairOptions(modeFlag: String) -> [OptionSpec] {
        [
            .value(.list, "FILE", "With \(modeFlag): read pairs from FILE, one 'A<TAB>B' per line."),
            .value(.tolerance, "DB", "With \(modeFlag): the difference still counted as the same (default 0.1)."),
        ]
    }

    /// `compare` with `--levels` answered by `levels`: the media command line swaps this in.
    public static func spec(levels: @escaping @Sendable (Invocation, Console) throws -> Int32) -> CommandSpec {
        CommandSpec(name: spec.name, summary: spec.summary, arguments: spec.arguments, minimumPositionals: spec.minimumPositionals,
                    maximumPositionals: spec.maximumPositionals, options: spec.options, discussion: spec.discussion) { invocation, console in
            try invocation.flag(.levels) ? levels(invocation, console) : spec.run(invocation, console)
        }
    }
}
