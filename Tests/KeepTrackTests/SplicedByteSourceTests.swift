import XCTest
@testable import KeepTrack

/// `SplicedByteSource` (flatten-stereo's base layers, copied from where they are): every read equals the same
/// bytes cut out and joined by hand, across range boundaries, and reads past the end are errors.
final class SplicedByteSourceTests: XCTestCase {
    func testReadsEqualTheRangesJoinedByHand() throws {
        var generator = SystemRandomNumberGenerator()
        let base = MemoryByteSource((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for _ in 0..<50 {
            let spliced = SplicedByteSource(base: base)
            var expected: [UInt8] = []
            var at = UInt64.random(in: 0..<100, using: &generator)
            for _ in 0..<Int.random(in: 0...20, using: &generator) {
                // Sometimes adjacent to the previous range (joined), sometimes empty, sometimes elsewhere.
                let length = UInt64.random(in: 0...120, using: &generator)
                guard at + length <= base.size else { break }
                XCTAssertEqual(try spliced.append(offset: at, length: length), UInt64(expected.count))
                expected += base.bytes[Int(at)..<Int(at + length)]
                at = Bool.random(using: &generator) ? at + length : UInt64.random(in: 0..<(base.size - 120), using: &generator)
            }
            XCTAssertEqual(spliced.size, UInt64(expected.count))
            XCTAssertEqual(try spliced.read(at: 0, count: expected.count), expected)
            for _ in 0..<40 where !expected.isEmpty {
                let start = Int.random(in: 0..<expected.count, using: &generator)
                let count = Int.random(in: 0...(expected.count - start), using: &generator)
                XCTAssertEqual(try spliced.read(at: UInt64(start), count: count), Array(expected[start..<start + count]))
                let pieces = try spliced.pieces(at: UInt64(start), length: UInt64(count))
                XCTAssertEqual(pieces.reduce(0) { $0 + $1.length }, UInt64(count))
                XCTAssertFalse(pieces.contains { $0.length == 0 })
            }
            XCTAssertThrowsError(try spliced.read(at: spliced.size, count: 1))
            XCTAssertThrowsError(try spliced.read(at: spliced.size + 1, count: 0))
        }
        XCTAssertThrowsError(try SplicedByteSource(base: base).append(offset: 4990, length: 11), "a range past the base's end")
    }
}
