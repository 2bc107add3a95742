import XCTest
@testable import KeepTrack

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
}
