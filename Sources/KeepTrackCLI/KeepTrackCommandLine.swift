import Foundation
import KeepTrack

/// The `keeptrack` command line: a thin shell over the library. Each command lives in its own
/// file under `Commands/` and is listed once in a command table.
///
/// The container commands here link no C library, so `keeptrack inspect` or `fix --in-place`
/// start in a few milliseconds. Commands that decode or encode media (`levels`, `reframe`,
/// `demo`, `compare --levels`) live in `KeepTrackMediaCLI`, linked by the `keeptrack-media`
/// executable, to which the `keeptrack` executable hands them (`MediaDelegation`).
public enum KeepTrackCommandLine {
    public static let version = "0.1.0"

    /// Commands that need only the container layer.
    public static let coreCommands: [CommandSpec] = [
        InspectCommand.spec,
        DumpCommand.spec,
        RemuxCommand.spec,
        CompareCommand.spec,
        LintCommand.spec,
        FixCommand.spec,
        StripSpatialCommand.spec,
        FlattenStereoCommand.spec,
        SelectCommand.spec,
        ExtractCommand.spec,
        TrimCommand.spec,
        SplitCommand.spec,
        JoinCommand.spec,
        ScrubCommand.spec,
        SalvageCommand.spec,
        ExtractMovieCommand.spec,
        FixtureCommand.spec,
    ]

    /// Names and summaries of the commands `keeptrack-media` runs (the overview of the slim
    /// executable lists them; a test keeps them equal to the real specs).
    public static let mediaCommandSummaries: [CommandSummary] = [
        CommandSummary("levels", "Decode the audio and measure RMS, peak and loudness per track and for what a player plays."),
        CommandSummary("reframe", "Crop a horizontal video to vertical (9:16) following the person in it; every audio track passes through untouched."),
        CommandSummary("transcode", "Re-encode the video (smaller, H.264 for the web, HEVC keeping HDR); every other track, and the metadata, pass through untouched."),
        CommandSummary("repair", "Rebuild an interrupted recording (media data, no moov) from a healthy reference recording of the same device and settings."),
        CommandSummary("demo", "Show the main jobs on embedded samples: inspect, remux, lint, fix and levels on an iPhone-layout movie, then reframe and transcode a rendered scene."),
    ]

    /// A command's name and one-line summary, as the overview lists it.
    public struct CommandSummary: Equatable, Sendable {
        public var name: String
        public var summary: String
        public init(_ name: String, _ summary: String) {
            self.name = name
            self.summary = summary
        }
    }

    /// Runs `arguments` against `commands`; `listed` adds names (with summaries) shown in the overview.
    public static func run(_ arguments: [String], console: Console = .standard(), commands: [CommandSpec] = coreCommands,
                           listed: [CommandSummary] = mediaCommandSummaries) -> Int32 {
        let overview = overview(commands: commands, listed: listed)
        let names = commands.map(\.name) + listed.map(\.name)
        func commandHint(_ word: String) -> String { Self.commandHint(word, names: names) }
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
            console.error(error.commandLineDescription)
            return error.exitCode
        } catch {
            console.error("\(error)")
            return ExitCode.ioError
        }
    }

    static func commandHint(_ word: String, names: [String]) -> String {
        let best = names.map { ($0, ArgumentParser.distance(word, $0)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }
        return best.map { "; did you mean '\($0.0)'?" } ?? ""
    }

    public static func overview(commands: [CommandSpec], listed: [CommandSummary]) -> String {
        let entries = commands.map { CommandSummary($0.name, $0.summary) } + listed.filter { item in !commands.contains { $0.name == item.name } }
        var lines = [
            "keeptrack \(version) — see, check, repair and pass through iPhone-era movie files",
            "with their alternate audio tracks (stereo AAC + APAC spatial audio) intact.",
            "",
            "Usage: keeptrack COMMAND [arguments] [options]",
            "",
            "Commands:",
        ]
        let width = (entries.map(\.name.count).max() ?? 0) + 2
        for entry in entries { lines.append("  " + entry.name.rightPadded(to: width) + entry.summary) }
        lines.append("")
        lines.append("Run 'keeptrack help COMMAND' or 'keeptrack COMMAND --help' for a command's options.")
        lines.append("Exit codes: 0 ok, 1 findings/differences, 64 usage, 65 malformed input, 66 missing input,")
        lines.append("69 a needed component missing, 73 cannot create output, 74 I/O error.")
        return lines.joined(separator: "\n")
    }
}

extension KeepTrackError {
    /// The library's message with the command line's way out, where there is one.
    var commandLineDescription: String {
        switch self {
        case .outputExists: return description + "; use --force to replace it"
        case .malformed where FragmentOffsetRepair.isRefusal(self): return description + "; `keeptrack fix` does (--in-place, or into a new file)"
        case .refused(let refusal):
            switch refusal.kind {
            case .wouldLeaveSilence: return description + " (use --allow-silence to remove it anyway)"
            case .needsRewrite: return description + "; --in-place only patches flags: give an output file instead"
            case .hdrNeedsTenBit: return description  // each encoding command names its own way out
            }
        default: return description
        }
    }
}

extension String {
    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
