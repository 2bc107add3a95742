import XCTest
@testable import KeepTrackCLI
import KeepTrackMediaCLI

final class CommandLineTests: XCTestCase {
    func testUnknownOptionIsUsageErrorWithHint() {
        let result = runCLI(["inspect", "--jsno", "x.mov"])
        XCTAssertEqual(result.code, 64)
        XCTAssertTrue(result.error.contains("did you mean '--json'"), result.error)
    }

    func testUnknownCommandHints() {
        let result = runCLI(["inspekt"])
        XCTAssertEqual(result.code, 64)
        XCTAssertTrue(result.error.contains("did you mean 'inspect'"), result.error)
    }

    func testMissingArgumentIsUsageError() {
        XCTAssertEqual(runCLI(["inspect"]).code, 64)
        XCTAssertEqual(runCLI(["remux", "only-one"]).code, 64)
    }

    func testHelpAndVersion() {
        XCTAssertEqual(runCLI(["--version"]).out, "keeptrack \(KeepTrackCommandLine.version)\n")
        for command in MediaCommandLine.commands {
            let help = runCLI([command.name, "--help"])
            XCTAssertEqual(help.code, 0)
            XCTAssertTrue(help.out.contains("Usage: keeptrack \(command.name)"), command.name)
            XCTAssertEqual(runCLI(["help", command.name]).out, help.out)
        }
        XCTAssertTrue(runCLI(["help"]).out.contains("inspect"))
    }

    func testValueOptionForms() throws {
        let spec = CommandSpec(name: "t", summary: "", arguments: "A", positionals: 1...1,
                               options: [.value(.size, short: "s", "WxH", ""), .flag(.force, "")]) { _, _ in 0 }
        let a = try ArgumentParser.parse(["--size=2x3", "in"], for: spec)
        XCTAssertEqual(a.value(.size), "2x3")
        let b = try ArgumentParser.parse(["-s", "4x5", "--force", "--", "-in"], for: spec)
        XCTAssertEqual(b.value(.size), "4x5")
        XCTAssertTrue(b.flag(.force))
        XCTAssertEqual(b.positionals, ["-in"])
        XCTAssertThrowsError(try ArgumentParser.parse(["in", "--size"], for: spec))
        XCTAssertThrowsError(try ArgumentParser.parse(["--force=yes", "in"], for: spec))
    }

    func testDemoRuns() throws {
        let folder = TemporaryFolder()
        let result = runCLI(["demo", "--keep", folder.path("demo")])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("Alternate group 1"))
        XCTAssertTrue(result.out.contains("plays track 2"))
        // Before/after with real AAC: both enabled measures the coherent sum, +6.02 dB over the fixed file.
        XCTAssertTrue(result.out.contains("+6.02") && result.out.contains("ECHO RISK"), result.out)
        XCTAssertFalse(result.error.contains("[aac @"), "libavcodec logs stay quiet: \(result.error)")
        // The main jobs: reframe and transcode of the rendered scene, each compared with it. What the demo
        // says is checked by ffprobe: the audio packets of both outputs are the scene's, the video is not.
        let kept = "Tracks that differ: 1 (video); audio tracks identical, flags and group included: 2 of 2 (2, 3)."
        XCTAssertEqual(result.out.components(separatedBy: kept).count - 1, 2, result.out)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path("demo/vertical.png")))
        let scene = try FFprobe.probe(folder.path("demo/scene.mov"))
        for output in ["vertical.mov", "smaller.mov"] {
            let probed = try FFprobe.probe(folder.path("demo/\(output)"))
            XCTAssertEqual(probed.streams.count, scene.streams.count, output)
            for (a, b) in zip(scene.streams, probed.streams) where a.codecType == "audio" {
                FFprobe.assertSamePackets(a, b, output)
            }
            XCTAssertNotEqual(scene.streams[0].packets.map(\.hash), probed.streams[0].packets.map(\.hash), output)
        }
    }

    /// The slim `keeptrack` lists the media commands by name and summary; they must match the real specs.
    func testMediaSummariesMatchTheMediaCommands() {
        let media = MediaCommandLine.commands.filter { spec in !KeepTrackCommandLine.coreCommands.contains { $0.name == spec.name } }
        XCTAssertEqual(media.map(\.name), KeepTrackCommandLine.mediaCommandSummaries.map(\.name))
        XCTAssertEqual(media.map(\.summary), KeepTrackCommandLine.mediaCommandSummaries.map(\.summary))
    }

    func testDelegationChoosesMediaCommandsOnly() {
        XCTAssertTrue(MediaDelegation.needsMedia(["levels", "a.mov"]))
        XCTAssertTrue(MediaDelegation.needsMedia(["help", "reframe"]))
        XCTAssertTrue(MediaDelegation.needsMedia(["compare", "a", "b", "--levels"]))
        XCTAssertFalse(MediaDelegation.needsMedia(["compare", "a", "b"]))
        XCTAssertFalse(MediaDelegation.needsMedia(["compare", "--", "--levels", "b"]))
        XCTAssertFalse(MediaDelegation.needsMedia(["inspect", "levels"]))
        XCTAssertFalse(MediaDelegation.needsMedia([]))
    }

    /// The real executables: `keeptrack` links no codec library and hands media commands to `keeptrack-media`.
    func testSlimExecutableHandsMediaCommandsOver() throws {
        let keeptrack = try RemuxProcessTests.binary()
        let libraries = try XCTUnwrap(runTool("ldd", [keeptrack])).out
        XCTAssertFalse(libraries.contains("libavcodec"), libraries)
        XCTAssertFalse(libraries.contains("facedetection"), libraries)
        let help = try XCTUnwrap(runTool(keeptrack, ["levels", "--help"]))
        XCTAssertEqual(help.code, 0)
        XCTAssertTrue(help.out.contains("Usage: keeptrack levels"), help.out)
        let overview = try XCTUnwrap(runTool(keeptrack, ["help"]))
        for command in KeepTrackCommandLine.mediaCommandSummaries { XCTAssertTrue(overview.out.contains("  \(command.name) "), command.name) }
        let folder = TemporaryFolder()
        let sample = try writeVariant("iphone", in: folder)
        let levels = try XCTUnwrap(runTool(keeptrack, ["levels", "--json", sample]))
        XCTAssertEqual(levels.code, 65, "synthetic payloads are not decodable AAC: the media binary must report it as malformed")
    }
}
