import KeepTrack

/// `keeptrack compare A B [--json]`: tracks side by side, the check that a rewrite lost nothing.
enum CompareCommand {
    static let spec = CommandSpec(
        name: "compare",
        summary: "Compare two movies track by track: samples (SHA-256), enabled flags, groups, references, boxes.",
        arguments: "A B",
        positionals: 2...2,
        options: [.flag("json", "Print JSON (keys documented in the README).")],
        discussion: """
        Tracks are matched by id. For each: format, enabled, alternate group, references, sample count, bytes,
        SHA-256 of the sample data in decode order, and the boxes of the trak whose bytes differ (the layout
        boxes stsc, stco and co64 are not compared). Then the enabled flags of both files in file order.
        Reads every sample of both files.
        Exit status: 0 when every track of A is in B with identical samples, flags, group, references and
        boxes (tracks only in B are listed but allowed); 1 otherwise, each difference named; 65/66/74 on errors.
        """
    ) { invocation, console in
        let pathA = invocation.positionals[0]
        let pathB = invocation.positionals[1]
        let comparison = try MovieComparison(Movie.open(path: pathA), Movie.open(path: pathB), nameA: pathA, nameB: pathB)
        console.print(invocation.flag("json") ? comparison.json.rendered() : comparison.text)
        return comparison.isIdentical ? ExitCode.ok : ExitCode.findings
    }
}
