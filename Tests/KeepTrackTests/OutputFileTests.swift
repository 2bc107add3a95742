import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// The atomic commit on its own, for both kinds of temporary (the anonymous O_TMPFILE this machine's
/// file systems have, and the named fallback used where they lack it): what a commit, a refusal, a
/// replacement and a discard leave in the folder; the library installs no signal handler, the CLI does.
final class OutputFileTests: XCTestCase {
    static let kinds: [AtomicFile.Kind] = [.anonymous, .named]

    /// The names in `folder`, hidden ones included.
    static func contents(_ folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, path)
        return info.st_mode & 0o7777
    }

    static func inode(_ path: String) -> ino_t {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, path)
        return info.st_ino
    }

    /// A new destination: while open, the only thing in the folder is the named temporary (registered
    /// for the signal cleanup) or nothing at all (anonymous); after the commit, the destination with
    /// the bytes and the mode any new file gets (0666 less the umask), and nothing else.
    func testCommitLeavesOnlyTheDestination() throws {
        for kind in Self.kinds {
            let folder = TemporaryFolder()
            let destination = folder.path("out.mov")
            let output = try OutputFile(destination: destination, overwrite: false, inputs: [], kind: kind)
            XCTAssertEqual(output.isAnonymous, kind == .anonymous, "this file system has O_TMPFILE")
            try output.write(Array("first ".utf8))
            try output.write(Array("second".utf8))
            let during = try Self.contents(folder)
            if kind == .anonymous {
                XCTAssertEqual(during, [])
                XCTAssertFalse(TemporaryFileRegistry.shared.registeredPaths.contains { $0.hasPrefix(folder.url.path) })
            } else {
                XCTAssertEqual(during.count, 1)
                XCTAssertTrue(during[0].hasPrefix(".out.mov.keeptrack-"), "\(during)")
                XCTAssertTrue(TemporaryFileRegistry.shared.registeredPaths.contains(folder.path(during[0])))
            }
            XCTAssertEqual(try String(contentsOfFile: output.temporaryPath, encoding: .utf8), "first second", "\(kind)")
            try output.commit()
            XCTAssertEqual(try Self.contents(folder), ["out.mov"], "\(kind)")
            XCTAssertEqual(try String(contentsOfFile: destination, encoding: .utf8), "first second")
            XCTAssertEqual(Self.mode(destination), AtomicFile.newFileMode, "\(kind)")
            XCTAssertFalse(TemporaryFileRegistry.shared.registeredPaths.contains { $0.hasPrefix(folder.url.path) })
        }
    }

    /// Without `overwrite` an existing destination is refused (exit 73) before anything is created, and
    /// so is one that appears while the output is written: that file keeps its bytes, the temporary goes.
    func testExistingDestinationRefusedEvenWhenItAppearsDuringTheWrite() throws {
        for kind in Self.kinds {
            let folder = TemporaryFolder()
            let destination = folder.path("out.mov")
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: destination))
            XCTAssertThrowsError(try OutputFile(destination: destination, overwrite: false, inputs: [], kind: kind)) { error in
                XCTAssertEqual((error as? KeepTrackError)?.exitCode, 73, "\(error)")
                XCTAssertEqual("\(error)", "\(destination) already exists", "no CLI option named by the library")
            }
            try FileManager.default.removeItem(atPath: destination)
            let output = try OutputFile(destination: destination, overwrite: false, inputs: [], kind: kind)
            try output.write(Array("ours".utf8))
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: destination))
            XCTAssertThrowsError(try OutputFile.write(output) { _ in }) { error in
                guard case KeepTrackError.outputExists(let path)? = error as? KeepTrackError else { return XCTFail("\(kind): \(error)") }
                XCTAssertEqual(path, destination)
            }
            XCTAssertEqual(try String(contentsOfFile: destination, encoding: .utf8), "theirs", "\(kind)")
            XCTAssertEqual(try Self.contents(folder), ["out.mov"], "\(kind): temporary left")
        }
    }

    /// With `overwrite` the old file is replaced in one step (a rename): a reader holding the old file
    /// open still reads all of its bytes (it was not truncated or written over), the name now holds a
    /// new inode with the new bytes, and no temporary name remains.
    func testReplacementIsARenameNotAnOverwrite() throws {
        for kind in Self.kinds {
            let folder = TemporaryFolder()
            let destination = folder.path("out.mov")
            let old = Data((0..<100_000).map { UInt8($0 % 251) })
            try old.write(to: URL(fileURLWithPath: destination))
            let oldInode = Self.inode(destination)
            let reader = try XCTUnwrap(FileHandle(forReadingAtPath: destination))
            defer { try? reader.close() }
            try OutputFile.write(to: destination, overwrite: true) { _ in } // an empty output works too
            try OutputFile(destination: destination, overwrite: true, inputs: [], kind: kind).discard()
            XCTAssertEqual(try Self.contents(folder), ["out.mov"], "\(kind): discard left something")
            let output = try OutputFile(destination: destination, overwrite: true, inputs: [], kind: kind)
            try output.write(Array("new".utf8))
            try OutputFile.write(output) { _ in }
            XCTAssertEqual(try String(contentsOfFile: destination, encoding: .utf8), "new", "\(kind)")
            XCTAssertNotEqual(Self.inode(destination), oldInode)
            XCTAssertEqual(try reader.readToEnd(), old, "\(kind): the old file was changed in place")
            XCTAssertEqual(try Self.contents(folder), ["out.mov"], "\(kind): temporary left")
        }
    }

    /// A body that throws leaves nothing: no destination, no temporary, nothing registered.
    func testThrowingBodyDiscards() throws {
        struct Stop: Error {}
        for kind in Self.kinds {
            let folder = TemporaryFolder()
            let output = try OutputFile(destination: folder.path("out.mov"), overwrite: false, inputs: [], kind: kind)
            XCTAssertThrowsError(try OutputFile.write(output) { file in
                try file.write([UInt8](repeating: 1, count: 1 << 20))
                throw Stop()
            })
            XCTAssertEqual(try Self.contents(folder), [], "\(kind)")
            XCTAssertFalse(TemporaryFileRegistry.shared.registeredPaths.contains { $0.hasPrefix(folder.url.path) })
        }
    }

    /// The signal dispositions a library must not touch: SIGINT, SIGTERM, SIGHUP, SIGXFSZ.
    static let guardedSignals = [SIGINT, SIGTERM, SIGHUP, SIGXFSZ]

    static func dispositions() -> [String] {
        guardedSignals.map { number in
            var current = sigaction()
            sigaction(number, nil, &current)
            return "\(number): \(unsafeBitCast(current.__sigaction_handler.sa_handler, to: UInt.self))"
        }
    }

    /// Bit `number - 1` of a `/proc/PID/status` signal mask line (SigCgt caught, SigIgn ignored).
    static func maskHas(_ status: String, _ field: String, _ number: Int32) throws -> Bool {
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        let mask = try XCTUnwrap(UInt64(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces), radix: 16))
        return mask & (1 << UInt64(number - 1)) != 0
    }

    /// This test process uses the library as any program would: writing outputs of both kinds, a
    /// movie through MovieOutput and a command run in-process leave every signal disposition as it was.
    /// The keeptrack executable opts in: while it runs, /proc shows SIGINT/SIGTERM/SIGHUP caught and
    /// SIGXFSZ ignored.
    func testLibraryInstallsNoSignalHandlersTheExecutableDoes() throws {
        let before = Self.dispositions()
        let folder = TemporaryFolder()
        for kind in Self.kinds {
            try OutputFile.write(OutputFile(destination: folder.path("\(kind).bin"), overwrite: false, inputs: [], kind: kind)) { try $0.write([1, 2, 3]) }
        }
        let movie = try FixtureBuilder().write(to: folder.path("in.mov"))
        XCTAssertEqual(runCLI(["remux", movie, folder.path("remuxed.mov")]).code, 0)
        XCTAssertEqual(Self.dispositions(), before, "the library changed a signal disposition")
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for number in [SIGINT, SIGTERM, SIGHUP] where before.contains("\(number): 0") {
            XCTAssertFalse(try Self.maskHas(status, "SigCgt", number), "signal \(number) caught")
        }

        // The executable, paused between the patches of `fix --in-place` (its debug-build test hook).
        let path = try CrashSafetyTests.twoGroupInput(in: folder)
        let process = try ChildProcess.start(["fix", "--in-place", path], environment: ["KEEPTRACK_TEST_PAUSE_BETWEEN_PATCHES_MS": "5000"])
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        // The handlers are installed before any argument is read; wait until the first patch landed.
        let movieBefore = try Movie.open(path: path)
        let first = try XCTUnwrap(GroupFix.inPlacePatches(GroupFix.plan(movieBefore), for: movieBefore).first)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, try FileByteSource(path: path).read(at: first.offset, count: 3) != first.new { usleep(2000) }
        let child = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        for number in [SIGINT, SIGTERM, SIGHUP] { XCTAssertTrue(try Self.maskHas(child, "SigCgt", number), "keeptrack: signal \(number) not caught") }
        XCTAssertTrue(try Self.maskHas(child, "SigIgn", SIGXFSZ), "keeptrack: SIGXFSZ not ignored")
    }

    /// The named fallback under a signal, in a child process (this test binary run again for this test
    /// alone, so the handlers are installed there and not here): the child opts in like the
    /// executables, starts a named output and waits; after SIGINT, SIGTERM or SIGHUP it died of that
    /// signal and its temporary is gone. Without the opt-in (the library default) SIGTERM leaves it.
    func testNamedTemporaryRemovedOnSignalWhenTheProgramOptsIn() throws {
        let environment = ProcessInfo.processInfo.environment
        if let destination = environment["KEEPTRACK_TEST_SIGNAL_CHILD"] {
            // Child role: never returns (killed by the parent, or exits after 30 s).
            if environment["KEEPTRACK_TEST_SIGNAL_OPT_IN"] == "1" { OutputSignals.installCleanupHandlers() }
            let output = try OutputFile(destination: destination, overwrite: false, inputs: [], kind: .named)
            try output.write(Array("partial".utf8))
            try output.finishWriting()
            sleep(30)
            exit(3)
        }
        let binary = CommandLine.arguments[0]
        guard binary.hasSuffix(".xctest") else { throw unavailable("the test bundle is not an executable here (\(binary))") }
        for (signalNumber, optIn) in [(SIGINT, true), (SIGTERM, true), (SIGHUP, true), (SIGTERM, false)] {
            let folder = TemporaryFolder()
            let destination = folder.path("out.mov")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["KeepTrackTests.OutputFileTests/testNamedTemporaryRemovedOnSignalWhenTheProgramOptsIn"]
            process.environment = environment.merging(["KEEPTRACK_TEST_SIGNAL_CHILD": destination,
                                                       "KEEPTRACK_TEST_SIGNAL_OPT_IN": optIn ? "1" : "0"]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            var temporary: [String] = []
            while Date() < deadline, process.isRunning {
                temporary = try Self.contents(folder)
                if let name = temporary.first, (try? FileManager.default.attributesOfItem(atPath: folder.path(name))[.size] as? Int) == 7 { break }
                usleep(5000)
            }
            XCTAssertEqual(temporary.count, 1, "signal \(signalNumber): the child's temporary never appeared")
            XCTAssertTrue(temporary.allSatisfy { $0.hasPrefix(".out.mov.keeptrack-") }, "\(temporary)")
            kill(process.processIdentifier, signalNumber)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "signal \(signalNumber)")
            XCTAssertEqual(process.terminationStatus, signalNumber)
            XCTAssertEqual(try Self.contents(folder), optIn ? [] : temporary, "signal \(signalNumber), opt-in \(optIn)")
        }
    }

    /// `--force` of an anonymous temporary links it to a hidden name and renames that over the destination.
    /// A child process (this test binary again) is SIGKILLed exactly between the two calls (the library
    /// type's `afterHiddenLink`): the destination is still the old file, and the complete new file is left
    /// under the hidden link name. The next replacement of that destination keeps such a name while it may
    /// belong to a replacement in flight (younger than `abandonedLinkAge`) and removes it after that.
    func testKillBetweenLinkAndRenameLeavesAHiddenNameTheNextReplacementRemoves() throws {
        let environment = ProcessInfo.processInfo.environment
        if let destination = environment["KEEPTRACK_TEST_LINK_KILL_CHILD"] {
            // Child role: dies of SIGKILL inside commit.
            let file = try AtomicFile(destination: destination, overwrite: true, inputs: [], kind: .anonymous)
            guard file.isAnonymous else { exit(4) }
            let bytes = Array("new contents".utf8)
            guard Glibc.write(file.descriptor, bytes, bytes.count) == bytes.count else { exit(5) }
            file.afterHiddenLink = { kill(getpid(), SIGKILL) }
            try file.commit()
            exit(3)
        }
        let binary = CommandLine.arguments[0]
        guard binary.hasSuffix(".xctest") else { throw unavailable("the test bundle is not an executable here (\(binary))") }
        let folder = TemporaryFolder()
        let destination = folder.path("out.mov")
        try Data("old contents".utf8).write(to: URL(fileURLWithPath: destination))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["KeepTrackTests.OutputFileTests/testKillBetweenLinkAndRenameLeavesAHiddenNameTheNextReplacementRemoves"]
        process.environment = environment.merging(["KEEPTRACK_TEST_LINK_KILL_CHILD": destination]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGKILL, "the child must die inside the commit")
        XCTAssertEqual(try String(contentsOfFile: destination, encoding: .utf8), "old contents", "the destination is untouched")
        let left = try Self.contents(folder).filter { $0 != "out.mov" }
        XCTAssertEqual(left.count, 1, "\(left)")
        let hidden = try XCTUnwrap(left.first)
        XCTAssertTrue(hidden.hasPrefix(AtomicFile.hiddenLinkPrefix("out.mov")), hidden)
        XCTAssertEqual(try String(contentsOfFile: folder.path(hidden), encoding: .utf8), "new contents", "the left name holds the whole new file")

        // A replacement now: the hidden name is seconds old and could be another replacement's, so it stays.
        try OutputFile.write(to: destination, overwrite: true) { try $0.write(Array("second".utf8)) }
        XCTAssertEqual(try Self.contents(folder), [hidden, "out.mov"].sorted())
        // Once it is old enough (here: any age) the next replacement removes it, and only it.
        let file = try AtomicFile(destination: destination, overwrite: true, inputs: [], kind: .anonymous)
        file.abandonedLinkAge = 0
        let bytes = Array("third".utf8)
        XCTAssertEqual(Glibc.write(file.descriptor, bytes, bytes.count), bytes.count)
        try file.commit()
        XCTAssertEqual(try Self.contents(folder), ["out.mov"])
        XCTAssertEqual(try String(contentsOfFile: destination, encoding: .utf8), "third")
    }
}
