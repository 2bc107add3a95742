import XCTest
@testable import KeepTrack

/// `SampleTable.compositionEnd` and `compositionStart` walk runs, not samples; they must say what a walk over every sample
/// (the sample iterator, as it was computed before) says, on tables of every shape: runs of 0 samples,
/// tables shorter or longer than the sample count, signed and huge offsets, decode times that wrap.
final class CompositionEndTests: XCTestCase {
    static func endSampleBySample(_ table: SampleTable) -> UInt64 {
        var end: Int64 = 0
        var previous: Sample?
        for sample in table.samples {
            if let previous {
                end = max(end, Int64(bitPattern: previous.decodeTime) &+ previous.compositionOffset &+ Int64(bitPattern: sample.decodeTime &- previous.decodeTime))
            }
            previous = sample
        }
        if let previous {
            let lastDelta = table.timeToSample.count >= 2 ? Int64(table.timeToSample[table.timeToSample.count - 1]) : 0
            end = max(end, Int64(bitPattern: previous.decodeTime) &+ previous.compositionOffset &+ lastDelta)
        }
        return UInt64(max(end, 0))
    }

    /// The earliest composition time, sample by sample (what `compositionStart` must say).
    static func startSampleBySample(_ table: SampleTable) -> UInt64 {
        let start = table.samples.map { Int64(bitPattern: $0.decodeTime) &+ $0.compositionOffset }.min() ?? 0
        return UInt64(max(start, 0))
    }

    func testRunWalkAgreesWithTheSampleWalk() {
        var state: UInt64 = 12  // a fixed linear congruential sequence: the same tables every run
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 11) % bound
        }
        let deltas: [UInt32] = [0, 1, 512, 1_001, UInt32.max]
        let offsets: [UInt32] = [0, 1, 3_003, UInt32(bitPattern: -2_002), UInt32(bitPattern: Int32.min), UInt32(Int32.max)]
        let starts: [UInt64] = [0, 90_000, UInt64(Int64.max) - 5_000, UInt64.max - 3_000, 1 << 63]
        var wrapped = 0
        for round in 0..<3_000 {
            let samples = Int(next(40)) + 1
            func runs(_ values: [UInt32], maxRuns: UInt64) -> [UInt32] {
                (0..<next(maxRuns)).flatMap { _ in [UInt32(next(UInt64(samples) + 2)), values[Int(next(UInt64(values.count)))]] }
            }
            let timeToSample = runs(deltas, maxRuns: 5)
            let compositionOffsets = round % 3 == 0 ? [] : runs(offsets, maxRuns: 4)
            var table = SampleTable(sampleCount: samples, sizes: [], constantSize: 1, chunkOffsets: [0], sampleToChunk: [1, UInt32(samples), 1],
                                    timeToSample: timeToSample, compositionOffsets: compositionOffsets,
                                    compositionOffsetsSigned: round % 2 == 0, syncSamples: nil, usesLargeOffsets: false)
            table.firstDecodeTime = starts[Int(next(UInt64(starts.count)))]
            let expected = Self.endSampleBySample(table)
            XCTAssertEqual(table.compositionEnd, expected, "stts \(timeToSample) ctts \(compositionOffsets) start \(table.firstDecodeTime) samples \(samples)")
            XCTAssertEqual(table.compositionStart, Self.startSampleBySample(table), "start: stts \(timeToSample) ctts \(compositionOffsets) start \(table.firstDecodeTime) samples \(samples)")
            if table.firstDecodeTime > UInt64(Int64.max) - 10_000 { wrapped += 1 }
        }
        XCTAssertGreaterThan(wrapped, 1_000)  // the wrapping cases were exercised
    }

    func testRunWalkOnARealFragmentedRecording() throws {
        var checked = 0
        // ffmpeg's fragmented layouts (the +global_sidx seed is refused: its offsets are stale by design).
        for seed in try FuzzRegressionTests.committed("seeds") where seed.lastPathComponent.hasPrefix("ff-") {
            guard let movie = try? Movie.open(path: seed.path) else { continue }
            for track in movie.tracks where track.sampleTable.sampleCount > 0 {
                XCTAssertEqual(track.sampleTable.compositionEnd, Self.endSampleBySample(track.sampleTable), seed.lastPathComponent)
                XCTAssertEqual(track.sampleTable.compositionStart, Self.startSampleBySample(track.sampleTable), seed.lastPathComponent)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 15)
    }

    /// The table writer stores whole entries; the bytes must be the big-endian entries, after what came before.
    func testEntryTablesAreWrittenBigEndianAfterEarlierBytes() throws {
        let values: [UInt32] = [0, 1, 0x0102_0304, 0xFFFF_FFFF, 0x8000_0000] + (0..<1_000).map { UInt32(truncatingIfNeeded: $0 &* 2_654_435_761) }
        var writer = ByteWriter()
        writer.u8(0xAB)  // the table starts at an odd offset: unaligned stores
        writer.u32Array(values)
        writer.u32Array([])
        var expected: [UInt8] = [0xAB]
        for value in values { expected += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        XCTAssertEqual(writer.bytes, expected)
        var reader = ByteReader(writer.bytes)
        _ = try reader.u8()
        XCTAssertEqual(try reader.u32Array(count: values.count, "table"), values)
    }
}
