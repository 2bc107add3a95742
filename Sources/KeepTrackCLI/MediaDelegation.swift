#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import KeepTrack

/// Hands the commands that need the codec libraries to `keeptrack-media`, installed beside the
/// `keeptrack` executable. Loading FFmpeg and friends costs ~20 ms of start-up per process; the
/// container commands (inspect, lint, fix --in-place) should not pay it.
public enum MediaDelegation {
    public static let executableName = "keeptrack-media"

    /// True when `arguments` name a media command (or its help, or `compare --levels`).
    public static func needsMedia(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }
        let media = Set(KeepTrackCommandLine.mediaCommandSummaries.map(\.name))
        if media.contains(first) { return true }
        if first == "help", arguments.count > 1, media.contains(arguments[1]) { return true }
        if first == CompareCommand.spec.name {
            return arguments.dropFirst().prefix { $0 != "--" }.contains("--levels")
        }
        return false
    }

    /// Replaces this process with `keeptrack-media ARGUMENTS...`; returns only on failure.
    public static func execute(_ arguments: [String], console: Console = .standard()) -> Int32 {
        let path = siblingPath()
        // transcode --stereo: FFmpeg 9 starts decoding while keeptrack-media loads (StereoPrestart).
        StereoPrestart.start(for: arguments)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        console.error("'\(arguments.first ?? "")' is run by \(executableName), which could not be started at \(path): \(reason)")
        return ExitCode.ioError
    }

    static func siblingPath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own = length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        return URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(executableName).path
    }
}
