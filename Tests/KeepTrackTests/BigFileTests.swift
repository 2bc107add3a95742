import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Files above 4 GiB (sparse: the video payload is holes, so seconds and little disk) and an hour
/// of 60 fps samples. Speed is measured in bench/, never here; memory is bounded generously.
final class BigFileTests: XCTestCase {
    /// 60 video frames of 70 MB left as holes (4.2 GB), both audio tracks enabled, spatial with fallback.
    static func sparseInput(in folder: TemporaryFolder) throws -> String {
        var options = FixtureOptions.variant("both-enabled")!
        options.sparseVideo = true
        options.videoFrameBytes = 70_000_000
        return try FixtureBuilder(options).write(to: folder.path("big.mov"))
    }

    /// A ByteSource that counts what is read, to show that opening a movie reads only its structure.
    final class CountingSource: ByteSource, @unchecked Sendable {
        let base: ByteSource
        private(set) var bytesRead = 0
        init(_ base: ByteSource) { self.base = base }
        var size: UInt64 { base.size }
        func read(at offset: UInt64, count: Int) throws -> [UInt8] {
            bytesRead += count
            return try base.read(at: offset, count: count)
        }
    }

    /// `fix` and `strip-spatial` writing above 4 GiB: co64, a 64-bit mdat header, holes kept, every
    /// video sample at the same size, every audio sample byte-identical, ffprobe reads the result.
    func testFixAndStripSpatialAbove4GiB() throws {
        let folder = TemporaryFolder()
        let input = try Self.sparseInput(in: folder)
        let source = try Movie.open(path: input)
        XCTAssertGreaterThan(source.source.size, UInt64(UInt32.max))
        let videoID = try XCTUnwrap(source.tracks.first { $0.kind == .video }).id
        for command in ["fix", "strip-spatial"] {
            let output = folder.path("\(command).mov")
            let result = runCLI([command, input, output])
            XCTAssertEqual(result.code, 0, "\(command): \(result.error)")
            let written = try Movie.open(path: output)
            XCTAssertGreaterThan(written.source.size, UInt64(UInt32.max), command)
            let mdat = try XCTUnwrap(written.boxes.first { $0.type == "mdat" })
            XCTAssertEqual(try written.source.read(at: mdat.offset, count: 4), [0, 0, 0, 1], "\(command): mdat needs a 64-bit size")
            let video = try XCTUnwrap(written.track(id: videoID))
            XCTAssertNotNil(video.box.find(["mdia", "minf", "stbl", "co64"]), "\(command): video chunk offsets are co64")
            XCTAssertEqual(video.sampleTable.samples.map(\.size), try XCTUnwrap(source.track(id: videoID)).sampleTable.samples.map(\.size))
            let audioIDs = written.tracks.filter { $0.kind == .audio }.map(\.id)
            XCTAssertFalse(audioIDs.isEmpty)
            try GroupCheck.assertSamplesIdentical(input, output, tracks: audioIDs)
            XCTAssertEqual(Linter.lint(written).filter { $0.severity == .error }.map(\.rule.id), [], command)
            XCTAssertEqual(try GroupCheck.probe(output).count, written.tracks.count, "\(command): ffprobe streams")
            var info = stat()
            XCTAssertEqual(stat(output, &info), 0)
            XCTAssertLessThan(Int64(info.st_blocks) * 512, 64 << 20, "\(command): holes were filled in")
            try FileManager.default.removeItem(atPath: output)
        }
    }

    /// inspect, lint and fix planning of a 4.2 GB file read well under 1 MiB of it.
    func testStructureOnlyReadsOfA4GiBFile() throws {
        let folder = TemporaryFolder()
        let input = try Self.sparseInput(in: folder)
        let counting = CountingSource(try FileByteSource(path: input))
        let movie = try Movie(source: counting)
        _ = InspectReport(movie: movie, name: "big.mov").json.rendered()
        XCTAssertEqual(Linter.lint(movie).map(\.rule.id), [LintRule.multipleEnabled.id])
        XCTAssertEqual(GroupFix.inPlacePatches(GroupFix.plan(movie), for: movie).count, 1)
        XCTAssertGreaterThan(counting.size, 4 << 30)
        XCTAssertLessThan(counting.bytesRead, 1 << 20, "read \(counting.bytesRead) bytes of \(counting.size)")
        // The in-place fix touches 3 bytes of it.
        let before = try fileBytesAround(input, movie)
        XCTAssertEqual(runCLI(["fix", "--in-place", input]).code, 0)
        XCTAssertEqual(Linter.lint(try Movie.open(path: input)).map(\.rule.id), [])
        XCTAssertNotEqual(try fileBytesAround(input, movie), before)
    }

    /// The moov and everything after it (the only place an in-place fix may write).
    func fileBytesAround(_ path: String, _ movie: Movie) throws -> [UInt8] {
        let source = try FileByteSource(path: path)
        return try source.read(at: movie.moov.offset, count: Int(movie.moov.size))
    }

    /// An hour at 60 fps with two audio tracks and two metadata tracks (560,700 samples):
    /// inspect, lint, remux and fix each stay under 160 MiB peak RSS (measured: ~40-50 MiB in
    /// release builds, see BENCHMARKS.md), and remux keeps every sample.
    func testHourLongRecordingStaysSmallInMemory() throws {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { throw unavailable("/usr/bin/time not installed (scripts/setup.sh)") }
        let folder = TemporaryFolder()
        var options = FixtureOptions.variant("many-samples")!
        options.duration = 3600
        options.frameRate = 60
        options.videoFrameBytes = 100
        options.enabled = .both
        let input = try FixtureBuilder(options).write(to: folder.path("hour.mov"))
        let source = try Movie.open(path: input)
        XCTAssertEqual(source.tracks.filter { $0.kind == .audio }.count, 2)
        XCTAssertEqual(source.tracks.filter { $0.kind == .metadata }.count, 2)
        let sampleCount = source.tracks.reduce(0) { $0 + $1.sampleTable.sampleCount }
        XCTAssertGreaterThan(sampleCount, 500_000)
        let commands: [[String]] = [["inspect", "--json", input], ["lint", input],
                                    ["remux", input, folder.path("remux.mov")], ["fix", input, folder.path("fix.mov")]]
        for command in commands {
            let result = try XCTUnwrap(runTool("bash", ["-c", "\(time) -v \"$0\" \"$@\" 2>&1 >/dev/null", try ChildProcess.binary()] + command))
            XCTAssertTrue([0, 1].contains(result.code), "\(command[0]): \(result.out)")
            let line = try XCTUnwrap(result.out.split(separator: "\n").first { $0.contains("Maximum resident set size") }, result.out)
            let kilobytes = try XCTUnwrap(Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)))
            print("\(command[0]): peak RSS \(kilobytes / 1024) MiB over \(sampleCount) samples")
            XCTAssertLessThan(kilobytes, 160 * 1024, "\(command[0]) peak RSS")
        }
        let remuxed = try Movie.open(path: folder.path("remux.mov"))
        XCTAssertEqual(remuxed.tracks.map(\.sampleTable.sampleCount), source.tracks.map(\.sampleTable.sampleCount))
        XCTAssertEqual(Linter.lint(try Movie.open(path: folder.path("fix.mov"))).filter { $0.severity == .error }.count, 0)
    }
}
