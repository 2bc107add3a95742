import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// What a crash or a full disk can leave behind, shown with the built binary in child processes:
/// a destination is absent or complete, the input never changes, `fix --in-place` interrupted
/// between tracks leaves a valid movie, and a full disk is exit 74 with no output.
final class CrashSafetyTests: XCTestCase {
    /// ~25 MB of real (non-sparse) bytes, both audio tracks enabled (so `fix` changes it), a
    /// spatial track with its fallback (so `strip-spatial` does): writing it takes tens of ms, long
    /// enough for kills to land before, during and after the write (the kill times scale with the run).
    static func largeInput(in folder: TemporaryFolder) throws -> String {
        var options = FixtureOptions.variant("both-enabled")!
        options.duration = 4
        options.sparseVideo = true
        options.videoFrameBytes = 200_000
        let sparse = try FixtureBuilder(options).write(to: folder.path("sparse.mov"))
        let full = folder.path("input.mov")
        XCTAssertEqual(try XCTUnwrap(runTool("cp", ["--sparse=never", sparse, full])).code, 0)
        try FileManager.default.removeItem(atPath: sparse)
        return full
    }

    /// The uninterrupted result of each command is a correct file (opens, ffprobe reads every
    /// stream, samples identical to the input's, lint clean for fix and strip-spatial).
    static func assertCorrectResult(_ path: String, of command: String, input: String) throws {
        let movie = try Movie.open(path: path)
        let streams = try GroupCheck.probe(path)
        XCTAssertEqual(streams.count, movie.tracks.count, "\(command): ffprobe streams")
        try GroupCheck.assertSamplesIdentical(input, path, tracks: movie.tracks.map(\.id))
        switch command {
        case "remux":
            XCTAssertEqual(movie.tracks.map(\.id), try Movie.open(path: input).tracks.map(\.id))
        case "fix":
            XCTAssertEqual(Linter.lint(movie).filter { $0.severity == .error }.map(\.rule.id), [])
        default:
            XCTAssertFalse(movie.tracks.contains(where: \.isSpatialAudio), "strip-spatial left a spatial track")
            XCTAssertEqual(Linter.lint(movie).filter { $0.severity == .error }.map(\.rule.id), [])
        }
    }

    /// SIGKILL at a random moment (uniform over 0 to 1.2× an uninterrupted run), 20 times per
    /// command: the destination is absent or byte-identical to the uninterrupted result; nothing else
    /// remains (the output is an anonymous O_TMPFILE until it is linked in; only on a file system
    /// without O_TMPFILE may a hidden `.NAME.keeptrack-XXXXXX` remain, as SIGKILL cannot be caught);
    /// the input's hash never changes.
    func testKillNineAtRandomPointsLeavesNoPartialDestination() throws {
        let folder = TemporaryFolder()
        let input = try Self.largeInput(in: folder)
        let inputHash = try RemuxProcessTests.sha256sum(input)
        let probe = try OutputFile(destination: folder.path("probe.mov"), overwrite: false)
        let anonymousTemporaries = probe.isAnonymous
        probe.discard()
        for command in ["remux", "fix", "strip-spatial"] {
            let reference = folder.path("reference-\(command).mov")
            let started = Date()
            let result = try ChildProcess.run([command, input, reference])
            let duration = Date().timeIntervalSince(started)
            XCTAssertEqual(result.code, 0, "\(command): \(result.out)")
            try Self.assertCorrectResult(reference, of: command, input: input)
            var absent = 0, complete = 0
            let output = folder.path("out.mov")
            for _ in 0..<20 {
                let process = try ChildProcess.start([command, input, output])
                usleep(UInt32.random(in: 0...UInt32(duration * 1.2 * 1_000_000)))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                if FileManager.default.fileExists(atPath: output) {
                    XCTAssertTrue(try ChildProcess.identical(output, reference), "\(command): a destination differs from the uninterrupted result")
                    complete += 1
                    try FileManager.default.removeItem(atPath: output)
                } else {
                    absent += 1
                }
                let leftovers = try RemuxProcessTests.temporaryFiles(in: folder)
                if anonymousTemporaries {
                    XCTAssertEqual(leftovers, [], "\(command): SIGKILL left files behind")
                } else {
                    XCTAssertTrue(leftovers.allSatisfy { $0.hasPrefix(".out.mov.keeptrack-") }, "\(command): \(leftovers)")
                }
                for name in leftovers { try FileManager.default.removeItem(atPath: folder.path(name)) }
            }
            XCTAssertGreaterThan(absent, 0, "\(command): no kill landed before the end (run took \(duration) s)")
            print("\(command): uninterrupted \(String(format: "%.3f", duration)) s; after SIGKILL \(absent) absent, \(complete) complete")
            XCTAssertEqual(try RemuxProcessTests.sha256sum(input), inputHash, "\(command) changed its input")
        }
    }

