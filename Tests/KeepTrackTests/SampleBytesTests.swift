import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// The byte-for-byte sample comparison behind `compare` and `remux --verify-data`: equal across
/// different layouts, the first differing byte found whichever piece or worker sees it first.
final class SampleBytesTests: XCTestCase {
    /// A movie whose video samples span many comparison pieces, and its remux with other chunks.
    func makePair(in folder: TemporaryFolder) throws -> (source: String, copy: String, a: Movie, b: Movie, video: Track, copied: Track) {
        var options = FixtureOptions()
        options.duration = 2
        options.videoFrameBytes = 300_000
        let source = try FixtureBuilder(options).write(to: folder.path("source.mov"))
        var remux = MovieOutput.Options()
        remux.writer.chunkDuration = 0.13
        let copy = folder.path("copy.mov")
        try MovieOutput.remux(input: source, output: copy, options: remux)
        let a = try Movie.open(path: source), b = try Movie.open(path: copy)
        let video = try XCTUnwrap(a.tracks.first { $0.kind == .video })
        return (source, copy, a, b, video, try XCTUnwrap(b.track(id: video.id)))
    }

    func flip(_ path: String, at offset: UInt64) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: offset)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: offset)
        handle.write(Data([byte ^ 0x5A]))
        try handle.close()
    }

    func testLayoutsDifferBytesEqual() throws {
        let folder = TemporaryFolder()
        let (_, copy, a, b, video, copied) = try makePair(in: folder)
        XCTAssertGreaterThan(video.sampleTable.totalBytes, UInt64(SampleBytes.pieceSize) * 4, "several pieces")
        XCTAssertNotEqual(video.sampleTable.chunkOffsets.count, copied.sampleTable.chunkOffsets.count, "the layouts differ")
        XCTAssertNotEqual(video.sampleTable.samples.first { _ in true }?.offset, copied.sampleTable.samples.first { _ in true }?.offset)
        for track in a.tracks {
            let other = try XCTUnwrap(b.track(id: track.id))
            XCTAssertNil(try SampleBytes.firstDifference(track.sampleTable, in: a.source, other.sampleTable, in: b.source), "track \(track.id)")
        }
        // The same bytes from memory (a source other than a file) compare equal too.
        let memory = MemoryByteSource(Array(try fileBytes(copy)))
        XCTAssertNil(try SampleBytes.firstDifference(video.sampleTable, in: a.source, copied.sampleTable, in: memory))
        XCTAssertTrue(try MovieComparison(a, b).isIdentical)
    }

    /// Two changed bytes far apart (different pieces, so possibly different workers): the earlier
    /// one is reported, at the right sample and the right offsets in both files.
    func testEarliestDifferenceIsReported() throws {
        let folder = TemporaryFolder()
        let (_, copy, a, b, video, copied) = try makePair(in: folder)
        let samplesA = Array(video.sampleTable.samples), samplesB = Array(copied.sampleTable.samples)
        try flip(copy, at: samplesB[50].offset + 17)
        try flip(copy, at: samplesB[21].offset + 1000)
        let at = try XCTUnwrap(SampleBytes.firstDifference(video.sampleTable, in: a.source, copied.sampleTable, in: b.source))
        XCTAssertEqual(at.sample, 21)
        XCTAssertEqual(at.offsetA, samplesA[21].offset + 1000)
        XCTAssertEqual(at.offsetB, samplesB[21].offset + 1000)
        // The very last byte of the last sample.
        try flip(copy, at: samplesB[21].offset + 1000)
        try flip(copy, at: samplesB[50].offset + 17)
        let last = try XCTUnwrap(samplesB.last)
        try flip(copy, at: last.offset + UInt64(last.size) - 1)
        let end = try XCTUnwrap(SampleBytes.firstDifference(video.sampleTable, in: a.source, copied.sampleTable, in: b.source))
        XCTAssertEqual(end.sample, samplesA.count - 1)
        XCTAssertEqual(end.offsetB, last.offset + UInt64(last.size) - 1)
        let comparison = try MovieComparison(a, Movie.open(path: copy))
        XCTAssertEqual(comparison.differences.count, 1, "\(comparison.differences)")
        XCTAssertTrue(comparison.differences[0].hasPrefix("track \(video.id): sample data differs from sample \(samplesA.count) on"),
                      comparison.differences[0])
        XCTAssertTrue(comparison.text.contains("sample data"), comparison.text)
    }

    /// Tracks with different byte counts are not compared byte for byte (the bytes column differs).
    func testDifferentByteCountsAreNotCompared() throws {
        let folder = TemporaryFolder()
        let a = try Movie.open(path: writeVariant("iphone", in: folder))
        var options = FixtureOptions()
        options.videoFrameBytes = 1600
        let b = try Movie.open(path: FixtureBuilder(options).write(to: folder.path("bigger.mov")))
        let comparison = try MovieComparison(a, b)
        let video = try XCTUnwrap(a.tracks.first { $0.kind == .video })
        let row = try XCTUnwrap(comparison.rows.first { $0.id == video.id })
        guard case .notCompared(let reason) = row.sampleData else { return XCTFail("\(String(describing: row.sampleData))") }
        XCTAssertTrue(reason.contains("bytes in A"), reason)
        XCTAssertTrue(comparison.differences.contains { $0.hasPrefix("track \(video.id): bytes differs") }, "\(comparison.differences)")
        XCTAssertThrowsError(try SampleBytes.firstDifference(video.sampleTable, in: a.source, b.track(id: video.id)!.sampleTable, in: b.source))
    }
}
