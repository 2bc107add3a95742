import Foundation
import KeepTrack

/// The man page and shell completions, generated from the same command table as `--help`, so an
/// option added to a command appears everywhere at once. `make install` writes them
/// (`keeptrack-media --generate-docs DIR`, which knows every command).
public enum Documentation {
    /// One generated file: its path relative to the install prefix and its contents.
    public struct File: Equatable, Sendable {
        public var path: String
        public var contents: String
    }

    /// Every generated file.
    public static func files(commands: [CommandSpec]) -> [File] {
        [
            File(path: "share/man/man1/keeptrack.1", contents: manPage(commands: commands)),
            File(path: "share/bash-completion/completions/keeptrack", contents: bashCompletion(commands: commands)),
            File(path: "share/zsh/site-functions/_keeptrack", contents: zshCompletion(commands: commands)),
            File(path: "share/fish/vendor_completions.d/keeptrack.fish", contents: fishCompletion(commands: commands)),
        ]
    }

    /// Writes `files(commands:)` under `folder`, creating folders as needed.
    public static func write(commands: [CommandSpec], under folder: String) throws {
        for file in files(commands: commands) {
            let url = URL(fileURLWithPath: folder).appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.contents.utf8).write(to: url)
        }
    }

    static func allOptions(_ command: CommandSpec) -> [OptionSpec] {
        command.options + [OptionSpec.flag(.help, short: "h", "Show this help.")]
    }

    // MARK: man

    public static func manPage(commands: [CommandSpec]) -> String {
        var lines = [
            #".TH KEEPTRACK 1 "" "keeptrack \#(KeepTrackCommandLine.version)" "User Commands""#,
            ".SH NAME",
            #"keeptrack \- see, check, repair and pass through iPhone-era movie files"#,
            ".SH SYNOPSIS",
            ".B keeptrack",
            #".I COMMAND"#,
            "[arguments] [options]",
            ".SH DESCRIPTION",
            roff("Movie files from iPhones (16 and later) and Apple Vision Pro carry two audio tracks of the same sound in one alternate group: stereo AAC (enabled) and APAC spatial audio (disabled). keeptrack shows them as they are, checks and repairs them, and passes them through losslessly with flags, groups and references intact."),
            ".SH COMMANDS",
        ]
        for command in commands {
            lines.append(".SS " + quoted(command.usage))
            lines.append(roff(command.summary))
            for option in allOptions(command) {
                lines.append(".TP")
                var label = option.short.map { #"\fB\-\#($0)\fR, "# } ?? ""
                label += #"\fB\-\-"# + roffInline(option.name) + #"\fR"#
                if let value = option.valueName { label += #" \fI"# + roffInline(value) + #"\fR"# }
                lines.append(label)
                lines.append(roff(option.help))
            }
            if !command.discussion.isEmpty {
                lines.append(".PP")
                for paragraph in command.discussion.components(separatedBy: "\n") where !paragraph.isEmpty {
                    lines.append(roff(paragraph))
                    lines.append(".br")
                }
            }
        }
        lines.append(".SH EXIT STATUS")
        for (code, meaning) in Self.exitCodeMeanings {
            lines.append(".TP")
            lines.append(".B \(code)")
            lines.append(roff(meaning))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every exit code with what it means, in the tool's words (the man page's EXIT STATUS).
    static let exitCodeMeanings: [(code: Int32, meaning: String)] = [
        (ExitCode.ok, "success"),
        (ExitCode.findings, "findings or differences (lint, compare)"),
        (ExitCode.usage, "usage error (unknown option, missing argument)"),
        (ExitCode.dataError, "malformed or unsupported input; the message names the box path and byte offset"),
        (ExitCode.noInput, "missing or unreadable input"),
        (ExitCode.unavailable, "a component the command needs is not installed (transcode --stereo without FFmpeg 9, reframe without its face or people detector library: run make setup)"),
        (ExitCode.cannotCreate, "the output cannot be created (exists without --force, folder not writable)"),
        (ExitCode.ioError, "I/O error (disk full, read failure)"),
    ]

    /// A text line: backslashes escaped, a leading `.` or `'` (a roff request) neutralised.
    static func roff(_ text: String) -> String {
        let escaped = roffInline(text)
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? #"\&"# + escaped : escaped
    }

    /// Backslashes and hyphens escaped; anything beyond ASCII (→, —, ×) as a `\[uXXXX]` glyph, which
    /// every troff reads whatever the locale.
    static func roffInline(_ text: String) -> String {
        var result = ""
        for scalar in text.replacingOccurrences(of: #"\"#, with: #"\e"#).replacingOccurrences(of: "-", with: #"\-"#).unicodeScalars {
            if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else {
                result += #"\[u"# + String(format: "%04X", scalar.value) + "]"
            }
        }
        return result
    }

    static func quoted(_ text: String) -> String {
        "\"" + roffInline(text).replacingOccurrences(of: "\"", with: #"\(dq"#) + "\""
    }

    // MARK: bash

    public static func bashCompletion(commands: [CommandSpec]) -> String {
        let names = (commands.map(\.name) + ["help"]).joined(separator: " ")
        var lines = [
            "# bash completion for keeptrack (generated from its command table)",
            "_keeptrack() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"",
            "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
            "        COMPREPLY=($(compgen -W \"\(names) --help --version\" -- \"$cur\"))",
            "        return",
            "    fi",
            "    local options=\"\" values=\"\"",
            "    case \"${COMP_WORDS[1]}\" in",
        ]
        for command in commands {
            let options = allOptions(command)
            let flags = options.map { "--" + $0.name } + options.compactMap { $0.short.map { "-\($0)" } }
            let values = options.filter { $0.valueName != nil }.flatMap { option in ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? []) }
            lines.append("        \(command.name)) options=\"\(flags.joined(separator: " "))\"; values=\"\(values.joined(separator: " "))\" ;;")
        }
        lines.append("        help) COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " "))\" -- \"$cur\")); return ;;")
        lines += [
            "    esac",
            "    # After an option that takes a value, complete file names (most values are paths or numbers).",
            "    if [[ \" $values \" == *\" $prev \"* ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); return; fi",
            "    if [[ \"$cur\" == -* ]]; then",
            "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))",
            "    else",
            "        COMPREPLY=($(compgen -f -- \"$cur\"))",
            "    fi",
            "}",
            "complete -o filenames -F _keeptrack keeptrack",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: zsh

    public static func zshCompletion(commands: [CommandSpec]) -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "[", with: "\\[")
                .replacingOccurrences(of: "]", with: "\\]").replacingOccurrences(of: ":", with: "\\:")
        }
        var lines = [
            "#compdef keeptrack",
            "# zsh completion for keeptrack (generated from its command table)",
            "_keeptrack() {",
            "    local -a commands",
            "    commands=(",
        ]
        for command in commands { lines.append("        '\(command.name):\(escape(command.summary))'") }
        lines += [
            "        'help:Show the commands or one command'\"'\"'s options'",
            "    )",
            "    if (( CURRENT == 2 )); then",
            "        _describe 'command' commands",
            "        return",
            "    fi",
            "    case ${words[2]} in",
        ]
        for command in commands {
            var specs: [String] = []
            for option in allOptions(command) {
                let value = option.valueName.map { ":\(escape($0)):_files" } ?? ""
                let help = "[\(escape(option.help))]"
                if let short = option.short {
                    specs.append("'(-\(short) --\(option.name))'{-\(short),--\(option.name)}'\(help)\(value)'")
                } else {
                    specs.append("'--\(option.name)\(help)\(value)'")
                }
            }
            specs.append("'*:file:_files'")
            lines.append("        \(command.name)) _arguments \\")
            lines.append(specs.map { "            \($0)" }.joined(separator: " \\\n") + " ;;")
        }
        lines += [
            "        help) _describe 'command' commands ;;",
            "    esac",
            "}",
            "_keeptrack \"$@\"",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: fish

    public static func fishCompletion(commands: [CommandSpec]) -> String {
        func escape(_ text: String) -> String { "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'" }
        var lines = [
            "# fish completion for keeptrack (generated from its command table)",
            "complete -c keeptrack -f -n __fish_use_subcommand -a help -d " + escape("Show the commands or one command's options"),
        ]
        for command in commands {
            lines.append("complete -c keeptrack -f -n __fish_use_subcommand -a \(command.name) -d \(escape(command.summary))")
            for option in allOptions(command) {
                var line = "complete -c keeptrack -n '__fish_seen_subcommand_from \(command.name)' -l \(option.name)"
                if let short = option.short { line += " -s \(short)" }
                if option.valueName != nil { line += " -r -F" }
                line += " -d \(escape(option.help))"
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