    /// `remux --force` over an existing file, stopped by SIGKILL, SIGTERM or SIGINT at random moments
    /// (uniform over 0 to 1.2× an uninterrupted run): the destination is always whole, byte-identical
    /// either to the file it replaces or to the uninterrupted result, never a mix or a truncation; no
    /// temporary name remains (the anonymous file gets a hidden name only for the instant between its
    /// linkat and the rename over the destination).
    func testForcedReplacementInterruptedIsOldOrNewFile() throws {
        let folder = TemporaryFolder()
        let input = try Self.largeInput(in: folder)
        let old = folder.path("old.mov")
        XCTAssertEqual(try ChildProcess.run(["fix", input, old]).code, 0)
        let reference = folder.path("reference.mov")
        let started = Date()
        XCTAssertEqual(try ChildProcess.run(["remux", input, reference]).code, 0)
        let duration = Date().timeIntervalSince(started)
        XCTAssertFalse(try ChildProcess.identical(old, reference), "the old and new files must differ")
        let output = folder.path("out.mov")
        var outcomes = ["old": 0, "new": 0]
        for round in 0..<24 {
            let signalNumber = [SIGKILL, SIGTERM, SIGINT][round % 3]
            if try !FileManager.default.fileExists(atPath: output) || !ChildProcess.identical(output, old) {
                try? FileManager.default.removeItem(atPath: output)
                try FileManager.default.copyItem(atPath: old, toPath: output)
            }
            let process = try ChildProcess.start(["remux", input, output, "--force"])
            usleep(UInt32.random(in: 0...UInt32(duration * 1.2 * 1_000_000)))
            kill(process.processIdentifier, signalNumber)
            process.waitUntilExit()
            if try ChildProcess.identical(output, old) {
                outcomes["old", default: 0] += 1
            } else {
                XCTAssertTrue(try ChildProcess.identical(output, reference), "signal \(signalNumber): the destination is neither the old nor the new file")
                outcomes["new", default: 0] += 1
            }
            let leftovers = try RemuxProcessTests.temporaryFiles(in: folder)
            XCTAssertEqual(leftovers, [], "signal \(signalNumber): left behind")
            for name in leftovers { try FileManager.default.removeItem(atPath: folder.path(name)) }
        }
        XCTAssertGreaterThan(outcomes["old"] ?? 0, 0, "no signal landed before the commit (run took \(duration) s)")
        print("remux --force: uninterrupted \(String(format: "%.3f", duration)) s; after a signal \(outcomes)")
    }

    /// A movie whose `fix` needs patches in two groups and both directions: group 1 has AAC
    /// disabled, APAC and a metadata track enabled (AAC, the fallback, must be enabled and the
    /// other two disabled); group 2 has two metadata tracks enabled (one must be disabled).
    static func twoGroupInput(in folder: TemporaryFolder) throws -> String {
        var options = FixtureOptions.variant("spatial-enabled")!
        options.metadataTracks = 3
        let built = try FixtureBuilder(options).write(to: folder.path("built.mov"))
        let metadataIDs = try Movie.open(path: built).tracks.filter { $0.kind == .metadata }.map(\.id).sorted()
        XCTAssertEqual(metadataIDs.count, 3)
        let path = folder.path("two-groups.mov")
        try TrackHeaderEditor.rewrite(built, to: path) { track, header in
            guard let index = metadataIDs.firstIndex(of: track.id) else { return }
            header.alternateGroup = index == 0 ? 1 : 2
            header.isEnabled = true
        }
        return path
    }

