import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

final class LintTests: XCTestCase {
    func testEachRuleFiresWhereItShouldAndNowhereElse() throws {
        let folder = TemporaryFolder()
        let expected: [String: [String]] = [
            "iphone": [], "spatial-first": [], "five-channel": [], "mp4": [], "lpcm-spatial": [], "audio-only": [], "moov-first": [],
            "both-enabled": ["group-multiple-enabled"],
            "none-enabled": ["group-none-enabled"],
            "spatial-enabled": ["spatial-enabled-fallback-disabled"],
            "no-fall": ["spatial-without-fallback"],
        ]
        for (name, rules) in expected {
            let path = try writeVariant(name, in: folder)
            XCTAssertEqual(GroupCheck.ruleIDs(path), rules, name)
            let code = runCLI(["lint", path]).code
            XCTAssertEqual(code, rules.contains("group-multiple-enabled") ? 1 : 0, name)
        }
        var dangling = FixtureOptions()
        dangling.danglingReference = 42
        let danglingPath = try GroupCheck.write(dangling, named: "dangling.mov", in: folder)
        XCTAssertEqual(GroupCheck.ruleIDs(danglingPath), ["dangling-reference"])
        let result = runCLI(["lint", danglingPath])
        XCTAssertEqual(result.code, 1)
        XCTAssertTrue(result.out.contains("tref/folw names missing track 42"), result.out)
    }

    func testRealFixtures() throws {
        let iphone = try RealFixtures.require(RealFixtures.iphone)
        let writer = try RealFixtures.require(RealFixtures.avAssetWriter)
        XCTAssertEqual(GroupCheck.ruleIDs(iphone), [])
        // One APAC track alone, no group, no fall: a player without APAC has nothing to play.
        XCTAssertEqual(GroupCheck.ruleIDs(writer), ["spatial-without-fallback"])
        let result = runCLI(["lint", iphone, writer])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("\(iphone): clean"), result.out)
    }

    func testMixedKindsInOneGroup() throws {
        let folder = TemporaryFolder()
        let source = try writeVariant("iphone", in: folder)
        var edit = MovieEdit(try Movie.open(path: source))
        try edit.setAlternateGroup(FixtureBuilder.videoID, 1)
        let mixed = folder.path("mixed.mov")
        try MovieOutput.write(edit.writer(), to: mixed, inputs: [source], overwrite: false)
        // The enabled video now shares group 1 with the enabled stereo track.
        XCTAssertEqual(GroupCheck.ruleIDs(mixed), ["group-mixed-kinds", "group-multiple-enabled"])
    }

    /// What VLC's muxer makes of two audio alternatives: no group, both enabled (players mix them).
    /// One enabled ungrouped audio track, or several in a group, is not this finding.
    func testEnabledAudioOutsideAnyGroup() throws {
        let folder = TemporaryFolder()
        let source = try writeVariant("both-enabled", in: folder)
        var edit = MovieEdit(try Movie.open(path: source))
        try edit.setAlternateGroup(FixtureBuilder.stereoID, 0)
        try edit.setAlternateGroup(FixtureBuilder.spatialID, 0)
        let ungrouped = folder.path("ungrouped.mov")
        try MovieOutput.write(edit.writer(), to: ungrouped, inputs: [source], overwrite: false)
        XCTAssertEqual(GroupCheck.ruleIDs(ungrouped), ["audio-enabled-ungrouped", "spatial-without-fallback"])
        let result = runCLI(["lint", "--json", ungrouped])
        XCTAssertEqual(result.code, 0, "a warning")
        XCTAssertTrue(result.out.contains("audio tracks \(FixtureBuilder.stereoID), \(FixtureBuilder.spatialID) are all enabled and in no alternate group"), result.out)
        var one = MovieEdit(try Movie.open(path: ungrouped))
        try one.setEnabled(FixtureBuilder.spatialID, false)
        let single = folder.path("single.mov")
        try MovieOutput.write(one.writer(), to: single, inputs: [ungrouped], overwrite: false)
        XCTAssertEqual(GroupCheck.ruleIDs(single), ["spatial-without-fallback"])
    }

    func testMalformedFileIsAFindingWithExit65() throws {
        let folder = TemporaryFolder()
        let source = try writeVariant("iphone", in: folder)
        // Point the stereo track's first chunk past the end of the file.
        let movie = try Movie.open(path: source)
        let stco = try XCTUnwrap(movie.track(id: FixtureBuilder.stereoID)?.box.find(["mdia", "minf", "stbl", "stco"]))
        var bytes = try fileBytes(source)
        let entry = Int(stco.payloadOffset) + 8
        bytes.replaceSubrange(entry..<entry + 4, with: [0xFF, 0xFF, 0xFF, 0x00])
        let outside = folder.path("outside.mov")
        try bytes.write(to: URL(fileURLWithPath: outside))
        XCTAssertEqual(GroupCheck.ruleIDs(outside), ["malformed-file"])
        let result = runCLI(["lint", "--json", outside])
        XCTAssertEqual(result.code, 65)
        XCTAssertTrue(result.out.contains("\"rule\": \"malformed-file\""), result.out)
        XCTAssertTrue(result.out.contains("stco") && result.out.contains("runs past the end of the file"), result.out)

        let truncated = folder.path("truncated.mov")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        XCTAssertEqual(GroupCheck.ruleIDs(truncated), ["malformed-file"])
        XCTAssertEqual(runCLI(["lint", truncated]).code, 65)
        XCTAssertEqual(runCLI(["lint", folder.path("absent.mov")]).code, 66)
    }

    func testEveryRuleIsInTheLintPage() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/commands/lint.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        for rule in LintRule.all {
            XCTAssertTrue(text.contains("| `\(rule.id)` | \(rule.severity.rawValue) |"), "docs/commands/lint.md rule table lacks \(rule.id)")
        }
    }
}
