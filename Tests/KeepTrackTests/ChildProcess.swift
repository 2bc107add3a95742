import Foundation
import XCTest

/// The built `keeptrack` binary run as a child process: what only a real process can show
/// (SIGKILL, full disks, resource limits, exit codes as a shell sees them).
enum ChildProcess {
    /// The binary next to the test bundle (found by the remux process tests).
    static func binary() throws -> String { try RemuxProcessTests.binary() }

    /// Starts `keeptrack arguments` with extra environment variables; output discarded.
    static func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binary())
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs `keeptrack arguments` to the end through bash (`prefix` is shell text run first, e.g.
    /// `ulimit -f 100;`), with stdout and stderr together.
    static func run(_ arguments: [String], prefix: String = "") throws -> (code: Int32, out: String) {
        let script = "\(prefix) exec \"$0\" \"$@\" 2>&1"
        return try XCTUnwrap(runTool("bash", ["-c", script, try binary()] + arguments))
    }

    static func identical(_ a: String, _ b: String) throws -> Bool {
        try XCTUnwrap(runTool("cmp", ["-s", a, b])).code == 0
    }
}
