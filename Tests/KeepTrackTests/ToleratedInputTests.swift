import XCTest
@testable import KeepTrack
import KeepTrackCodec
import KeepTrackFixtures

/// Files players accept, keeptrack accepts too, with a lint finding: a last mdat that claims a few
/// bytes past the end, a movie without a usable mvhd time scale, a packet the decoder rejects.
final class ToleratedInputTests: XCTestCase {
    static func wild(_ name: String) throws -> String {
        try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/" + name).path)
    }

    /// ffprobe sees the same streams with the same packets (times, sizes, flags, SHA-256) in both files.
    static func assertSamePackets(_ input: String, _ output: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try FFprobe.probe(input), after = try FFprobe.probe(output)
        XCTAssertEqual(before.streams.count, after.streams.count, file: file, line: line)
        XCTAssertGreaterThan(before.streams.map(\.packets.count).reduce(0, +), 0, file: file, line: line)
        for stream in before.streams {
            let id = try XCTUnwrap(stream.trackID, file: file, line: line)
            let copy = try XCTUnwrap(after.stream(track: id), "track \(id) missing from \(output)", file: file, line: line)
            FFprobe.assertSamePackets(stream, copy, output, file: file, line: line)
        }
    }

    /// Remuxes `path` into `folder` (exit 0) and opens the copy, which needs no tolerance.
    static func remuxedCopy(_ path: String, in folder: TemporaryFolder, named name: String, file: StaticString = #filePath, line: UInt = #line) throws -> (path: String, movie: Movie) {
        let output = folder.path(name)
        let remux = runCLI(["remux", path, output])
        XCTAssertEqual(remux.code, 0, remux.error, file: file, line: line)
        let copy = try Movie.open(path: output)
        XCTAssertEqual(copy.tolerated, [], file: file, line: line)
        return (output, copy)
    }

    // MARK: mdat past the end

    /// androidx-media/sample_mdat_too_long.mp4: the last mdat claims 8 bytes more than the file has.
    func testMediaDataPastTheEndIsReadWithAWarningAndRemuxedCorrectly() throws {
        let path = try Self.wild("androidx-media/sample_mdat_too_long.mp4")
        let movie = try Movie.open(path: path)
        XCTAssertEqual(movie.tolerated.map(\.kind), [.mediaDataPastEnd])
        XCTAssertTrue(movie.tolerated[0].message.contains("8 past the end of the file"), movie.tolerated[0].message)
        XCTAssertGreaterThan(movie.tracks.map(\.sampleTable.sampleCount).reduce(0, +), 0)

        let inspect = runCLI(["inspect", path])
        XCTAssertEqual(inspect.code, 0, inspect.error)
        XCTAssertTrue(inspect.out.contains("warning mdat-past-end-of-file: mdat at byte"), inspect.out)
        let dump = runCLI(["dump", path, "--depth", "1"])
        XCTAssertEqual(dump.code, 0)
        XCTAssertTrue(dump.out.contains("claims 99421 bytes, 8 past the end of the file"), dump.out)
        let inspectJSON = runCLI(["inspect", "--json", path]).out
        XCTAssertTrue(inspectJSON.contains("\"rule\": \"mdat-past-end-of-file\""), inspectJSON)
        let lint = runCLI(["lint", "--json", path])
        XCTAssertEqual(lint.code, 0, lint.out) // a warning
        XCTAssertTrue(lint.out.contains("\"rule\": \"mdat-past-end-of-file\"") && lint.out.contains("\"severity\": \"warning\""), lint.out)

        // The copy is a well-formed file (its mdat ends where the file ends) with the same packets.
        let folder = TemporaryFolder()
        let (output, _) = try Self.remuxedCopy(path, in: folder, named: "remuxed.mp4")
        XCTAssertEqual(runCLI(["lint", output]).out.contains("mdat-past-end-of-file"), false)
        try Self.assertSamePackets(path, output)
    }

