import KeepTrack

/// `keeptrack lint FILE|DIR... [--json] [--recursive]`: checks alternate groups, fallbacks, references and tables.
enum LintCommand {
    static let spec = CommandSpec(
        name: "lint",
        summary: "Check alternate groups, enabled flags, spatial fallbacks, references and sample tables.",
        arguments: "FILE|DIR...",
        minimumPositionals: 1,
        options: [OptionSpec.flag(.json, "Print JSON: one object per file (path, findings, action, result, error, exitCode), an array for several."),
                  OptionSpec.flag(.force, "Replace the --report file if it exists.")] + BatchRun.options,
        discussion: """
        Rules (id, severity):
        \(ruleTable)
        Exit status: 0 when no error-level finding, 1 when there is one, 65 for a file that cannot be read as a movie,
        66 for a missing file; with several files, the worst seen.
        \(BatchRun.discussion)
        """
        , run: run)

    static func run(_ invocation: Invocation, _ console: Console) throws -> Int32 {
        let json = invocation.flag(.json)
        let single = invocation.positionals.count == 1 && Batch.collect(invocation.positionals, recursive: false).count == 1
        let printer: (BatchOutcome, Console) -> Void = { outcome, console in
            if !json { printFindings(outcome, console) }
        }
        let run = try BatchRun.run(invocation, console: console, command: "lint", paths: invocation.positionals,
                                   printOutcome: printer) { file in GroupOperations.lint(file.path) }
        if json {
            console.print(single && run.outcomes.count == 1 ? run.outcomes[0].json.rendered() : JSONValue.array(run.outcomes.map(\.json)).rendered())
        }
        return run.code
    }

    static var ruleTable: String {
        LintRule.all.map { rule in "  " + rule.id.rightPadded(to: 36) + rule.severity.rawValue.rightPadded(to: 9) + rule.explanation }
            .joined(separator: "\n")
    }

    static func printFindings(_ outcome: BatchOutcome, _ console: Console) {
        if let error = outcome.error, outcome.findings.isEmpty {
            console.error("\(outcome.path): \(error)")
            return
        }
        console.print("\(outcome.path): \(outcome.result)")
        for finding in outcome.findings {
            let repairable = finding.rule == .fragmentOffsetsStale || finding.rule == .fragmentIndexStale
            console.print("  " + finding.text + (repairable ? "; `keeptrack fix` repairs them" : ""))
        }
    }
}
