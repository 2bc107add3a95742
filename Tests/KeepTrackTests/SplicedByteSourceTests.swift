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

    /// `ConcatenatedByteSource` walks its parts the same way: segments end to end read across part
    /// boundaries; a join's parts start at aligned bases, and a read reaching the gap after a part is an
    /// error, never bytes from nowhere (or a trap).
    func testConcatenatedPartsReadAcrossBoundariesAndRefuseTheGaps() throws {
        let a = MemoryByteSource(Array(0..<100)), b = MemoryByteSource(Array(100..<130)), c = MemoryByteSource(Array(130..<200))
        let segments = ConcatenatedByteSource([a, b, c])
        XCTAssertEqual(segments.size, 200)
        for (offset, count) in [(0, 200), (95, 10), (99, 32), (130, 70), (150, 0)] {
            XCTAssertEqual(try segments.read(at: UInt64(offset), count: count), Array(UInt8(offset)..<UInt8(offset + count)))
        }
        XCTAssertThrowsError(try segments.read(at: 190, count: 11))
        let joined = ConcatenatedByteSource([a, b, c], alignment: 64)
        XCTAssertEqual(joined.bases, [0, 128, 192])
        XCTAssertEqual(try joined.read(at: 128, count: 30), Array(100..<130))
        XCTAssertEqual(try joined.read(at: 192, count: 70), Array(130..<200))
        XCTAssertThrowsError(try joined.read(at: 95, count: 10), "runs into the gap after the first part")
        XCTAssertThrowsError(try joined.read(at: 110, count: 1), "starts in the gap")
    }
}
