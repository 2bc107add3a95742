import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Every input the fuzzer ever found (Fuzz/regressions) must end in a value or a KeepTrackError
/// through the same paths the fuzzer drives (parse, inspect, lint, remux planner, edits).
final class FuzzRegressionTests: XCTestCase {
    func testRegressionCorpusEndsInValueOrError() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/regressions")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        XCTAssertFalse(files.isEmpty)
        for name in files {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            XCTAssertEqual(FuzzTargets.exercise(bytes).map { "\($0)" }, [], name)
            do {
                let movie = try Movie(source: MemoryByteSource(bytes))
                _ = InspectReport(movie: movie, name: name).json
            } catch let error as KeepTrackError {
                XCTAssertEqual(error.exitCode, 65, "\(name): \(error)")
            }
        }
    }

    /// Valid movies (tiny versions of every builder variant) go through every fuzz target without an
    /// unexpected error, and the edits really run on them (they are not all refused early).
    func testFuzzTargetsRunCleanOnEveryVariant() throws {
        var edited = 0
        for name in FixtureOptions.variantNames {
            var options = try XCTUnwrap(FixtureOptions.variant(name))
            options.duration = 0.1
            options.videoFrameBytes = 16
            let folder = TemporaryFolder()
            let path = try FixtureBuilder(options).write(to: folder.path("\(name).mov"))
            let bytes = Array(try fileBytes(path))
            XCTAssertEqual(FuzzTargets.exercise(bytes).map { "\($0)" }, [], name)
            let movie = try Movie(source: MemoryByteSource(bytes))
            if try StripSpatial.edit(movie, allowSilence: true)?.isChanged == true { edited += 1 }
        }
        XCTAssertGreaterThan(edited, FixtureOptions.variantNames.count / 2, "strip-spatial changed most variants")
    }
}
