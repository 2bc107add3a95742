#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `keeptrack transcode IN OUT --stereo ...` starts FFmpeg 9 itself, before handing the command to keeptrack-media:
/// keeptrack starts in ~5 ms, keeptrack-media needs ~18 ms to load the codec libraries (2026-12-04, `perf stat`), and in
/// that time FFmpeg 9 opens the movie and decodes the first pictures of both views. keeptrack-media adopts the child
/// (it stays the process's child across `exec`) only when it would run exactly the same command; any other is
/// stopped and a new one started, so a wrong guess here costs time, never a wrong output.
public enum StereoPrestart {
    /// `pid`, the two pipe ends and the command, as JSON; read and removed by `adopt`.
    public static let environmentKey = "KEEPTRACK_FFMPEG9_PRESTARTED"

    /// How many prestarted children this process adopted and how many it stopped (tests tell the two apart).
    static var counts: (adopted: Int, stopped: Int) { countLock.withLock { tally } }
    private static let countLock = NSLock()
    nonisolated(unsafe) private static var tally = (adopted: 0, stopped: 0)

    /// keeptrack's side: for a single-file `transcode` with `--stereo` whose first existing file argument is a stereo
    /// MV-HEVC movie, starts FFmpeg 9 on it and says so in the environment the exec passes on. Anything it cannot
    /// tell (a folder run, an option it does not know the meaning of, no FFmpeg 9) leaves it to keeptrack-media.
    public static func start(for arguments: [String]) {
        guard arguments.first == "transcode", let command = command(for: Array(arguments.dropFirst())),
              let binary = try? MultiviewFFmpeg.locate(),
              let child = try? SpawnedProcess(executable: binary, arguments: command.arguments, outputPipeBytes: 1 << 20, inheritable: true)
        else { return }
        let said: [String: Any] = ["pid": Int(child.pid), "output": Int(child.output), "errors": Int(child.errors), "command": [binary] + command.arguments]
        guard let json = try? JSONSerialization.data(withJSONObject: said), let text = String(data: json, encoding: .utf8) else { return }
        setenv(environmentKey, text, 1)
        // Never released: its deinit would close the pipe ends the exec that follows hands over.
        _ = Unmanaged.passRetained(child)
    }

    /// The command keeptrack-media would run for these `transcode` arguments, as far as they can be read without
    /// its option table: `--stereo` given, no folder run, the first argument naming an existing file as the input.
    static func command(for arguments: [String]) -> MultiviewDecodeCommand? {
        var arrangement: StereoPacking.Arrangement?, half = false, input: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--stereo", index + 1 < arguments.count {
                arrangement = StereoPacking.Arrangement(rawValue: arguments[index + 1])
                index += 2
                continue
            }
            if argument.hasPrefix("--stereo=") { arrangement = StereoPacking.Arrangement(rawValue: String(argument.dropFirst(9))) }
            if argument == "--half" { half = true }
            if argument == "--out-dir" || argument.hasPrefix("--out-dir=") || argument == "--help" || argument == "-h" { return nil }
            var isFolder: ObjCBool = false
            if input == nil, !argument.hasPrefix("-"), FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) {
                guard !isFolder.boolValue else { return nil }
                input = argument
            }
            index += 1
        }
        guard let arrangement, let input, let movie = try? Movie.open(path: input),
              let video = movie.tracks.first(where: { $0.kind == .video && $0.isEnabled && $0.video?.stereo?.multiviewHEVC == true })
        else { return nil }
        return MultiviewDecodeCommand(input: input, video: video, packing: StereoPacking(arrangement, half: half))
    }

    /// keeptrack-media's side: the FFmpeg 9 keeptrack started, when it is this process's child (running, or ended with
    /// its output left in the pipes) and runs exactly `binary arguments`; nil otherwise, after stopping a child of ours
    /// that runs something else.
    /// The environment entry is removed either way, so nothing started later sees it.
    public static func adopt(binary: String, arguments: [String]) -> SpawnedProcess? {
        guard let text = getenv(environmentKey).map({ String(cString: $0) }) else { return nil }
        unsetenv(environmentKey)
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let pid = object["pid"] as? Int, let output = object["output"] as? Int, let errors = object["errors"] as? Int,
              let command = object["command"] as? [String], pid > 0, output > 2, errors > 2, output != errors
        else { return nil }
        func isPipe(_ descriptor: Int) -> Bool {
            var facts = stat()
            return fstat(Int32(descriptor), &facts) == 0 && (facts.st_mode & S_IFMT) == S_IFIFO
        }
        // waitpid without waiting: -1 for a pid that is not our child (left alone, its descriptors too), the pid
        // for a child that already ended (reaped now), 0 for ours and running. One that ended is adopted all the
        // same: on a short movie FFmpeg 9 can finish before keeptrack-media has loaded, its frames and messages
        // waiting in the pipes, and its exit status is the one just reaped.
        var status: Int32 = 0
        let ended: Int32?
        switch waitpid(pid_t(pid), &status, WNOHANG) {
        case 0: ended = nil
        case pid_t(pid): ended = SpawnedProcess.exitStatus(raw: status)
        default: return nil
        }
        guard isPipe(output), isPipe(errors) else {
            if ended == nil {
                kill(pid_t(pid), SIGTERM)
                _ = waitpid(pid_t(pid), &status, 0)
            } else {
                for end in [output, errors] where isPipe(end) { close(Int32(end)) }
            }
            return nil
        }
        let child = SpawnedProcess(adopting: pid_t(pid), output: Int32(output), errors: Int32(errors), endedWith: ended)
        guard command == [binary] + arguments else {
            child.terminate()
            child.wait()
            countLock.withLock { tally.stopped += 1 }
            return nil
        }
        countLock.withLock { tally.adopted += 1 }
        return child
    }
}
