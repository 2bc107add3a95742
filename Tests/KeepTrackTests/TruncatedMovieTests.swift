import Foundation
import XCTest
@testable import KeepTrack

/// Movies cut short (`head -c`) inside their media data, the moov whole: `inspect` and `lint` read
/// them and count each track's complete samples as ffprobe lists them; `salvage` writes those samples
/// (packets equal to the source's, tracks ending together) and ffmpeg decodes the result cleanly;
/// every other writing command refuses them naming `salvage`. Truly broken tables stay refused.
final class TruncatedMovieTests: XCTestCase {
    /// Moov-first sources: the real recording (remuxed, since it stores moov last and a cut would
    /// lose it), two wild progressive movies and one ffmpeg writes.
    func sources(in folder: TemporaryFolder) throws -> [String] {
        let iphone = folder.path("iphone-moov-first.mov")
        XCTAssertEqual(runCLI(["remux", try RealFixtures.require(RealFixtures.iphone), iphone]).code, 0)
        var paths = [iphone]
        for name in ["eyevinn-mp4ff/prog_8s.mp4", "androidx-media/sample_with_metadata.mp4"] {
            paths.append(try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/" + name).path))
        }
        paths.append(try Self.ffmpegMovie(in: folder))
        return paths
    }

    /// Two seconds of H.264 with B-frames and AAC, moov first, chunks interleaved.
    static func ffmpegMovie(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("ffmpeg.mp4")
        guard let result = runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                               "-t", "2", "-c:v", "libx264", "-bf", "2", "-g", "12", "-c:a", "aac", "-movflags", "+faststart", path]) else {
            throw unavailable("ffmpeg is not installed")
        }
        XCTAssertEqual(result.code, 0, result.out)
        return path
    }

    /// `count` cut points spread over the media data (after moov, before the end).
    static func cutPoints(_ path: String, count: Int) throws -> [Int] {
        let movie = try Movie.open(path: path)
        let moovEnd = Int(movie.moov.offset + movie.moov.size)
        let size = Int(movie.source.size)
        return (1...count).map { moovEnd + 64 + ($0 * (size - moovEnd - 128)) / (count + 1) }
    }

    static func cut(_ path: String, at length: Int, in folder: TemporaryFolder) throws -> String {
        let output = folder.path("cut-\(length)-" + (path as NSString).lastPathComponent)
        try fileBytes(path).prefix(length).write(to: URL(fileURLWithPath: output))
        return output
    }

    /// Per track id: how many leading packets ffprobe lists in `cut` exactly as in `source` (same size
    /// and SHA-256): the complete samples as libavformat sees them.
    static func completeAsFFprobeLists(source: FFprobe.Report, cut: FFprobe.Report) -> [UInt32: Int] {
        var result: [UInt32: Int] = [:]
        for stream in cut.streams {
            guard let id = stream.trackID, let original = source.stream(track: id) else { continue }
            let same = zip(stream.packets, original.packets).prefix { $0.size == $1.size && $0.hash == $1.hash }.count
            result[id] = same
        }
        return result
    }

    func testInspectAndLintCountCompleteSamplesAsFFprobeListsThem() throws {
        let folder = TemporaryFolder()
        for source in try sources(in: folder) {
            let probed = try FFprobe.probe(source)
            for length in try Self.cutPoints(source, count: 5) {
                let cut = try Self.cut(source, at: length, in: folder)
                let context = "\((source as NSString).lastPathComponent) cut at \(length)"
                let inspect = runCLI(["inspect", "--json", cut])
                XCTAssertTrue([0, 1].contains(inspect.code), "\(context): \(inspect.error)")
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(inspect.out.utf8)) as? [String: Any], context)
                let truncated = try XCTUnwrap(json["truncated"] as? [String: Any], "\(context): not reported truncated")
                XCTAssertEqual(truncated["fileSize"] as? Int, length, context)
                let tracks = try XCTUnwrap(truncated["tracks"] as? [[String: Any]])
                let listed = Self.completeAsFFprobeLists(source: probed, cut: try FFprobe.probe(cut))
                for track in tracks {
                    let id = try XCTUnwrap(track["id"] as? Int)
                    let total = try XCTUnwrap(track["samples"] as? Int)
                    let complete = try XCTUnwrap(track["completeSamples"] as? Int)
                    XCTAssertLessThanOrEqual(complete, total, context)
                    if let expected = listed[UInt32(id)] { XCTAssertEqual(complete, expected, "\(context): track \(id)") }
                }
                XCTAssertTrue(tracks.contains { ($0["completeSamples"] as? Int ?? 0) < ($0["samples"] as? Int ?? 0) }, context)

                let lint = runCLI(["lint", "--json", cut])
                XCTAssertEqual(lint.code, 1, "\(context): \(lint.out)")
                XCTAssertTrue(lint.out.contains("\"rule\": \"truncated\""), lint.out)
                // The start of the sample the file ends inside is not "unreferenced" media data.
                XCTAssertEqual(lint.out.contains("unreferenced-media-data"), runCLI(["lint", source]).out.contains("unreferenced-media-data"), context)
            }
        }
    }

    /// A fragmented recording (ffmpeg's +frag_keyframe+empty_moov, as streaming and crash-safe recorders
    /// write) cut in the middle of each fragment's mdat: the fragments in the file are read, the last one
    /// up to its complete samples (counts as ffprobe lists them), and salvage keeps the source's packets.
    func testFragmentedMovieCutInsideAFragmentIsTruncated() throws {
        let folder = TemporaryFolder()
        let source = folder.path("fragmented.mp4")
        guard let made = runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=sample_rate=48000",
                                             "-t", "4", "-c:v", "libx264", "-bf", "2", "-c:a", "aac", "-movflags", "+frag_keyframe+empty_moov",
                                             "-frag_duration", "1000000", source]) else { throw unavailable("ffmpeg is not installed") }
        XCTAssertEqual(made.code, 0, made.out)
        let movie = try Movie.open(path: source)
        XCTAssertTrue(movie.isFragmented)
        let mdats = movie.boxes.filter { $0.type == "mdat" }
        XCTAssertGreaterThanOrEqual(mdats.count, 4)
        let probed = try FFprobe.probe(source)
        for mdat in mdats.dropFirst() {
            let length = Int(mdat.offset + mdat.size / 2)
            let cut = try Self.cut(source, at: length, in: folder)
            let inspect = runCLI(["inspect", "--json", cut])
            XCTAssertEqual(inspect.code, 0, "cut at \(length): \(inspect.error)")
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(inspect.out.utf8)) as? [String: Any])
            let tracks = try XCTUnwrap((json["truncated"] as? [String: Any])?["tracks"] as? [[String: Any]], "cut at \(length)")
            let listed = Self.completeAsFFprobeLists(source: probed, cut: try FFprobe.probe(cut))
            for track in tracks {
                let id = UInt32(try XCTUnwrap(track["id"] as? Int))
                XCTAssertEqual(track["completeSamples"] as? Int, listed[id], "cut at \(length): track \(id)")
            }
            let output = folder.path("saved-\(length).mp4")
            let saved = runCLI(["salvage", cut, output])
            XCTAssertEqual(saved.code, 0, saved.error)
            for stream in try FFprobe.probe(output).streams {
                let original = try XCTUnwrap(probed.stream(track: try XCTUnwrap(stream.trackID)))
                XCTAssertGreaterThan(stream.packets.count, 10)
                XCTAssertEqual(stream.packets.map(\.hash), original.packets.prefix(stream.packets.count).map(\.hash), "cut at \(length)")
            }
            XCTAssertEqual(runToolStandardError("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"]), "", "cut at \(length)")
            XCTAssertEqual(runCLI(["remux", cut, folder.path("remuxed.mp4")]).code, 65)
        }
    }

    /// Every writing command but salvage refuses with 65 and names salvage; nothing is written.
    func testOtherWritingCommandsRefuseNamingSalvage() throws {
        let folder = TemporaryFolder()
        let source = folder.path("iphone.mov")
        XCTAssertEqual(runCLI(["remux", try RealFixtures.require(RealFixtures.iphone), source]).code, 0)
        let cut = try Self.cut(source, at: 1_500_000, in: folder)
        let out = folder.path("out.mov")
        for arguments in [["remux", cut, out], ["trim", cut, out, "--start", "0", "--end", "0.5"], ["extract", cut, out, "--track", "2"],
                          ["strip-spatial", cut, out], ["fix", cut, out]] {
            let result = runCLI(arguments)
            XCTAssertEqual(result.code, 65, "\(arguments[0]): \(result.error)")
            XCTAssertTrue(result.error.contains("salvage"), "\(arguments[0]): \(result.error)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), arguments[0])
        }
    }

    /// salvage: each output track's packets are the source's first ones (same bytes), every track ends
    /// at one time, no audio after the video, and ffmpeg decodes the video and AAC without an error.
    func testSalvageKeepsThePacketsUpToTheCutAndDecodesCleanly() throws {
        let folder = TemporaryFolder()
        var salvaged = 0
        for source in try sources(in: folder) {
            let probed = try FFprobe.probe(source)
            for length in try Self.cutPoints(source, count: 2) {
                let cut = try Self.cut(source, at: length, in: folder)
                let context = "\((source as NSString).lastPathComponent) cut at \(length)"
                let output = folder.path("salvaged-\(length)-" + (source as NSString).lastPathComponent)
                let result = runCLI(["salvage", "--json", cut, output])
                if result.code == 65 {
                    // Only at the very start: some audio or video track has (almost) nothing whole, as ffprobe lists it.
                    XCTAssertTrue(result.error.contains("nothing to salvage"), "\(context): \(result.error)")
                    let listed = Self.completeAsFFprobeLists(source: probed, cut: try FFprobe.probe(cut))
                    let fewest = probed.streams.filter { $0.codecType == "audio" || $0.codecType == "video" }.map { listed[$0.trackID ?? 0] ?? 0 }.min()
                    XCTAssertLessThanOrEqual(fewest ?? 0, 2, context)
                    continue
                }
                salvaged += 1
                XCTAssertEqual(result.code, 0, "\(context): \(result.error)")
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any], context)
                let end = try XCTUnwrap(json["end"] as? Double)
                let kept = Dictionary(uniqueKeysWithValues: try XCTUnwrap(json["tracks"] as? [[String: Any]]).map {
                    (UInt32($0["id"] as? Int ?? 0), ($0["keptSamples"] as? Int ?? -1, $0["completeSamples"] as? Int ?? -1))
                })
                let written = try FFprobe.probe(output)
                for stream in written.streams {
                    let id = try XCTUnwrap(stream.trackID)
                    let original = try XCTUnwrap(probed.stream(track: id))
                    let (keptCount, complete) = try XCTUnwrap(kept[id])
                    XCTAssertEqual(stream.packets.count, keptCount, "\(context): track \(id)")
                    XCTAssertLessThanOrEqual(keptCount, complete, "\(context): track \(id)")
                    XCTAssertEqual(stream.packets.map(\.hash), original.packets.prefix(keptCount).map(\.hash), "\(context): track \(id)")
                    XCTAssertEqual(stream.packets.map(\.isKey), original.packets.prefix(keptCount).map(\.isKey), "\(context): track \(id)")
                    if let duration = stream.duration, stream.codecType == "audio" || stream.codecType == "video" {
                        XCTAssertLessThanOrEqual(duration, end + 0.001, "\(context): track \(id) runs past the common end")
                    }
                }
                XCTAssertEqual(runCLI(["lint", output]).out.contains("truncated"), false, context)
                let decodable = written.streams.filter { $0.codecType == "video" || ($0.codecType == "audio" && $0.codecName != "none" && $0.codecName != "unknown") }
                let maps = decodable.flatMap { ["-map", "0:\($0.index)"] }
                let errors = try XCTUnwrap(runToolStandardError("ffmpeg", ["-v", "error", "-i", output] + maps + ["-f", "null", "-"]))
                XCTAssertEqual(errors, "", "\(context): ffmpeg decoding the salvaged file")
            }
        }
        XCTAssertGreaterThanOrEqual(salvaged, 7, "of 8 cuts, all but the one before any whole sample are salvaged")
    }

    /// eyevinn-mp4ff/prog_8s.mp4 stores half a second of audio before its first video frame: cut inside
    /// that frame, the audio is saved and the video track, with no whole sample, is left out (said so).
    func testTrackWithNoWholeSampleIsLeftOut() throws {
        let folder = TemporaryFolder()
        let source = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/eyevinn-mp4ff/prog_8s.mp4").path)
        let cut = try Self.cut(source, at: 10835, in: folder)
        let output = folder.path("saved.mp4")
        let result = runCLI(["salvage", cut, output])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("track 2 (video): left out, none of its 240 samples is whole"), result.out)
        let written = try FFprobe.probe(output)
        XCTAssertEqual(written.streams.map(\.codecType), ["audio"])
        let original = try XCTUnwrap(try FFprobe.probe(source).stream(track: 1))
        let audio = try XCTUnwrap(written.streams.first)
        XCTAssertGreaterThan(audio.packets.count, 10)
        XCTAssertEqual(audio.packets.map(\.hash), original.packets.prefix(audio.packets.count).map(\.hash))
        XCTAssertEqual(runCLI(["lint", output]).code, 0)
        XCTAssertEqual(runToolStandardError("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"]), "")
    }

    func testSalvageSaysWhatItCutAndRefusesAnIntactMovie() throws {
        let folder = TemporaryFolder()
        let source = try Self.ffmpegMovie(in: folder)
        let cut = try Self.cut(source, at: Int(try fileBytes(source).count * 2 / 3), in: folder)
        let output = folder.path("out.mp4")
        let result = runCLI(["salvage", cut, output])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("truncated") && result.out.contains("every track ending at"), result.out)
        XCTAssertTrue(result.out.contains("missing from the file"), result.out)
        XCTAssertEqual(runCLI(["salvage", cut, output]).code, 73)
        let intact = runCLI(["salvage", source, folder.path("intact.mp4")])
        XCTAssertEqual(intact.code, 64, intact.error)
        XCTAssertTrue(intact.error.contains("not truncated"), intact.error)
    }

    /// The synthetic iPhone layout (moov first) cut in the middle of its mdat (once a MalformedInputTests
    /// case): inspect reads it; remux refuses with 65 naming the mdat, its byte offset and salvage.
    func testSyntheticMovieCutInsideMediaDataIsTruncatedNotMalformed() throws {
        let folder = TemporaryFolder()
        let whole = try writeVariant("moov-first", in: folder)
        let mdat = try XCTUnwrap(try Movie.open(path: whole).boxes.last { $0.type == "mdat" })
        let cut = try Self.cut(whole, at: Int(mdat.offset + mdat.size / 2), in: folder)
        let inspect = runCLI(["inspect", cut])
        XCTAssertEqual(inspect.code, 0, inspect.error)
        XCTAssertTrue(inspect.out.contains("Truncated: mdat at byte \(mdat.offset)"), inspect.out)
        let remux = runCLI(["remux", cut, folder.path("out.mov")])
        XCTAssertEqual(remux.code, 65)
        XCTAssertTrue(remux.error.contains("mdat at byte \(mdat.offset)") && remux.error.contains("keeptrack salvage"), remux.error)
        XCTAssertEqual(runCLI(["salvage", cut, folder.path("salvaged.mov")]).code, 0)
        XCTAssertEqual(runCLI(["lint", folder.path("salvaged.mov")]).code, 0)
    }

    /// A chunk pointing past what the last mdat claims is a broken table, not a short file: still 65,
    /// naming the box, even when the file is also cut short.
    func testBrokenTableInACutFileIsStillMalformed() throws {
        let folder = TemporaryFolder()
        let source = try Self.ffmpegMovie(in: folder)
        let movie = try Movie.open(path: source)
        let stco = try XCTUnwrap(movie.tracks.first?.box.find(["mdia", "minf", "stbl", "stco"]))
        var bytes = try fileBytes(source)
        let entry = Int(stco.payloadOffset) + 8
        bytes.replaceSubrange(entry..<entry + 4, with: [0x7F, 0xFF, 0xFF, 0x00])
        let broken = folder.path("broken.mp4")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: broken))
        for command in ["inspect", "lint", "salvage"] {
            let result = runCLI([command, broken] + (command == "salvage" ? [folder.path("s.mp4")] : []))
            XCTAssertEqual(result.code, 65, "\(command): \(result.out) \(result.error)")
        }
        XCTAssertTrue(runCLI(["inspect", broken]).error.contains("stco"))
    }
}
