import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Streams as ffprobe sees them: type, codec tag, default disposition (set from the tkhd enabled flag).
func ffprobeStreams(_ path: String) throws -> [String] {
    let result = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_type,codec_tag_string:stream_disposition=default",
                                                   "-of", "json", path]), "ffprobe not installed (scripts/setup.sh)")
    XCTAssertEqual(result.code, 0, "ffprobe failed on \(path)")
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
    let streams = try XCTUnwrap(json["streams"] as? [[String: Any]])
    return streams.map { stream in
        let disposition = stream["disposition"] as? [String: Any]
        return "\(stream["codec_type"] ?? "?") \(stream["codec_tag_string"] ?? "?") default=\(disposition?["default"] ?? "?")"
    }
}

/// Tracks as mediainfo sees them: kind, id, format, codec id, default, alternate group.
func mediainfoTracks(_ path: String) throws -> [String] {
    let result = try XCTUnwrap(runTool("mediainfo", ["--Output=JSON", path]), "mediainfo not installed (scripts/setup.sh)")
    XCTAssertEqual(result.code, 0)
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
    let media = try XCTUnwrap(json["media"] as? [String: Any])
    let tracks = try XCTUnwrap(media["track"] as? [[String: Any]])
    return tracks.map { track in
        ["@type", "ID", "Format", "CodecID", "Default", "AlternateGroup"].map { "\(track[$0] ?? "-")" }.joined(separator: " ")
    }
}

final class RemuxTests: XCTestCase {
    /// Every synthetic variant and every real recording: remux (moov first, data verified), then
    /// `compare` says identical and ffprobe and mediainfo see the same streams and flags.
    func testRemuxEveryVariantAndFixtureIsIdentical() throws {
        let folder = TemporaryFolder()
        var inputs = try FixtureOptions.variantNames.map { try writeVariant($0, in: folder) }
        inputs += RealFixtures.all.filter { FileManager.default.fileExists(atPath: $0) }
        XCTAssertGreaterThan(inputs.count, FixtureOptions.variantNames.count, "real fixtures missing")
        for input in inputs {
            let name = URL(fileURLWithPath: input).lastPathComponent
            let output = folder.path("out-" + name)
            let remux = runCLI(["remux", input, output, "--verify-data"])
            XCTAssertEqual(remux.code, 0, "\(name): \(remux.error)")
            XCTAssertTrue(remux.out.contains("sample bytes equal to the input's"), remux.out)
            let compare = runCLI(["compare", input, output])
            XCTAssertEqual(compare.code, 0, "\(name): \(compare.out)")
            let source = try Movie.open(path: input)
            let written = try Movie.open(path: output)
            XCTAssertTrue(written.isFastStart, name)
            XCTAssertEqual(written.tracks.map(\.isEnabled), source.tracks.map(\.isEnabled), name)

            let probed = try ffprobeStreams(output)
            XCTAssertEqual(probed, try ffprobeStreams(input), name)
            XCTAssertEqual(probed.count, source.tracks.count, name)
            // ffprobe's default disposition is the enabled flag: check it against ours, track by track.
            for (stream, track) in zip(probed, written.tracks) {
                XCTAssertTrue(stream.hasSuffix("default=\(track.isEnabled ? 1 : 0)"), "\(name): \(stream) for track \(track.id)")
            }
            let mediainfo = try mediainfoTracks(output)
            XCTAssertEqual(mediainfo, try mediainfoTracks(input), name)
            if source.tracks.contains(where: { $0.format == "apac" }) {
                XCTAssertTrue(mediainfo.contains { $0.contains(" apac ") }, "\(name): \(mediainfo)")
            }
        }
    }

    func testMoovLastKeepsMoovAtTheEnd() throws {
        let folder = TemporaryFolder()
        let input = try RealFixtures.require(RealFixtures.iphone)
        let output = folder.path("last.mov")
        XCTAssertEqual(runCLI(["remux", input, output, "--moov-last"]).code, 0)
        let written = try Movie.open(path: output)
        XCTAssertFalse(written.isFastStart)
        XCTAssertEqual(written.boxes.last?.type, "moov")
        XCTAssertEqual(runCLI(["compare", input, output]).code, 0)
    }

