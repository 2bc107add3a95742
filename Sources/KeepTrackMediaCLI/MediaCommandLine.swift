import KeepTrack
import KeepTrackCLI

/// The full command table: the container commands plus those that decode or encode media
/// (FFmpeg, libebur128, libfacedetection). Run by the `keeptrack-media` executable, the demo and the tests.
public enum MediaCommandLine {
    public static let commands: [CommandSpec] = KeepTrackCommandLine.coreCommands.map { command in
        command.name == CompareCommand.spec.name ? CompareCommand.spec(levels: LevelsCommand.compare) : command
    } + [LevelsCommand.spec, ReframeCommand.spec, DemoCommand.spec]

    public static func run(_ arguments: [String], console: Console = .standard()) -> Int32 {
        KeepTrackCommandLine.run(arguments, console: console, commands: commands, listed: [])
    }
}
