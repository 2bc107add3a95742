import Foundation
import XCTest
@testable import KeepTrack

/// `keeptrack repair BROKEN --reference GOOD OUT` on recordings interrupted the way a dead battery
/// leaves them: the media data cut at some point, no moov. Sources are movies ffmpeg writes with its
/// default layout (moov at the end) and the real iPhone recording; each cut's output is read by ffprobe
/// and must hold exactly the source's samples that lie wholly before the cut, and decode in ffmpeg
/// without an error message.
final class RepairTests: XCTestCase {
    func ffmpeg(_ arguments: [String]) throws {
        guard let result = runTool("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments) else { throw unavailable("ffmpeg is not installed") }
        XCTAssertEqual(result.code, 0, "ffmpeg \(arguments)")
    }

    /// A short recording and a reference of the same settings with other pictures and sound.
    func makeRecording(in folder: TemporaryFolder, video: [String], name: String) throws -> (source: String, reference: String) {
        let (source, reference) = (folder.path("source-\(name)"), folder.path("reference-\(name)"))
        let audio = ["-c:a", "aac", "-b:a", "96k", "-ac", "2"]
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=3", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3"]
                   + video + audio + [source])
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=2"]
                   + video + audio + [reference])
        return (source, reference)
    }

    /// Writes the first `cut` bytes of `source` (its moov, at the end, is lost with the rest).
    func cutCopy(_ source: String, at cut: Int, to path: String) throws {
        try fileBytes(source).prefix(cut).write(to: URL(fileURLWithPath: path))
    }

    /// Where the source's media data starts and its moov (after it) starts.
    func mediaDataExtent(_ path: String) throws -> (start: Int, moov: Int) {
        let bytes = [UInt8](try fileBytes(path))
        func find(_ type: String) -> Int? {
            let pattern = Array(type.utf8)
            return (4..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == pattern }
        }
        let mdat = try XCTUnwrap(find("mdat")), moov = try XCTUnwrap(find("moov"))
        XCTAssertGreaterThan(moov, mdat, "moov after the media data")
        return (mdat + 4, moov - 4)
    }

    /// Runs repair and checks every listed track of the output against the source's samples before `cut`:
    /// ffprobe's packets (times, size, key flag, SHA-256) equal the source's first ones, and at least one.
    /// Returns the JSON report.
    @discardableResult
    /// `untimed`: tracks compared by bytes, size and key flag only (timed metadata: each sample gets the
    /// reference's usual duration, while the recording's vary by a tick).
    func repairAndCompare(source: String, reference: String, cut: Int, tracks: [UInt32], untimed: Set<UInt32> = [], folder: TemporaryFolder, name: String,
                          file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let broken = folder.path("broken-\(name)")
        let output = folder.path("repaired-\(name)")
        try cutCopy(source, at: cut, to: broken)
        let result = runCLI(["repair", broken, "--reference", reference, output, "--json"])
        XCTAssertEqual(result.code, 0, result.error, file: file, line: line)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any], result.out, file: file, line: line)
        let movie = try Movie(source: FileByteSource(path: source))
        let original = try FFprobe.probe(source)
        let repaired = try FFprobe.probe(output)
        for id in tracks {
            let track = try XCTUnwrap(movie.tracks.first { $0.id == id })
            let complete = track.sampleTable.samples.prefix { $0.offset + UInt64($0.size) <= UInt64(cut) }.count
            let got = try XCTUnwrap(repaired.stream(track: id), "track \(id) is in the output", file: file, line: line).packets
            XCTAssertGreaterThan(got.count, 0, "track \(id) at cut \(cut)", file: file, line: line)
            // Video may leave out its last few pictures (shown after B-frames that were cut off: at most about the
            // reorder depth, 3 B-frames for x264 veryfast); every other
            // sample wholly before the cut comes back.
            let heldBack = (report["tracks"] as? [[String: Any]])?.first { $0["id"] as? Int == Int(id) }?["heldBack"] as? Int ?? 0
            XCTAssertEqual(got.count, complete - heldBack, "track \(id) at cut \(cut)", file: file, line: line)
            XCTAssertLessThanOrEqual(heldBack, 8, "track \(id) at cut \(cut)", file: file, line: line)
            let expected = Array(try XCTUnwrap(original.stream(track: id)).packets.prefix(got.count))
            // The last packet's duration is what ffprobe derives from the movie's end: left out.
            func comparable(_ packets: [FFprobe.Packet]) -> [FFprobe.Packet] {
                packets.map { var p = $0; p.duration = nil; if untimed.contains(id) { (p.pts, p.dts) = (nil, nil) }; return p }
            }
            XCTAssertNil(FFprobe.difference(comparable(expected), comparable(got)), "track \(id) cut at \(cut)", file: file, line: line)
        }
        let decode = try XCTUnwrap(runToolStandardError("ffmpeg", ["-v", "error", "-nostdin", "-i", output, "-map", "0:v?", "-map", "0:a?", "-f", "null", "-"]))
        XCTAssertEqual(decode.trimmingCharacters(in: .whitespacesAndNewlines), "", "ffmpeg decodes the repaired file of cut \(cut)", file: file, line: line)
        return report
    }

    func testH264AndAACRecordingCutAtSeveralPoints() throws {
        let folder = TemporaryFolder()
        let (source, reference) = try makeRecording(in: folder, video: ["-c:v", "libx264", "-preset", "veryfast", "-g", "25", "-pix_fmt", "yuv420p"], name: "h264.mp4")
        let (start, moov) = try mediaDataExtent(source)
        for fraction in [0.1, 0.2, 0.55, 0.9] {
            let cut = start + Int(Double(moov - start) * fraction)
            try repairAndCompare(source: source, reference: reference, cut: cut, tracks: [1, 2], folder: folder, name: "\(fraction).mp4")
        }
    }

    func testHEVCAndAACQuickTimeRecording() throws {
        let folder = TemporaryFolder()
        let (source, reference) = try makeRecording(in: folder, video: ["-c:v", "libx265", "-x265-params", "log-level=error", "-preset", "ultrafast", "-g", "25",
                                                                       "-pix_fmt", "yuv420p", "-tag:v", "hvc1"], name: "hevc.mov")
        let (start, moov) = try mediaDataExtent(source)
        for fraction in [0.35, 0.8] {
            let cut = start + Int(Double(moov - start) * fraction)
            try repairAndCompare(source: source, reference: reference, cut: cut, tracks: [1, 2], folder: folder, name: "\(fraction).mov")
        }
    }

    /// The iPhone layout (HEVC with Dolby Vision units, AAC, APAC, six mebx tracks), its moov cut off with
    /// the end of its data. The recording is its own reference (the only one of that device here): the walk
    /// uses its sample descriptions and chunk pattern, not its sample positions. Video, AAC and the two
    /// constant-size metadata tracks come back exactly; APAC is located by the chunk pattern and reported,
    /// not written.
    func testIPhoneRecordingWithItsMoovCutOff() throws {
        let real = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        for cut in [1_000_000, 1_600_000] {
            let report = try repairAndCompare(source: real, reference: real, cut: cut, tracks: [1, 2, 7, 8], untimed: [7, 8], folder: folder, name: "\(cut).mov")
            let tracks = try XCTUnwrap(report["tracks"] as? [[String: Any]])
            let apac = try XCTUnwrap(tracks.first { $0["format"] as? String == "apac" })
            XCTAssertEqual(apac["written"] as? Int, 0)
            XCTAssertGreaterThan(apac["unplacedBytes"] as? Int ?? 0, 10_000)
            XCTAssertTrue((apac["check"] as? String)?.hasPrefix("not placed") == true, "\(apac)")
            // The ranges reported for APAC are exactly its chunks in the source (the one the cut falls in, to the cut).
            let unplaced = try XCTUnwrap(report["unplaced"] as? [[String: Any]])
            let located = unplaced.filter { $0["track"] as? Int == 3 }.map { [$0["offset"] as? Int ?? -1, $0["bytes"] as? Int ?? -1] }
            let apacTrack = try XCTUnwrap(try Movie(source: FileByteSource(path: real)).tracks.first { $0.format == "apac" })
            var chunks: [[Int]] = []
            var iterator = apacTrack.sampleTable.makeChunkIterator()
            while let chunk = iterator.next(), chunk.offset < UInt64(cut) { chunks.append([Int(chunk.offset), min(Int(chunk.byteCount), cut - Int(chunk.offset))]) }
            XCTAssertFalse(chunks.isEmpty)
            XCTAssertEqual(located, chunks)
            let repaired = try FFprobe.probe(folder.path("repaired-\(cut).mov"), packets: false)
            XCTAssertNil(repaired.stream(track: 3), "no APAC track is written from guessed samples")
        }
    }

    /// A reference of other settings (High 4:4:4 against the recording's 4:2:0): its parameter sets decode
    /// two pictures into garbage without an error, then fail on the third; the group of pictures of a failure
    /// is not kept, so no video is written and the report names the sample; the AAC is still recovered exactly.
    func testReferenceOfOtherSettingsWritesNoUncheckedVideo() throws {
        let folder = TemporaryFolder()
        let (source, _) = try makeRecording(in: folder, video: ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"], name: "s.mp4")
        let other = folder.path("other.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=2",
                    "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv444p", "-c:a", "aac", "-b:a", "96k", "-ac", "2", other])
        let (start, moov) = try mediaDataExtent(source)
        let broken = folder.path("broken.mp4")
        try cutCopy(source, at: (start + moov) / 2, to: broken)
        let result = runCLI(["repair", broken, "--reference", other, folder.path("out.mp4"), "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let tracks = try XCTUnwrap(report["tracks"] as? [[String: Any]])
        let video = try XCTUnwrap(tracks.first { $0["format"] as? String == "avc1" })
        XCTAssertEqual(video["written"] as? Int, 0, "\(video)")
        XCTAssertTrue((video["stopped"] as? String)?.contains("does not decode") == true, "\(video)")
        let audio = try XCTUnwrap(tracks.first { $0["format"] as? String == "mp4a" })
        XCTAssertGreaterThan(audio["written"] as? Int ?? 0, 20, "\(audio)")
        let repaired = try FFprobe.probe(folder.path("out.mp4"))
        XCTAssertNil(repaired.stream(track: 1))
        let expected = try XCTUnwrap(FFprobe.probe(source).stream(track: 2)).packets
        let got = try XCTUnwrap(repaired.stream(track: 2)).packets
        XCTAssertEqual(got.map(\.hash), Array(expected.prefix(got.count)).map(\.hash))
    }

    func testRefusals() throws {
        let folder = TemporaryFolder()
        let (source, reference) = try makeRecording(in: folder, video: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"], name: "r.mp4")
        // A file with its moov is not an interrupted recording.
        let whole = runCLI(["repair", source, "--reference", reference, folder.path("out.mp4")])
        XCTAssertEqual(whole.code, 65, whole.error)
        XCTAssertTrue(whole.error.contains("moov"), whole.error)
        XCTAssertEqual(runCLI(["repair", source, folder.path("out.mp4")]).code, 64)
        XCTAssertEqual(runCLI(["repair", folder.path("absent.mp4"), "--reference", reference, folder.path("out.mp4")]).code, 66)
        // Bytes that hold no sample of the reference's tracks.
        let noise = folder.path("noise.mp4")
        try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }).write(to: URL(fileURLWithPath: noise))
        XCTAssertEqual(runCLI(["repair", noise, "--reference", reference, folder.path("out.mp4")]).code, 65)
        // OUT exists: never replaced without --force.
        let (start, moov) = try mediaDataExtent(source)
        let broken = folder.path("broken.mp4")
        try cutCopy(source, at: (start + moov) / 2, to: broken)
        let existing = folder.path("existing.mp4")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: existing))
        XCTAssertEqual(runCLI(["repair", broken, "--reference", reference, existing]).code, 73)
        XCTAssertEqual(try fileBytes(existing), Data("keep".utf8))
        XCTAssertEqual(runCLI(["repair", broken, "--reference", reference, existing, "--force"]).code, 0)
    }
}
