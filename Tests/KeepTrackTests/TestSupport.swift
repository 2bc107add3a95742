import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackCLI
import KeepTrackMediaCLI
import KeepTrackFixtures

/// Where the real recordings live: `../shared/fixtures` beside the checkout (never copied into the repo).
enum RealFixtures {
    static let folder: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }()
    static let iphone = folder.appendingPathComponent("iphone16pro-spatial-audio.mov").path
    static let avAssetWriter = folder.appendingPathComponent("avassetwriter-apac.mp4").path
    static var all: [String] { [iphone, avAssetWriter] }

    /// The path, or a skip naming the missing folder (CI has it; a bare checkout may not).
    static func require(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else {
            throw unavailable("real fixture \(path) not found: ../shared/fixtures is absent beside this checkout")
        }
        return path
    }
}

/// Set by `.ci/run`: every test must run. A missing tool or fixture is then a failure, never a skip, so
/// a broken set-up cannot silently turn a promise off.
let requireAllTests = ProcessInfo.processInfo.environment["KEEPTRACK_REQUIRE_ALL_TESTS"] == "1"

struct TestPrerequisiteMissing: Error, CustomStringConvertible {
    var description: String
}

/// What a test throws when something it needs is not here: a skip on a user's machine, a failure in CI.
func unavailable(_ reason: String) -> Error {
    requireAllTests ? TestPrerequisiteMissing(description: "required by KEEPTRACK_REQUIRE_ALL_TESTS: \(reason)") : XCTSkip(reason)
}

/// A fresh temporary folder per test, removed afterwards.
final class TemporaryFolder {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("keeptrack-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Runs the command line in-process (the full table: container and media commands) and captures what it prints.
func runCLI(_ arguments: [String]) -> (code: Int32, out: String, error: String) {
    let capture = Console.capturing()
    let code = MediaCommandLine.run(arguments, console: capture.console)
    let output = capture.output
    return (code, output.out, output.error)
}

/// Runs an external tool (ffprobe, mediainfo) if installed; nil when it is not.
func runTool(_ name: String, _ arguments: [String]) -> (code: Int32, out: String)? {
    guard let (code, data) = launchTool(name, arguments) else { return nil }
    return (code, String(decoding: data, as: UTF8.self))
}

/// Runs a tool and returns its standard output bytes, or nil when the tool is missing or fails.
func runToolData(_ name: String, _ arguments: [String]) -> Data? {
    guard let (code, data) = launchTool(name, arguments), code == 0 else { return nil }
    return data
}

/// Runs a tool and returns what it printed on standard error (ffmpeg's filters report there).
func runToolStandardError(_ name: String, _ arguments: [String]) -> String? {
    launchTool(name, arguments, standardError: true).map { String(decoding: $0.out, as: UTF8.self) }
}

/// Started with `posix_spawn` (the core's `SpawnedProcess`): Foundation's `Process` took ~50 ms to start `/bin/true`
/// here (2026-12-04), and the tests start ffprobe and ffmpeg thousands of times. The stream not asked for is read on
/// another thread to its end, so a talkative tool never blocks on a full pipe.
private func launchTool(_ name: String, _ arguments: [String], standardError: Bool = false) -> (code: Int32, out: Data)? {
    let candidates = name.hasPrefix("/") ? [name] : ["/usr/bin/\(name)", "/usr/local/bin/\(name)"]
    guard let path = candidates.first(where: FileManager.default.isExecutableFile(atPath:)),
          let child = try? SpawnedProcess(executable: path, arguments: arguments) else { return nil }
    let (wanted, other) = standardError ? (child.errors, child.output) : (child.output, child.errors)
    let drained = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        _ = readToEnd(other)
        drained.signal()
    }
    let data = readToEnd(wanted)
    drained.wait()
    return (child.wait(), data)
}

/// Every byte from `descriptor` until its end.
private func readToEnd(_ descriptor: Int32) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else { return data }
        data.append(contentsOf: buffer[0..<got])
    }
}

/// Writes a synthetic variant into `folder` and returns its path.
func writeVariant(_ name: String, in folder: TemporaryFolder, extension ext: String? = nil) throws -> String {
    let options = try XCTUnwrap(FixtureOptions.variant(name), "unknown variant \(name)")
    let suffix = ext ?? (options.flavour == .mp4 ? "mp4" : "mov")
    return try FixtureBuilder(options).write(to: folder.path("\(name).\(suffix)"))
}

/// SHA-256-free fingerprint of a file's bytes for "unchanged" checks in tests.
func fileBytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

/// What an independent tool answered about a file, kept for this test process while the file is unchanged
/// (same size and modification time): the trim proofs ask ffmpeg for the same source frames, PCM and
/// start times once per piece. The answer is the tool's, only not asked for again.
final class ToolAnswers: @unchecked Sendable {
    static let shared = ToolAnswers()
    private let lock = NSLock()
    private var answers: [String: Any] = [:]

    func answer<T>(about path: String, _ question: [String], _ ask: () throws -> T) throws -> T {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
        let key = ([path, String(size), String(modified)] + question).joined(separator: "\u{1}")
        if let known = lock.withLock({ answers[key] }) as? T { return known }
        let value = try ask()
        lock.withLock { answers[key] = value }
        return value
    }
}

/// The static FFmpeg 9.0.2 that `make setup` unpacks from the pinned imageio-ffmpeg wheel into
/// `.deps/ffmpeg9`: an independent decoder where Debian's 5.1 falls short (an audio edit's end cut inside
/// a packet; both views of MV-HEVC). Pass `NewerFFmpeg.path` to `runTool` and friends.
enum NewerFFmpeg {
    static let path: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".deps/ffmpeg9/ffmpeg").path
    }()

    /// The path, or a skip (a failure in CI) when setup has not fetched it.
    static func require() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw unavailable("the static FFmpeg 9.0.2 is not at \(path): run `make setup`")
        }
        return path
    }
}
