import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Runs the built `keeptrack` binary in a child process: what only a real process can show
/// (signals, resource limits, exit codes as a shell sees them).
final class RemuxProcessTests: XCTestCase {
    /// `.build/<triple>/debug/keeptrack`, next to the test bundle.
    static func binary() throws -> String {
        let candidates = [Bundle.main.bundleURL, Bundle(for: RemuxProcessTests.self).bundleURL,
                          URL(fileURLWithPath: CommandLine.arguments[0])].map { $0.deletingLastPathComponent().appendingPathComponent("keeptrack").path }
        return try XCTUnwrap(candidates.first(where: FileManager.default.isExecutableFile(atPath:)),
                             "keeptrack binary not found next to the test bundle (\(candidates)); run swift build --build-tests")
    }

    /// Hidden temporary outputs (`.NAME.keeptrack-XXXXXX`) left in `folder`.
    static func temporaryFiles(in folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".keeptrack-") }
    }

    static func sha256sum(_ path: String) throws -> String {
        let result = try XCTUnwrap(runTool("sha256sum", [path]))
        return String(result.out.prefix(64))
    }

    /// An input of about 260 MB of real (non-sparse) bytes, so copying it takes long enough to interrupt.
    static func largeInput(in folder: TemporaryFolder) throws -> String {
        var options = FixtureOptions()
        options.duration = 4
        options.sparseVideo = true
        options.videoFrameBytes = 2_000_000
        let sparse = try FixtureBuilder(options).write(to: folder.path("sparse.mov"))
        let full = folder.path("input.mov")
        let copy = try XCTUnwrap(runTool("cp", ["--sparse=never", sparse, full]))
        XCTAssertEqual(copy.code, 0)
        try FileManager.default.removeItem(atPath: sparse)
        return full
    }

    /// RLIMIT_FSIZE (ulimit -f) makes writes fail with EFBIG: exit 74, nothing left behind.
    func testFileSizeLimitIsIOError74() throws {
        let folder = TemporaryFolder()
        var options = FixtureOptions()
        options.videoFrameBytes = 200_000
        let input = try FixtureBuilder(options).write(to: folder.path("in.mov"))
        let output = folder.path("out.mov")
        // 2048 blocks of 1 KiB: the ~14 MB output cannot fit.
        let result = try XCTUnwrap(runTool("bash", ["-c", "ulimit -f 2048; exec \"$0\" remux \"$1\" \"$2\" 2>&1", try Self.binary(), input, output]))
        XCTAssertEqual(result.code, 74, result.out)
        XCTAssertTrue(result.out.contains("I/O error"), result.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        XCTAssertEqual(try Self.temporaryFiles(in: folder), [])
        // Without the limit the same command works.
        let unlimited = try XCTUnwrap(runTool("bash", ["-c", "exec \"$0\" remux \"$1\" \"$2\"", try Self.binary(), input, output]))
        XCTAssertEqual(unlimited.code, 0)
    }

    /// Kills `remux` while it copies samples. The output is an anonymous O_TMPFILE until committed, so
    /// nothing is left in the folder, even after SIGKILL (on a file system without O_TMPFILE the
    /// named temporary is removed by the signal handler for SIGTERM and SIGINT; SIGKILL may leave it).
    /// In every case the input is unchanged and the destination absent.
    func testInterruptedRemuxLeavesNoDestination() throws {
        let folder = TemporaryFolder()
        let input = try Self.largeInput(in: folder)
        let inputHash = try Self.sha256sum(input)
        let inputSize = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: input)[.size] as? UInt64)
        for signalNumber in [SIGTERM, SIGINT, SIGKILL] {
            let output = folder.path("out-\(signalNumber).mov")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Self.binary())
            process.arguments = ["remux", input, output]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Wait until sample data is being copied: the temporary file is past moov but not complete.
            var observedSize: UInt64 = 0
            var anonymous = false
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, process.isRunning {
                var info = stat()
                // stat follows the /proc link to the file itself (attributesOfItem would describe the link).
                if let file = Self.outputBeingWritten(by: process.processIdentifier, in: folder), stat(file.path, &info) == 0, info.st_size > 4 << 20 {
                    observedSize = UInt64(info.st_size)
                    anonymous = file.anonymous
                    break
                }
                usleep(1000)
            }
            kill(process.processIdentifier, signalNumber)
            process.waitUntilExit()
            XCTAssertGreaterThan(observedSize, 0, "signal \(signalNumber): never saw the copy underway")
            XCTAssertLessThan(observedSize, inputSize, "signal \(signalNumber): copy had finished before the kill")
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "signal \(signalNumber)")
            XCTAssertEqual(process.terminationStatus, signalNumber)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), "signal \(signalNumber): destination exists")
            let leftovers = try Self.temporaryFiles(in: folder)
            if anonymous {
                XCTAssertEqual(leftovers, [], "signal \(signalNumber): files left behind")
            } else if signalNumber == SIGKILL {
                XCTAssertLessThanOrEqual(leftovers.count, 1)
                XCTAssertTrue(leftovers.allSatisfy { $0.hasPrefix(".out-\(signalNumber).mov.keeptrack-") }, "\(leftovers)")
                for name in leftovers { try FileManager.default.removeItem(atPath: folder.path(name)) }
            } else {
                XCTAssertEqual(leftovers, [], "signal \(signalNumber): temporary file left")
            }
        }
        XCTAssertEqual(try Self.sha256sum(input), inputHash)
    }

    /// The file `pid` is writing in `folder`, seen through /proc: an anonymous O_TMPFILE shows as
    /// `FOLDER/#INODE (deleted)`, the named fallback as `FOLDER/.NAME.keeptrack-XXXXXX`.
    static func outputBeingWritten(by pid: Int32, in folder: TemporaryFolder) -> (path: String, anonymous: Bool)? {
        let descriptors = "/proc/\(pid)/fd"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + name),
                  target.hasPrefix(folder.url.path + "/") else { continue }
            let file = String(target.dropFirst(folder.url.path.count + 1))
            if file.hasPrefix("#") && file.hasSuffix(" (deleted)") { return (descriptors + "/" + name, true) }
            if file.hasPrefix(".") && file.contains(".keeptrack-") { return (descriptors + "/" + name, false) }
        }
        return nil
    }
}