    func testDestinationRules() throws {
        let folder = TemporaryFolder()
        let input = try writeVariant("iphone", in: folder)
        let inputBytes = try fileBytes(input)
        let output = folder.path("out.mov")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: output))
        let refused = runCLI(["remux", input, output])
        XCTAssertEqual(refused.code, 73, refused.error)
        XCTAssertTrue(refused.error.contains("--force"), refused.error)
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "keep me")
        XCTAssertEqual(runCLI(["remux", input, output, "--force"]).code, 0)
        XCTAssertEqual(runCLI(["compare", input, output]).code, 0)

        // The input itself, also by another name, is refused even with --force.
        XCTAssertEqual(runCLI(["remux", input, input, "--force"]).code, 64)
        let alias = folder.path("alias.mov")
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: input)
        XCTAssertEqual(runCLI(["remux", input, alias, "--force"]).code, 64)
        let hardLink = folder.path("hard.mov")
        try FileManager.default.linkItem(atPath: input, toPath: hardLink)
        XCTAssertEqual(runCLI(["remux", input, hardLink, "--force"]).code, 64)
        XCTAssertEqual(try fileBytes(input), inputBytes)
    }

    /// A folder that cannot take a file gives 73. As root permissions are no obstacle, so the
    /// "folder" is a regular file (ENOTDIR) or a path under read-only /proc; chmod is tried when not root.
    func testUnwritableDestinationFolderIs73() throws {
        let folder = TemporaryFolder()
        let input = try writeVariant("iphone", in: folder)
        let notAFolder = folder.path("plain-file")
        try Data().write(to: URL(fileURLWithPath: notAFolder))
        var destinations = [notAFolder + "/out.mov", folder.path("missing/out.mov"), "/proc/keeptrack-out.mov"]
        if getuid() != 0 {
            let readOnly = folder.path("read-only")
            try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o555])
            destinations.append(readOnly + "/out.mov")
        }
        for destination in destinations {
            let result = runCLI(["remux", input, destination])
            XCTAssertEqual(result.code, 73, "\(destination): \(result.error)")
            XCTAssertTrue(result.error.contains("cannot create"), result.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        }
    }

    /// Above 4 GiB: co64 and a 64-bit mdat header, verified, while holes stay holes (seconds, little disk).
    func testSparseLargeFileUsesCo64AndVerifies() throws {
        let folder = TemporaryFolder()
        var options = FixtureOptions()
        options.sparseVideo = true
        options.videoFrameBytes = 70_000_000
        let input = try FixtureBuilder(options).write(to: folder.path("big.mov"))
        let output = folder.path("big-out.mov")
        var remuxOptions = MovieOutput.Options()
        remuxOptions.verify = true
        let summary = try MovieOutput.remux(input: input, output: output, options: remuxOptions)
        XCTAssertTrue(summary.written.largeOffsets)
        XCTAssertNotNil(summary.verification)
        let written = try Movie.open(path: output)
        XCTAssertGreaterThan(written.source.size, UInt64(UInt32.max))
        let mdat = try XCTUnwrap(written.boxes.first { $0.type == "mdat" })
        XCTAssertEqual(try written.source.read(at: mdat.offset, count: 4), [0, 0, 0, 1], "mdat needs a 64-bit size")
        XCTAssertEqual(mdat.effectiveHeaderForm, .large)
        let video = try XCTUnwrap(written.tracks.first { $0.kind == .video })
        XCTAssertTrue(video.sampleTable.usesLargeOffsets)
        XCTAssertNotNil(video.box.find(["mdia", "minf", "stbl", "co64"]))
        // Structure only: the 4 GiB of holes are not read.
        let comparison = try MovieComparison(Movie.open(path: input), written, sampleData: false)
        XCTAssertTrue(comparison.isIdentical, "\(comparison.differences)")
        // Only the data that exists was written.
        var info = stat()
        XCTAssertEqual(stat(output, &info), 0)
        XCTAssertLessThan(Int64(info.st_blocks) * 512, 64 << 20, "holes were filled in")
        XCTAssertEqual(try ffprobeStreams(output), try ffprobeStreams(input))
    }

    /// Verification reads the written file back: a moved chunk offset is caught by default, a
    /// changed sample byte only by data verification.
    func testVerificationCatchesCorruption() throws {
        let folder = TemporaryFolder()
        let input = try writeVariant("iphone", in: folder)
        let movie = try Movie.open(path: input)
        let writer = MovieWriter(passingThrough: movie)
        for corruption in ["offset", "sample"] {
            let output = try OutputFile(destination: folder.path("\(corruption).mov"), overwrite: false)
            defer { output.discard() }
            _ = try writer.write(to: output)
            try output.finishWriting()
            let written = try Movie.open(path: output.temporaryPath)
            let video = try XCTUnwrap(written.tracks.first { $0.kind == .video })
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: output.temporaryPath))
            if corruption == "offset" {
                let stco = try XCTUnwrap(video.box.find(["mdia", "minf", "stbl", "stco"]))
                // First entry of stco: header 8 + version/flags 4 + count 4.
                try handle.seek(toOffset: stco.offset + 16 + 3)
                let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
                try handle.seek(toOffset: stco.offset + 16 + 3)
                handle.write(Data([byte &+ 1]))
            } else {
                let sample = try XCTUnwrap(video.sampleTable.samples.first { _ in true })
                try handle.seek(toOffset: sample.offset)
                let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
                try handle.seek(toOffset: sample.offset)
                handle.write(Data([~byte]))
            }
            try handle.close()
            if corruption == "offset" {
                XCTAssertThrowsError(try WriteVerification.verify(writer, writtenAt: output.temporaryPath, hashData: false)) { error in
                    // Either the parser's overlap check or the plan check rejects it.
                    XCTAssertEqual((error as? KeepTrackError)?.exitCode, 74)
                    XCTAssertTrue("\(error)".contains("verification of the written file failed"), "\(error)")
                    XCTAssertTrue("\(error)".contains("planned") || "\(error)".contains("overlaps"), "\(error)")
                }
            } else {
                XCTAssertNoThrow(try WriteVerification.verify(writer, writtenAt: output.temporaryPath, hashData: false))
                XCTAssertThrowsError(try WriteVerification.verify(writer, writtenAt: output.temporaryPath, hashData: true)) { error in
                    XCTAssertEqual((error as? KeepTrackError)?.exitCode, 74)
                    XCTAssertTrue("\(error)".contains("sample data differs"), "\(error)")
                }
            }
        }
    }
}