    /// Every prefix of the in-place patches (what a kill between tracks leaves) is a movie that
    /// opens, differs from the source only in the patched flag bytes, never leaves a group that had
    /// an enabled track with none, and becomes the fully fixed file when `fix --in-place` runs again.
    func testEveryPrefixOfInPlacePatchesIsValid() throws {
        let folder = TemporaryFolder()
        let source = try Self.twoGroupInput(in: folder)
        let movie = try Movie.open(path: source)
        let patches = GroupFix.inPlacePatches(GroupFix.plan(movie), for: movie)
        XCTAssertEqual(patches.map { $0.new[2] & 1 }, [1, 0, 0, 0], "one enable then three disables")
        let sourceBytes = try fileBytes(source)
        let fixed = folder.path("fixed.mov")
        try FileManager.default.copyItem(atPath: source, toPath: fixed)
        try GroupFix.applyInPlace(GroupFix.plan(movie), to: movie, path: fixed)
        XCTAssertEqual(Linter.lint(try Movie.open(path: fixed)).filter { [.multipleEnabled, .noneEnabled].contains($0.rule) }.count, 0)
        for count in 0...patches.count {
            let partial = folder.path("partial-\(count).mov")
            try FileManager.default.copyItem(atPath: source, toPath: partial)
            try GroupFix.write(Array(patches.prefix(count)), to: partial)
            var expected = sourceBytes
            for patch in patches.prefix(count) { expected.replaceSubrange(Int(patch.offset)..<Int(patch.offset) + 3, with: patch.new) }
            XCTAssertEqual(try fileBytes(partial), expected, "prefix \(count): only flag bytes change")
            let opened = try Movie.open(path: partial)
            for group in opened.alternateGroups {
                XCTAssertFalse(group.tracks.filter(\.isEnabled).isEmpty, "prefix \(count): group \(group.id) has no enabled track")
            }
            XCTAssertEqual(runCLI(["fix", "--in-place", partial]).code, 0, "prefix \(count)")
            XCTAssertEqual(try fileBytes(partial), try fileBytes(fixed), "prefix \(count): running fix again finishes the job")
        }
    }

    /// The same with a real SIGKILL: the test hook pauses after each patch, the process is killed
    /// after the first one reached the file, and the file opens and is completed by a second run.
    func testFixInPlaceKilledBetweenTracksLeavesValidFile() throws {
        let folder = TemporaryFolder()
        let path = try Self.twoGroupInput(in: folder)
        let movie = try Movie.open(path: path)
        let patches = GroupFix.inPlacePatches(GroupFix.plan(movie), for: movie)
        XCTAssertGreaterThan(patches.count, 1)
        let process = try ChildProcess.start(["fix", "--in-place", path], environment: ["KEEPTRACK_TEST_PAUSE_BETWEEN_PATCHES_MS": "5000"])
        func bytes(at patch: GroupFix.FlagPatch) throws -> [UInt8] { try FileByteSource(path: path).read(at: patch.offset, count: 3) }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, try bytes(at: patches[0]) != patches[0].new { usleep(2000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(try bytes(at: patches[0]), patches[0].new, "the first patch reached the file")
        for patch in patches.dropFirst() { XCTAssertEqual(try bytes(at: patch), patch.old, "killed before track \(patch.trackID)") }
        let interrupted = try Movie.open(path: path)
        XCTAssertEqual(interrupted.tracks.count, movie.tracks.count)
        XCTAssertEqual(try GroupCheck.probe(path).count, movie.tracks.count, "ffprobe reads the interrupted file")
        let again = try ChildProcess.run(["fix", "--in-place", path])
        XCTAssertEqual(again.code, 0, again.out)
        XCTAssertEqual(Linter.lint(try Movie.open(path: path)).filter { [.multipleEnabled, .noneEnabled].contains($0.rule) }.count, 0)
    }

    /// A 1 MiB tmpfs as the destination's disk (RLIMIT_FSIZE where mounting is not allowed):
    /// remux, fix, strip-spatial and extract exit 74 naming the problem and leave nothing there.
    func testFullDiskIsExit74WithNoPartialOutput() throws {
        let folder = TemporaryFolder()
        var options = FixtureOptions.variant("both-enabled")!
        options.videoFrameBytes = 100_000
        let input = try FixtureBuilder(options).write(to: folder.path("in.mov"))
        let videoID = try XCTUnwrap(try Movie.open(path: input).tracks.first { $0.kind == .video }).id
        let disk = folder.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = try XCTUnwrap(runTool("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk])).code == 0
        defer { if mounted { _ = runTool("umount", [disk]) } }
        // Without a mount: 1024 blocks of 1 KiB make writes past 1 MiB fail with EFBIG.
        let limit = mounted ? "" : "ulimit -f 1024;"
        let commands: [[String]] = [["remux", input], ["fix", input], ["strip-spatial", input], ["extract", input, "--track", "\(videoID)"]]
        for command in commands {
            let output = disk + "/out.mov"
            let result = try ChildProcess.run(command + [output], prefix: limit)
            XCTAssertEqual(result.code, 74, "\(command[0]) (\(mounted ? "tmpfs" : "ulimit")): \(result.out)")
            XCTAssertTrue(result.out.contains(mounted ? "no space left" : "file too large"), result.out)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk), [], "\(command[0]) left files")
        }
        // The same commands fit on a normal disk.
        for command in commands {
            let result = try ChildProcess.run(command + [folder.path("ok-\(command[0]).mov")])
            XCTAssertEqual(result.code, 0, "\(command[0]): \(result.out)")
        }
    }
}
