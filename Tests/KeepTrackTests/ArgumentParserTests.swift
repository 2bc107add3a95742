import XCTest
@testable import KeepTrackCLI
import KeepTrackFixtures

/// The option tables declare each value's type and range; the parser checks them before a command
/// starts, groups short flags (`-rj 2`), and never takes the next option as a value.
final class ArgumentParserTests: XCTestCase {
    let spec = CommandSpec(name: "t", summary: "", arguments: "A...", minimumPositionals: 0, options: [
        .flag("recursive", short: "r", ""),
        .flag("json", ""),
        .value("jobs", short: "j", "N", "", type: .integer(1...256)),
        .value("gain", "DB", "", type: .number(-20...20)),
        .value("prefer", "WHICH", "", type: .choice(["enabled", "stereo", "spatial"])),
        .value("out-dir", short: "o", "DIR", ""),
    ]) { _, _ in 0 }

    func usageMessage(_ arguments: [String]) -> String? {
        do {
            _ = try ArgumentParser.parse(arguments, for: spec)
            return nil
        } catch KeepTrackCLIError.usage(let message) {
            return message
        } catch {
            return "\(error)"
        }
    }

    func testShortOptionsGroup() throws {
        let spaced = try ArgumentParser.parse(["-rj", "2", "in"], for: spec)
        XCTAssertTrue(spaced.flag("recursive"))
        XCTAssertEqual(spaced.integer("jobs"), 2)
        XCTAssertEqual(spaced.positionals, ["in"])
        let attached = try ArgumentParser.parse(["-rj2", "in"], for: spec)
        XCTAssertTrue(attached.flag("recursive"))
        XCTAssertEqual(attached.integer("jobs"), 2)
        XCTAssertEqual(try ArgumentParser.parse(["-j", "3"], for: spec).integer("jobs"), 3)
        // A value option takes the rest of its group: `-jr` asks for `r` jobs.
        XCTAssertEqual(usageMessage(["-jr", "in"]), "--jobs takes a whole number from 1 to 256, not 'r'")
        XCTAssertEqual(usageMessage(["-rx"]), "unknown option '-x' in '-rx' for 't' (its short options: -r, -j, -o)")
    }

    func testValuesAreCheckedWhenParsed() throws {
        XCTAssertEqual(usageMessage(["--jobs", "0"]), "--jobs takes a whole number from 1 to 256, not '0'")
        XCTAssertEqual(usageMessage(["--jobs=many"]), "--jobs takes a whole number from 1 to 256, not 'many'")
        XCTAssertEqual(usageMessage(["--gain", "21"]), "--gain takes a number from -20.0 to 20.0, not '21'")
        XCTAssertEqual(usageMessage(["--prefer", "sterio"]), "--prefer takes one of enabled, stereo, spatial, not 'sterio'; did you mean 'stereo'?")
        let parsed = try ArgumentParser.parse(["--gain", "-3.5", "--prefer", "spatial"], for: spec)
        XCTAssertEqual(parsed.number("gain"), -3.5, "a negative number is a value, not an option")
        XCTAssertEqual(parsed.value("prefer"), "spatial")
    }

    func testAValueNeverSwallowsTheNextOption() throws {
        XCTAssertEqual(usageMessage(["--out-dir", "--json", "in"]), "--out-dir needs a value (DIR), not the option '--json'")
        XCTAssertEqual(usageMessage(["-o", "-r", "in"]), "--out-dir needs a value (DIR), not the option '-r'")
        XCTAssertEqual(usageMessage(["--jobs", "--help"]), "--jobs needs a value (N), not the option '--help'")
        // `-` (standard input) and names that merely start with a dash are values.
        XCTAssertEqual(try ArgumentParser.parse(["--out-dir", "-"], for: spec).value("out-dir"), "-")
        XCTAssertEqual(try ArgumentParser.parse(["--out-dir", "-folder"], for: spec).value("out-dir"), "-folder")
        XCTAssertEqual(try ArgumentParser.parse(["--out-dir=--json"], for: spec).value("out-dir"), "--json", "an attached value is taken as given")
    }

    /// The real commands: `lint -rj 2 DIR`, and typed values refused with 64 before anything is read.
    func testCommandsUseTheirDeclaredTypes() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("tree/sub"), withIntermediateDirectories: true)
        _ = try FixtureBuilder(XCTUnwrap(FixtureOptions.variant("iphone"))).write(to: folder.path("tree/sub/a.mov"))
        let grouped = runCLI(["lint", "-rj", "2", "--json", folder.path("tree")])
        XCTAssertEqual(grouped.code, 0, grouped.error)
        XCTAssertTrue(grouped.out.contains("a.mov"), grouped.out)
        let flat = runCLI(["lint", "-j", "2", folder.path("tree")])
        XCTAssertFalse(flat.out.contains("a.mov"), "without -r the sub-folder is not read: \(flat.out)")
        for (arguments, message) in [
            (["lint", "-j", "0", folder.path("tree")], "--jobs takes a whole number from 1 to 256, not '0'"),
            (["dump", "--depth", "99", "x.mov"], "--depth takes a whole number from 1 to \(48)"),
            (["extract", "in.mov", "out.mov", "--track", "two"], "--track takes a whole number"),
            (["select", "in.mov", "out.mov", "--prefer", "sterio"], "did you mean 'stereo'"),
            (["strip-spatial", "--out-dir", "--force", "in.mov"], "--out-dir needs a value (DIR), not the option '--force'"),
        ] {
            let result = runCLI(arguments)
            XCTAssertEqual(result.code, 64, "\(arguments): \(result.error)")
            XCTAssertTrue(result.error.contains(message), "\(arguments): \(result.error)")
        }
    }
}
