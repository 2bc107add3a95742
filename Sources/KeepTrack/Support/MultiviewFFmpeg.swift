import Foundation

/// The static FFmpeg 9 that `make setup` unpacks from the pinned imageio-ffmpeg wheel (sha256-checked,
/// scripts/fetch-deps.sh): the one decoder here that decodes both views of MV-HEVC (Debian's FFmpeg 5.1 decodes the
/// base view only). Found installed beside keeptrack (`lib/keeptrack/ffmpeg9/ffmpeg`, install.sh) or in the
/// checkout the executable was built in (`.deps/ffmpeg9/ffmpeg`); `KEEPTRACK_FFMPEG9` names another.
public enum MultiviewFFmpeg {
    /// Thrown when no copy is found: the command line turns it into exit status 69 (service unavailable).
    public struct Missing: Error, CustomStringConvertible {
        public var looked: [String]
        public var description: String {
            "decoding both views of MV-HEVC needs FFmpeg 9 (FFmpeg 5.1 here decodes only the base view), and it is not installed: run `make setup` in the keeptrack checkout (then `make install` installs it beside keeptrack); looked at \(looked.joined(separator: ", "))"
        }
    }

    /// sysexits' EX_UNAVAILABLE: a program the command needs is not there.
    public static let unavailableExitCode: Int32 = ExitCode.unavailable

    public static let environmentKey = "KEEPTRACK_FFMPEG9"

    /// The places looked at, in order.
    public static var candidates: [String] {
        if let named = ProcessInfo.processInfo.environment[environmentKey], !named.isEmpty { return [named] }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first.flatMap { Bundle.main.executablePath ?? $0 } ?? "")
            .resolvingSymlinksInPath().deletingLastPathComponent()
        var places = [executable.deletingLastPathComponent().appendingPathComponent("lib/keeptrack/ffmpeg9/ffmpeg").path]
        // A build in a checkout: .build/<triple>/<configuration>/keeptrack-media, three folders under the checkout.
        var folder = executable
        for _ in 0..<5 {
            places.append(folder.appendingPathComponent(".deps/ffmpeg9/ffmpeg").path)
            folder.deleteLastPathComponent()
        }
        return places
    }

    /// The first executable copy, else `Missing` naming where it looked.
    public static func locate() throws -> String {
        let places = candidates
        guard let found = places.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { throw Missing(looked: places) }
        return found
    }
}