    /// The same file cut inside a sample: truncated. inspect reads it (the tracks' complete samples),
    /// remux refuses it with 65 naming mdat and `salvage`, and writes nothing.
    func testMediaDataCutInsideASampleIsReadAsTruncatedAndRefusedByRemux() throws {
        let path = try Self.wild("androidx-media/sample_mdat_too_long.mp4")
        var bytes = try [UInt8](fileBytes(path))
        bytes.removeLast(1000)
        let folder = TemporaryFolder()
        let cut = folder.path("cut.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: cut))
        let result = runCLI(["inspect", cut])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("Truncated: mdat at byte") && result.out.contains("samples complete"), result.out)
        let remux = runCLI(["remux", cut, folder.path("out.mp4")])
        XCTAssertEqual(remux.code, 65)
        XCTAssertTrue(remux.error.contains("mdat at byte") && remux.error.contains("samples in the missing part") && remux.error.contains("salvage"), remux.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.mp4")))
    }

    // MARK: No movie time scale

    /// mozilla-mp4parse-rust/no_timescale.mp4 has no mvhd at all (its header box is renamed).
    func testMovieWithoutMovieHeaderFallsBackAndRemuxWritesOne() throws {
        let path = try Self.wild("mozilla-mp4parse-rust/no_timescale.mp4")
        let movie = try Movie.open(path: path)
        XCTAssertEqual(movie.tolerated.map(\.kind), [.movieTimescaleMissing])
        let mediaScale = try XCTUnwrap(movie.tracks.first?.mediaHeader.timescale)
        XCTAssertEqual(movie.header.timescale, mediaScale)
        let inspect = runCLI(["inspect", path])
        XCTAssertEqual(inspect.code, 0)
        XCTAssertTrue(inspect.out.contains("warning movie-timescale-missing: moov at byte 95: movie has no mvhd"), inspect.out)
        let lint = runCLI(["lint", "--json", path])
        XCTAssertTrue(lint.out.contains("\"rule\": \"movie-timescale-missing\""), lint.out)

        let folder = TemporaryFolder()
        let copy = try Self.remuxedCopy(path, in: folder, named: "remuxed.mp4").movie
        XCTAssertEqual(copy.header.timescale, mediaScale)
        XCTAssertNotNil(copy.moov.first("mvhd"))
        XCTAssertGreaterThan(copy.header.nextTrackID, movie.tracks.map(\.id).max() ?? 0)
        // (Its samples are in fragments: that the copy holds them is the fragment reader's test.)
    }

    /// A progressive synthetic movie without mvhd (renamed, as in no_timescale.mp4): inspect and
    /// remux work, and ffprobe reads the copy's new mvhd with the same packets as the movie had
    /// with its mvhd. (The edit lists are renamed away too: their durations are in movie time,
    /// which a file without mvhd does not define.)
    func testProgressiveMovieWithoutMovieHeaderRemuxesToAValidOne() throws {
        let folder = TemporaryFolder()
        let source = try writeVariant("iphone", in: folder)
        var bytes = try MovieBytes(bytes: [UInt8](fileBytes(source)))
        let trackCount = try Movie.open(path: source).tracks.count
        for index in 1...trackCount {
            let edts = try bytes.box("moov/trak" + (index == 1 ? "" : "[\(index)]") + "/edts")
            bytes.setUInt(UInt64(FourCC("free").rawValue), at: edts.offset + 4, width: 4)
        }
        let reference = try bytes.write(to: folder.path("reference.mov"))
        bytes.setUInt(UInt64(FourCC("m\u{1}hd").rawValue), at: try bytes.box("moov/mvhd").offset + 4, width: 4)
        let path = try bytes.write(to: folder.path("no-mvhd.mov"))
        let movie = try Movie.open(path: path)
        XCTAssertEqual(movie.tolerated.map(\.kind), [.movieTimescaleMissing])
        XCTAssertEqual(movie.header.timescale, movie.tracks.map(\.mediaHeader.timescale).max())
        XCTAssertEqual(try XCTUnwrap(movie.duration), try XCTUnwrap(movie.tracks.map(\.mediaDuration).max()), accuracy: 0.001)
        XCTAssertEqual(runCLI(["inspect", path]).code, 0)
        let (output, copy) = try Self.remuxedCopy(path, in: folder, named: "remuxed.mov")
        XCTAssertEqual(copy.header.timescale, movie.header.timescale)
        XCTAssertEqual(copy.header.nextTrackID, (movie.tracks.map(\.id).max() ?? 0) + 1)
        let probed = try FFprobe.probe(output, packets: false)
        XCTAssertEqual(try XCTUnwrap(probed.duration), try XCTUnwrap(movie.duration), accuracy: 0.05)
        try Self.assertSamePackets(reference, output)
    }

    /// A synthetic movie whose mvhd time scale is 0: the fallback, durations from the samples.
    func testZeroMovieTimescaleFallsBackToTheLargestMediaTimescale() throws {
        var bytes = try MovieBytes(variant: "iphone")
        try bytes.setField("moov/mvhd", at: 12, 0, width: 4)
        let folder = TemporaryFolder()
        let path = try bytes.write(to: folder.path("zero.mov"))
        let original = try Movie.open(path: writeVariant("iphone", in: folder))
        let movie = try Movie.open(path: path)
        XCTAssertEqual(movie.tolerated.map(\.kind), [.movieTimescaleMissing])
        XCTAssertEqual(movie.header.timescale, original.tracks.map(\.mediaHeader.timescale).max())
        for (track, before) in zip(movie.tracks, original.tracks) {
            XCTAssertFalse(track.movieTimescaleKnown)
            XCTAssertEqual(try XCTUnwrap(track.duration), before.mediaDuration, accuracy: 1e-9)
        }
        let output = folder.path("remuxed.mov")
        XCTAssertEqual(runCLI(["remux", path, output]).code, 0)
        let copy = try Movie.open(path: output)
        XCTAssertEqual(copy.header.timescale, movie.header.timescale)
        XCTAssertEqual(try XCTUnwrap(copy.duration), try XCTUnwrap(original.tracks.map(\.mediaDuration).max()), accuracy: 0.001)
    }

    // MARK: A packet the decoder rejects

    /// androidx-media/sample_alac_20bit.mp4: its 12th and last packet is 8 bytes that FFmpeg's ALAC
    /// decoder rejects. ffmpeg leaves it out; so does levels, saying so.
    func testLevelsLeaveOutAPacketTheDecoderRejects() throws {
        let path = try Self.wild("androidx-media/sample_alac_20bit.mp4")
        let text = runCLI(["levels", path])
        XCTAssertEqual(text.code, 0, text.error)
        XCTAssertTrue(text.out.contains("ALAC packet 12 (8 bytes at file offset"), text.out)
        XCTAssertTrue(text.out.contains("left out of its levels"), text.out)
        let json = runCLI(["levels", "--json", path])
        XCTAssertEqual(json.code, 0)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let track = try XCTUnwrap((object["tracks"] as? [[String: Any]])?.first)
        XCTAssertTrue((track["note"] as? String)?.contains("left out 1 packet the decoder rejects: ALAC packet 12") == true, "\(track)")
        let skipped = try XCTUnwrap(track["skippedPackets"] as? [[String: Any]])
        XCTAssertEqual(skipped.count, 1)
        XCTAssertEqual(skipped[0]["packet"] as? Int, 12)
        XCTAssertEqual(skipped[0]["bytes"] as? Int, 8)

        // The same numbers as ffmpeg's astats and ebur128 over what it decodes (the same 11 packets).
        let levels = try XCTUnwrap(LevelsAnalyzer.measure(path: path).tracks.first?.levels)
        let ffmpeg = try LevelsTests.ffmpegLevels(path)
        XCTAssertEqual(levels.rmsDBFS, ffmpeg.rms, accuracy: 0.05)
        XCTAssertEqual(levels.peakDBFS, ffmpeg.peak, accuracy: 0.05)
        XCTAssertEqual(levels.integratedLUFS, ffmpeg.lufs, accuracy: 0.2)
        XCTAssertEqual(levels.frames, 11 * 4096)
    }
}
