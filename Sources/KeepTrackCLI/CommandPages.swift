import Foundation

/// `docs/commands/NAME.md`: one page per command. Its head is generated from the command table, as
/// `--help` and the man page are, so the three say the same thing; what follows the head (examples,
/// what is kept and refused, comparisons with other tools) is written by hand and kept as it is when
/// the head is regenerated (`make docs`).
public enum CommandPages {
    public static let generatedStart = "<!-- generated from keeptrack's command table by `make docs`: edit the command's spec in Sources, not this block -->"
    public static let generatedEnd = "<!-- end of the generated reference; what follows is written by hand -->"

    /// The generated head of a command's page.
    public static func reference(_ command: CommandSpec) -> String {
        var lines = [generatedStart, "# keeptrack \(command.name)", "", command.summary, "", "```", command.usage, "```", "",
                     "| option | what it does |", "| --- | --- |"]
        for option in Documentation.allOptions(command) {
            var label = option.short.map { "`-\($0)`, " } ?? ""
            label += "`--\(option.name)" + (option.valueName.map { " \($0)" } ?? "") + "`"
            lines.append("| \(label) | \(cell(option.help)) |")
        }
        if !command.discussion.isEmpty {
            lines += ["", "```text", command.discussion, "```"]
        }
        lines += ["", "Also: `keeptrack help \(command.name)`, `man keeptrack`. Exit codes: [the list](../../README.md#exit-codes).", generatedEnd]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `existing` with its generated head replaced by the current one (the hand-written rest kept);
    /// a new page when there is none.
    public static func updated(_ existing: String?, for command: CommandSpec) -> String {
        let head = reference(command)
        guard let existing, let end = existing.range(of: generatedEnd) else { return head }
        var rest = String(existing[end.upperBound...])
        if rest.hasPrefix("\n") { rest.removeFirst() }
        return head + rest
    }

    /// Rewrites every command's page under `folder` (created when missing); returns the paths whose
    /// contents changed.
    @discardableResult
    public static func write(commands: [CommandSpec], under folder: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var changed: [String] = []
        for command in commands {
            let path = (folder as NSString).appendingPathComponent("\(command.name).md")
            let existing = try? String(contentsOfFile: path, encoding: .utf8)
            let page = updated(existing, for: command)
            if page != existing {
                try Data(page.utf8).write(to: URL(fileURLWithPath: path))
                changed.append(path)
            }
        }
        return changed
    }

    /// A table cell: pipes escaped so they do not split the cell.
    static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
}
