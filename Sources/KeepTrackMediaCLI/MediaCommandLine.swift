import KeepTrack
import KeepTrackCLI

/// The full command table: the container commands plus those that decode or encode media
/// (FFmpeg, libebur128, libfacedetection). Run by the `keeptrack-media` executable, the demo and the tests.
public enum MediaCommandLine {
    public static let commands: [CommandSpec] = KeepTrackCommandLine.coreCommands.map { command in
        command.name == CompareCommand.spec.name ? CompareCommand.spec(levels: LevelsCommand.compare) : command
    } + [LevelsCommand.spec, ReframeCommand.spec, TranscodeCommand.spec, RepairCommand.spec, DemoCommand.spec]

    public static func run(_ arguments: [String], console: Console = .standard()) -> Int32 {
        // Build tooling for `make install`, not a user command: the man page and completions of every command.
        if arguments.first == "--generate-docs" {
            guard arguments.count == 2 else {
                console.error("usage: keeptrack-media --generate-docs PREFIX")
                return ExitCode.usage
            }
            do {
                try Documentation.write(commands: commands, under: arguments[1])
                return ExitCode.ok
            } catch {
                console.error("cannot write the documentation under \(arguments[1]): \(error.localizedDescription)")
                return ExitCode.cannotCreate
            }
        }
        // `make docs`: the generated head of every docs/commands/NAME.md page.
        if arguments.first == "--update-docs" {
            guard arguments.count == 2 else {
                console.error("usage: keeptrack-media --update-docs FOLDER")
                return ExitCode.usage
            }
            do {
                for path in try CommandPages.write(commands: commands, under: arguments[1]) { console.print("updated \(path)") }
                return ExitCode.ok
            } catch {
                console.error("cannot write the command pages under \(arguments[1]): \(error.localizedDescription)")
                return ExitCode.cannotCreate
            }
        }
        return KeepTrackCommandLine.run(arguments, console: console, commands: commands, listed: [])
    }
}
