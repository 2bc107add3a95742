import Foundation
import KeepTrack

/// The `keeptrack` command line: a thin shell over the library. Each command lives in its own
/// file under `Commands/` and is listed once in `commands`.
public enum KeepTrackCommandLine {
    public static let version = "0.1.0"

    public static let commands: [CommandSpec] = [
        InspectCommand.spec,
        DumpCommand.spec,
        RemuxCommand.spec,
        CompareCommand.spec,
        LevelsCommand.spec,
        LintCommand.spec,
        FixCommand.spec,
        StripSpatialCommand.spec,
        SelectCommand.spec,
        ExtractCommand.spec,
        ReframeCommand.spec,
        DemoCommand.spec,
        FixtureCommand.spec,
    ]

    public static func run(_ arguments: [String], console: Console = .standard()) -> Int32 {
        guard let first = arguments.first else {
            console.note(overview)
            return ExitCode.usage
        }
        switch first {
        case "--version", "version":
            console.print("keeptrack \(version)")
            return ExitCode.ok
        case "--help", "-h":
            console.print(overview)
            return ExitCode.ok
        case "help":
            if arguments.count > 1 {
                guard let command = commands.first(where: { $0.name == arguments[1] }) else {
                    console.error("no command '\(arguments[1])'" + commandHint(arguments[1]))
                    return ExitCode.usage
                }
                console.print(command.help)
            } else {
                console.print(overview)
            }
            return ExitCode.ok
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            console.error("unknown command '\(first)'" + commandHint(first) + "\nRun 'keeptrack help' for the list.")
            return ExitCode.usage
        }
        do {
            let invocation = try ArgumentParser.parse(Array(arguments.dropFirst()), for: command)
            return try command.run(invocation, console)
        } catch KeepTrackCLIError.help {
            console.print(command.help)
            return ExitCode.ok
        } catch KeepTrackCLIError.usage(let message) {
            console.error(message + "\nUsage: \(command.usage)\nRun 'keeptrack \(command.name) --help' for more.")
            return ExitCode.usage
        } catch let error as KeepTrackError {
            console.error(error.description)
            return error.exitCode
        } catch {
            console.error("\(error)")
            return ExitCode.ioError
        }
    }

    static func commandHint(_ word: String) -> String {
        let names = commands.map(\.name)
        let best = names.map { ($0, ArgumentParser.distance(word, $0)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }
        return best.map { "; did you mean '\($0.0)'?" } ?? ""
    }

    public static var overview: String {
        var lines = [
            "keeptrack \(version) — see, check, repair and pass through iPhone-era movie files",
            "with their alternate audio tracks (stereo AAC + APAC spatial audio) intact.",
            "",
            "Usage: keeptrack COMMAND [arguments] [options]",
            "",
            "Commands:",
        ]
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands { lines.append("  " + command.name.rightPadded(to: width) + command.summary) }
        lines.append("")
        lines.append("Run 'keeptrack help COMMAND' or 'keeptrack COMMAND --help' for a command's options.")
        lines.append("Exit codes: 0 ok, 1 findings/differences, 64 usage, 65 malformed input, 66 missing input,")
        lines.append("73 cannot create output, 74 I/O error.")
        return lines.joined(separator: "\n")
    }
}

extension String {
    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
