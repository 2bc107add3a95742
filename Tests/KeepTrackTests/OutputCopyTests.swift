import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// The output copy path: an edit that drops a track breaks the source into one small run per chunk;
/// those are gathered into large writes, longer runs go through copy_file_range, holes stay holes.
final class OutputCopyTests: XCTestCase {
    /// strip-spatial of a movie with many small chunks (gathered) and large sparse video chunks
    /// (holes kept): every kept sample's bytes equal the source's, checked byte for byte by the
    /// data verification and again by `compare`, and ffprobe reads the same streams minus APAC.
    func testSmallRunsGatheredLargeRunsCopiedHolesKept() throws {
        let folder = TemporaryFolder()
        var options = FixtureOptions()
        options.duration = 6
        options.chunkDuration = 0.05
        options.videoFrameBytes = 2000
        let small = try FixtureBuilder(options).write(to: folder.path("small-chunks.mov"))
        options.sparseVideo = true
        options.videoFrameBytes = 400_000
        options.chunkDuration = 1
        let sparse = try FixtureBuilder(options).write(to: folder.path("sparse.mov"))
        for input in [small, sparse] {
            let movie = try Movie.open(path: input)
            let edit = try XCTUnwrap(StripSpatial.edit(movie, allowSilence: false))
            var write = MovieOutput.Options()
            write.verifyData = true
            let output = folder.path("out-" + URL(fileURLWithPath: input).lastPathComponent)
            let summary = try MovieOutput.write(edit.writer(), to: output, inputs: [input], options: write)
            let kept = movie.tracks.filter { !$0.isSpatialAudio }
            XCTAssertEqual(summary.verification?.comparedBytes, kept.reduce(0) { $0 + $1.sampleTable.totalBytes })
            // Independently of the writer's own check: the samples of every kept track, file against file.
            let written = try Movie.open(path: output)
            let bytesIn = try fileBytes(input), bytesOut = try fileBytes(output)
            for track in kept {
                let copy = try XCTUnwrap(written.track(id: track.id))
                XCTAssertGreaterThan(copy.sampleTable.chunkOffsets.count, 2)
                for (a, b) in zip(track.sampleTable.samples, copy.sampleTable.samples) {
                    XCTAssertEqual(bytesIn[Int(a.offset)..<Int(a.offset) + Int(a.size)], bytesOut[Int(b.offset)..<Int(b.offset) + Int(b.size)],
                                   "track \(track.id) sample \(a.index + 1)")
                }
            }
            let probeIn = try ffprobeStreams(input).filter { !$0.contains("apac") }
            XCTAssertEqual(try ffprobeStreams(output).count, probeIn.count)
            if input == sparse {
                var info = stat()
                XCTAssertEqual(stat(output, &info), 0)
                XCTAssertLessThan(Int64(info.st_blocks) * 512, 16 << 20, "holes were filled in")
            }
        }
    }
}
