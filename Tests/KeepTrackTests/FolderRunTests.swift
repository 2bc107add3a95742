import Foundation
import XCTest
@testable import KeepTrack
@testable import KeepTrackCLI
import KeepTrackFixtures

final class FolderRunTests: XCTestCase {
    /// good/iphone.mov, good/sub/both-enabled.mov, none-enabled.mov, broken.mov (cut inside moov),
    /// missing.mov (dangling symlink), notes.txt (ignored).
    func makeLibrary(_ folder: TemporaryFolder) throws -> String {
        let root = folder.path("library")
        try FileManager.default.createDirectory(atPath: root + "/good/sub", withIntermediateDirectories: true)
        let scratch = TemporaryFolder()
        try FileManager.default.copyItem(atPath: try writeVariant("iphone", in: scratch), toPath: root + "/good/iphone.mov")
        try FileManager.default.copyItem(atPath: try writeVariant("both-enabled", in: scratch), toPath: root + "/good/sub/both-enabled.mov")
        try FileManager.default.copyItem(atPath: try writeVariant("none-enabled", in: scratch), toPath: root + "/none-enabled.mov")
        // Cut inside moov (a cut inside mdat is a truncated movie, which lint reads: TruncatedMovieTests).
        let whole = try writeVariant("moov-first", in: scratch)
        let moov = try Movie.open(path: whole).moov
        let broken = try fileBytes(whole).prefix(Int(moov.offset + moov.size / 2))
        try broken.write(to: URL(fileURLWithPath: root + "/broken.mov"))
        try FileManager.default.createSymbolicLink(atPath: root + "/missing.mov", withDestinationPath: root + "/nowhere.mov")
        try Data("not a movie".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
        return root
    }

    func rows(_ reportPath: String) throws -> [String: [String: Any]] {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: fileBytes(reportPath)) as? [String: Any])
        let rows = try XCTUnwrap(object["rows"] as? [[String: Any]])
        var byName: [String: [String: Any]] = [:]
        for row in rows { byName[((row["path"] as? String ?? "") as NSString).lastPathComponent] = row }
        return byName
    }

    func testLintFolderReportAndWorstExitStatus() throws {
        let folder = TemporaryFolder()
        let root = try makeLibrary(folder)
        let report = folder.path("report.json")
        let result = runCLI(["lint", root, "--recursive", "-j", "2", "--report", report])
        XCTAssertEqual(result.code, 66, "worst: the missing file")
        let rows = try rows(report)
        XCTAssertEqual(Set(rows.keys), ["iphone.mov", "both-enabled.mov", "none-enabled.mov", "broken.mov", "missing.mov"])
        XCTAssertEqual(rows["iphone.mov"]?["exitCode"] as? Int, 0)
        XCTAssertEqual((rows["iphone.mov"]?["findings"] as? [Any])?.count, 0)
        XCTAssertEqual(rows["both-enabled.mov"]?["exitCode"] as? Int, 1)
        let finding = (rows["both-enabled.mov"]?["findings"] as? [[String: Any]])?.first
        XCTAssertEqual(finding?["rule"] as? String, "group-multiple-enabled")
        XCTAssertEqual(finding?["tracks"] as? [Int], [2, 3])
        XCTAssertEqual(rows["none-enabled.mov"]?["exitCode"] as? Int, 0)
        XCTAssertEqual(rows["broken.mov"]?["exitCode"] as? Int, 65)
        XCTAssertEqual(((rows["broken.mov"]?["findings"] as? [[String: Any]])?.first)?["rule"] as? String, "malformed-file")
        XCTAssertEqual(rows["missing.mov"]?["exitCode"] as? Int, 66)
        XCTAssertNotNil(rows["missing.mov"]?["error"] as? String)
        XCTAssertNil(rows["iphone.mov"]?["error"] as? String)
        XCTAssertTrue(result.error.contains("5 files:"), result.error)
        XCTAssertTrue(result.error.contains("progress: 5/5 files"), result.error)

        // Without --recursive only the files directly inside; without the bad ones the worst is 1.
        let flat = runCLI(["lint", root + "/good", "--recursive"])
        XCTAssertEqual(flat.code, 1)
        XCTAssertEqual(runCLI(["lint", root + "/good"]).code, 0)
        XCTAssertEqual(runCLI(["lint", root + "/good/sub"]).code, 1)
        XCTAssertEqual(runCLI(["lint", folder.path("empty-nothing")]).code, 66)
    }

    func testFixFolderMirrorsTheTree() throws {
        let folder = TemporaryFolder()
        let root = try makeLibrary(folder)
        let out = folder.path("fixed")
        let report = folder.path("fix.json")
        let result = runCLI(["fix", root, "-r", "--out-dir", out, "--report", report, "-j", "3"])
        XCTAssertEqual(result.code, 66)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/good/sub/both-enabled.mov"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/none-enabled.mov"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/good/iphone.mov"), "nothing to fix: nothing written")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/broken.mov"))
        for fixed in [out + "/good/sub/both-enabled.mov", out + "/none-enabled.mov"] {
            XCTAssertEqual(GroupCheck.ruleIDs(fixed), [])
        }
        try GroupCheck.assertSamplesIdentical(root + "/good/sub/both-enabled.mov", out + "/good/sub/both-enabled.mov", tracks: [1, 2, 3, 4, 5])
        let rows = try rows(report)
        XCTAssertEqual(rows["iphone.mov"]?["action"] as? String, "none")
        XCTAssertEqual(rows["both-enabled.mov"]?["action"] as? String, "fixed")
        XCTAssertEqual(rows["broken.mov"]?["exitCode"] as? Int, 65)
        // A second run refuses to replace what the first wrote (no --force); each file says so, 73.
        let again = runCLI(["fix", root, "-r", "--out-dir", out])
        XCTAssertEqual(again.code, 73, again.error)
        XCTAssertTrue(again.error.contains("both-enabled.mov"), again.error)
        XCTAssertEqual(runCLI(["fix", root + "/good/sub", "--out-dir", out + "/good/sub", "--force"]).code, 0)
    }

    func testFixInPlaceAndStripSpatialOverFolders() throws {
        let folder = TemporaryFolder()
        let root = try makeLibrary(folder)
        XCTAssertEqual(runCLI(["fix", "--in-place", "-r", root + "/good"]).code, 0)
        XCTAssertEqual(GroupCheck.ruleIDs(root + "/good/sub/both-enabled.mov"), [])

        let out = folder.path("stereo")
        let report = folder.path("strip.json")
        let result = runCLI(["strip-spatial", root, "--recursive", "--out-dir", out, "--report", report])
        XCTAssertEqual(result.code, 66)
        for name in ["good/iphone.mov", "good/sub/both-enabled.mov", "none-enabled.mov"] {
            let movie = try Movie.open(path: out + "/" + name)
            XCTAssertFalse(movie.tracks.contains(where: \.isSpatialAudio), name)
            XCTAssertEqual(movie.track(id: FixtureBuilder.stereoID)?.isEnabled, true, name)
            XCTAssertEqual(runCLI(["lint", out + "/" + name]).code, 0, name)
        }
        XCTAssertEqual(try rows(report)["iphone.mov"]?["action"] as? String, "stripped")
    }

    func testCollectSkipsHiddenAndOtherFiles() throws {
        let folder = TemporaryFolder()
        let root = try makeLibrary(folder)
        try Data().write(to: URL(fileURLWithPath: root + "/._IMG_0001.MOV"))
        try Data().write(to: URL(fileURLWithPath: root + "/UPPER.MOV"))
        let names = Batch.collect([root], recursive: true).map(\.relativePath)
        XCTAssertEqual(names, ["UPPER.MOV", "broken.mov", "good/iphone.mov", "good/sub/both-enabled.mov", "missing.mov", "none-enabled.mov"])
    }

    func testTerminalProgressIsABarWithRateAndTimeLeft() {
        let box = CaptureBox()
        let console = Console(out: { box.append(out: $0) }, error: { box.append(error: $0) }, isTerminal: true)
        let display = ProgressDisplay(console: console, total: 40, start: Date().addingTimeInterval(-2))
        display.update(done: 10)
        display.update(done: 40)
        display.finish()
        let text = box.read().error
        XCTAssertTrue(text.hasPrefix("\r[#######"), text)
        XCTAssertTrue(text.contains("10/40 files, 5 files/s, 0:06 left"), text)
        XCTAssertTrue(text.contains("[" + String(repeating: "#", count: 30) + "] 40/40"), text)
        XCTAssertTrue(text.hasSuffix("\n"))
    }
}
