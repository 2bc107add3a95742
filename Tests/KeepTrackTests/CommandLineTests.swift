import XCTest
@testable import KeepTrackCLI

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
        for command in KeepTrackCommandLine.commands {
            let help = runCLI([command.name, "--help"])
            XCTAssertEqual(help.code, 0)
            XCTAssertTrue(help.out.contains("Usage: keeptrack \(command.name)"), command.name)
            XCTAssertEqual(runCLI(["help", command.name]).out, help.out)
        }
        XCTAssertTrue(runCLI(["help"]).out.contains("inspect"))
    }

    func testValueOptionForms() throws {
        let spec = CommandSpec(name: "t", summary: "", arguments: "A", positionals: 1...1,
                               options: [.value("size", short: "s", "WxH", ""), .flag("force", "")]) { _, _ in 0 }
        let a = try ArgumentParser.parse(["--size=2x3", "in"], for: spec)
        XCTAssertEqual(a.value("size"), "2x3")
        let b = try ArgumentParser.parse(["-s", "4x5", "--force", "--", "-in"], for: spec)
        XCTAssertEqual(b.value("size"), "4x5")
        XCTAssertTrue(b.flag("force"))
        XCTAssertEqual(b.positionals, ["-in"])
        XCTAssertThrowsError(try ArgumentParser.parse(["in", "--size"], for: spec))
        XCTAssertThrowsError(try ArgumentParser.parse(["--force=yes", "in"], for: spec))
    }

    func testDemoRuns() {
        let result = runCLI(["demo"])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("Alternate group 1"))
        XCTAssertTrue(result.out.contains("plays track 2"))
        // Before/after with real AAC: both enabled measures the coherent sum, +6.02 dB over the fixed file.
        XCTAssertTrue(result.out.contains("+6.02") && result.out.contains("ECHO RISK"), result.out)
        XCTAssertFalse(result.error.contains("[aac @"), "libavcodec logs stay quiet: \(result.error)")
    }
}
