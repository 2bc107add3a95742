import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// The writer keeps the sample bytes of a large copied run at their source position modulo 64 KiB,
/// with a `free` box before mdat (the kernel's page-cache copy costs ~1.5× as much otherwise; see
/// `MovieWriter.copyAlignment`). The padding is part of what the read-back verification checks.
final class CopyAlignmentTests: XCTestCase {
    /// An iPhone-layout fixture with ~80 MB of samples, written moov last by the same writer.
    static func largeFixture(in folder: TemporaryFolder) throws -> String {
        var options = FixtureOptions()
        options.duration = 8
        options.videoFrameBytes = 300_000
        return try FixtureBuilder(options).write(to: folder.path("large.mov"))
    }

    /// A fixture with ~80 MB of samples in one run, remuxed moov first (a free box of the planned size
    /// right before mdat) and moov last (already in place: none); every sample keeps its source offset modulo 64 KiB,
    /// the data verification compares every byte, `compare` says identical, and ffprobe's packets
    /// (sizes, times, key flags, a hash of each) and mediainfo's tracks are the source's.
    func testLargeRunKeepsItsSourcePositionModulo64KiB() throws {
        let folder = TemporaryFolder()
        let input = try Self.largeFixture(in: folder)
        let source = try Movie.open(path: input)
        let probeIn = try FFprobe.probe(input)
        let infoIn = try MediaInfo.report(input)
        for moovFirst in [true, false] {
            let output = folder.path("out-\(moovFirst).mov")
            var write = MovieOutput.Options()
            write.verifyData = true
            write.writer.moovFirst = moovFirst
            let summary = try MovieOutput.remux(input: input, output: output, options: write)
            XCTAssertEqual(summary.verification?.comparedBytes, source.tracks.reduce(0) { $0 + $1.sampleTable.totalBytes })
            let padding = summary.written.padding
            let written = try Movie.open(path: output)
            let mdatIndex = try XCTUnwrap(written.boxes.firstIndex { $0.type == "mdat" })
            if moovFirst {
                // moov before the data moves it off its source position: padded back.
                XCTAssertGreaterThanOrEqual(padding, 8)
                XCTAssertLessThan(padding, MovieWriter.copyAlignment + 8)
                XCTAssertEqual(written.boxes[mdatIndex - 1].type, "free")
                XCTAssertEqual(written.boxes[mdatIndex - 1].size, padding)
                XCTAssertEqual(written.boxes.filter { $0.type == "free" }.count, 1)
            } else {
                // The fixture is written moov last by the same writer: its data is already in place.
                XCTAssertEqual(padding, 0)
                XCTAssertFalse(written.boxes.contains { $0.type == "free" })
            }
            var aligned: UInt64 = 0, total: UInt64 = 0
            for track in source.tracks {
                let copy = try XCTUnwrap(written.track(id: track.id))
                for (a, b) in zip(track.sampleTable.samples, copy.sampleTable.samples) {
                    if (b.offset &- a.offset) % MovieWriter.copyAlignment == 0 { aligned += UInt64(a.size) }
                    total += UInt64(a.size)
                }
            }
            XCTAssertEqual(aligned, total, "moov first: \(moovFirst): sample bytes off their source position modulo 64 KiB")

            let compare = runCLI(["compare", input, output])
            XCTAssertEqual(compare.code, 0, compare.out + compare.error)
            let probeOut = try FFprobe.probe(output)
            XCTAssertEqual(probeOut.streams.count, probeIn.streams.count)
            for stream in probeIn.streams {
                let id = try XCTUnwrap(stream.trackID)
                FFprobe.assertSamePackets(stream, try XCTUnwrap(probeOut.stream(track: id)), "moov first: \(moovFirst)")
            }
            XCTAssertNil(MediaInfo.difference(infoIn.tracks, try MediaInfo.report(output).tracks, tolerance: 0.001))
        }
    }

    /// The real recording (2.5 MB) is too small for padding to pay: no free box, the layout as before.
    func testSmallMovieGetsNoPadding() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("out.mov")
        let summary = try MovieOutput.remux(input: input, output: output)
        XCTAssertEqual(summary.written.padding, 0)
        XCTAssertFalse(try Movie.open(path: output).boxes.contains { $0.type == "free" })
    }

    /// Verification reads the padding back: a written file whose free box was turned into another
    /// box type is refused, naming the planned padding.
    func testVerificationRefusesAChangedPadding() throws {
        let folder = TemporaryFolder()
        let input = try Self.largeFixture(in: folder)
        let writer = MovieWriter(passingThrough: try Movie.open(path: input))
        let output = try OutputFile(destination: folder.path("out.mov"), overwrite: false)
        defer { output.discard() }
        let summary = try writer.write(to: output)
        try output.finishWriting()
        XCTAssertNoThrow(try WriteVerification.verify(writer, writtenAt: output.temporaryPath, compareData: false))
        let freeOffset = summary.mdatOffset - summary.padding
        let skip = Array("skip".utf8)
        let damage = open(output.temporaryPath, O_WRONLY)
        XCTAssertGreaterThanOrEqual(damage, 0)
        XCTAssertEqual(skip.withUnsafeBytes { pwrite(damage, $0.baseAddress, 4, off_t(freeOffset + 4)) }, 4)
        close(damage)
        XCTAssertThrowsError(try WriteVerification.verify(writer, writtenAt: output.temporaryPath, compareData: false)) { error in
            XCTAssertTrue("\(error)".contains("no free box of \(summary.padding) bytes before mdat"), "\(error)")
        }
    }
}
