import XCTest
@testable import KeepTrack

/// Moving times between time scales never traps: a duration that does not fit 64 bits in the finer
/// scale is "unknown" (all ones). The fuzzer found inspect trapping on a fragmented track whose
/// media duration, moved to the movie scale, overflowed (Fuzz/regressions/fragment-duration-beyond-64-bits-in-movie-scale).
final class TimeScaleTests: XCTestCase {
    func testRoundingAndSaturation() {
        XCTAssertEqual(TimeScale.convert(1001, from: 30000, to: 600, rounding: .down), 20)
        XCTAssertEqual(TimeScale.convert(1001, from: 30000, to: 600, rounding: .up), 21)
        XCTAssertEqual(TimeScale.convert(1001, from: 30000, to: 600, rounding: .nearest), 20)
        XCTAssertEqual(TimeScale.convert(1025, from: 30000, to: 600, rounding: .nearest), 21)
        XCTAssertEqual(TimeScale.convert(5, from: 0, to: 600, rounding: .nearest), 5)
        XCTAssertEqual(TimeScale.convert(.max, from: 1, to: 1, rounding: .up), .max)
        // Beyond 64 bits: saturate instead of trapping in dividingFullWidth.
        XCTAssertEqual(TimeScale.convert(.max / 2, from: 1, to: 48000, rounding: .nearest), .max)
        XCTAssertEqual(TimeScale.convert(.max, from: 600, to: 90000, rounding: .down), .max)
        // Just inside 64 bits (2^64 - 1 is divisible by 3).
        XCTAssertEqual(TimeScale.convert(.max, from: 3, to: 2, rounding: .up), UInt64.max / 3 * 2)
        XCTAssertEqual(DefragmentedTiming.scale(.max / 2, from: 1000, to: 4_000_000_000), .max)
        XCTAssertEqual(Trim.scale(.max / 2, from: 1000, to: 4_000_000_000, up: true), .max)
    }

    func testFuzzFoundInputIsAnswered() throws {
        let file = try XCTUnwrap(FuzzRegressionTests.committed("regressions").first { $0.lastPathComponent == "fragment-duration-beyond-64-bits-in-movie-scale" })
        let bytes = Array(try Data(contentsOf: file))
        XCTAssertEqual(FuzzTargets.exercise(bytes).map { "\($0)" }, [])
        let result = runCLI(["inspect", "--json", file.path])
        XCTAssertTrue(result.code == 0 || result.code == 65, "exit \(result.code): \(result.error)")
    }
}
