import XCTest
@testable import KeepTrackCLI
import KeepTrackFixtures
import KeepTrackMediaCLI

/// The option tables declare each value's type and range; the parser checks them before a command
/// starts, groups short flags (`-rj 2`), and never takes the next option as a value.
final class ArgumentParserTests: XCTestCase {
    static let gain = OptionKey<Double>("gain")
    let spec = CommandSpec(name: "t", summary: "", arguments: "A...", minimumPositionals: 0, options: [
        .flag(.recursive, short: "r", ""),
        .flag(.json, ""),
        .value(.jobs, short: "j", "N", "", range: 1...256),
        .value(gain, "DB", "", range: -20...20),
        .value(.prefer, "WHICH", "", choices: ["enabled", "stereo", "spatial"]),
        .value(.outDir, short: "o", "DIR", ""),
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
        XCTAssertTrue(spaced.flag(.recursive))
        XCTAssertEqual(spaced.value(.jobs), 2)
        XCTAssertEqual(spaced.positionals, ["in"])
        let attached = try ArgumentParser.parse(["-rj2", "in"], for: spec)
        XCTAssertTrue(attached.flag(.recursive))
        XCTAssertEqual(attached.value(.jobs), 2)
        XCTAssertEqual(try ArgumentParser.parse(["-j", "3"], for: spec).value(.jobs), 3)
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
        XCTAssertEqual(parsed.value(Self.gain), -3.5, "a negative number is a value, not an option")
        XCTAssertEqual(parsed.value(.prefer), "spatial")
    }

    func testAValueNeverSwallowsTheNextOption() throws {
        XCTAssertEqual(usageMessage(["--out-dir", "--json", "in"]), "--out-dir needs a value (DIR), not the option '--json'")
        XCTAssertEqual(usageMessage(["-o", "-r", "in"]), "--out-dir needs a value (DIR), not the option '-r'")
        XCTAssertEqual(usageMessage(["--jobs", "--help"]), "--jobs needs a value (N), not the option '--help'")
        // `-` (standard input) and names that merely start with a dash are values.
        XCTAssertEqual(try ArgumentParser.parse(["--out-dir", "-"], for: spec).value(.outDir), "-")
        XCTAssertEqual(try ArgumentParser.parse(["--out-dir", "-folder"], for: spec).value(.outDir), "-folder")
        XCTAssertEqual(try ArgumentParser.parse(["--out-dir=--json"], for: spec).value(.outDir), "--json", "an attached value is taken as given")
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

    /// Options are read through `OptionKey`s, so a misspelt name does not compile; what is left is reading
    /// a key the command's table does not list, which would stop the program at its first use. This reads
    /// every command's source and checks each key it reads (and BatchRun's, where it uses BatchRun) against
    /// that command's table.
    func testEveryOptionACommandReadsIsInItsTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        func text(_ path: String) throws -> String { try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) }
        // Key identifiers -> option names, from the one file that declares them.
        let keyPattern = try NSRegularExpression(pattern: #"static var (\w+): Self \{ Self\("([a-z0-9-]+)"\) \}"#)
        let keys = try text("KeepTrackCLI/OptionKeys.swift")
        var names: [String: String] = [:]
        for match in keyPattern.matches(in: keys, range: NSRange(keys.startIndex..., in: keys)) {
            names[String(keys[Range(match.range(at: 1), in: keys)!])] = String(keys[Range(match.range(at: 2), in: keys)!])
        }
        XCTAssertGreaterThan(names.count, 40)
        let readPattern = try NSRegularExpression(pattern: #"invocation\.(?:flag|value|allValues)\(\.(\w+)"#)
        func reads(_ source: String) -> Set<String> {
            Set(readPattern.matches(in: source, range: NSRange(source.startIndex..., in: source)).map { match in
                let identifier = String(source[Range(match.range(at: 1), in: source)!])
                return names[identifier] ?? "unknown key .\(identifier)"
            })
        }
        let batchReads = reads(try text("KeepTrackCLI/BatchRun.swift"))
        XCTAssertEqual(batchReads, ["recursive", "jobs", "report", "force"])
        let commands = MediaCommandLine.commands
        var checked = 0
        for folder in ["KeepTrackCLI/Commands", "KeepTrackMediaCLI/Commands"] {
            for file in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path) where file.hasSuffix(".swift") {
                let source = try text(folder + "/" + file)
                guard let nameRange = source.range(of: #"name: "[a-z-]+""#, options: .regularExpression) else { continue }
                let name = source[nameRange].dropFirst(7).dropLast()
                let spec = try XCTUnwrap(commands.first { $0.name == name }, "\(file): no command '\(name)'")
                var read = reads(source)
                if source.contains("BatchRun.run(") { read.formUnion(batchReads) }
                let declared = Set(spec.options.map(\.name))
                XCTAssertTrue(read.isSubset(of: declared), "\(file) reads \(read.subtracting(declared).sorted()) that '\(name)' does not declare")
                XCTAssertFalse(read.isEmpty, file)
                checked += 1
            }
        }
        XCTAssertEqual(checked, 19, "one file per command")
    }
}
