import Foundation
import XCTest
@testable import KeepTrack

/// `flatten-stereo` on the two MV-HEVC files of `wild/`: every sample keeps exactly its base-layer NAL units,
/// judged by a NAL walker of the test's own over the bytes ffprobe locates (no keeptrack reading), and ffmpeg
/// decodes the same frames from the output as from the source.
final class StereoFlattenTests: XCTestCase {
    /// (position, size, pts, dts, flags) of every video packet, as ffprobe reads them.
    static func packets(_ path: String) throws -> [[String]] {
        let out = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos,size,pts,dts,flags",
                                                     "-of", "csv=p=0", path])).out
        return out.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    /// The NAL units of one 4-byte-length-prefixed HEVC sample: (nuh_layer_id, the unit with its length field).
    static func units(_ sample: ArraySlice<UInt8>) -> [(layer: Int, bytes: ArraySlice<UInt8>)]? {
        var result: [(Int, ArraySlice<UInt8>)] = []
        var at = sample.startIndex
        while at < sample.endIndex {
            guard sample.endIndex - at >= 6 else { return nil }
            let length = sample[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length >= 2, at + 4 + length <= sample.endIndex else { return nil }
            result.append((Int(sample[at + 4] & 1) << 5 | Int(sample[at + 5] >> 3), sample[at..<at + 4 + length]))
            at += 4 + length
        }
        return result
    }

    func testEverySampleKeepsExactlyItsBaseLayerAndDecodesToTheSameFrames() throws {
        for name in [StereoVideoTests.spatial, StereoVideoTests.water] {
            let source = try AudioFactsTests.wild(name)
            let folder = TemporaryFolder()
            let output = folder.path("flat.mov")
            let run = runCLI(["flatten-stereo", source, output])
            XCTAssertEqual(run.code, 0, run.error)
            XCTAssertTrue(run.out.contains("flattened to 2D (the base view, left eye)"), run.out)

            let sourceBytes = [UInt8](try fileBytes(source)), outputBytes = [UInt8](try fileBytes(output))
            let before = try Self.packets(source), after = try Self.packets(output)
            XCTAssertEqual(after.count, before.count, name)
            XCTAssertGreaterThan(before.count, 0, name)
            var droppedUnits = 0
            for (old, new) in zip(before, after) {
                XCTAssertEqual(Array(new[0...1]) + [new[4]], Array(old[0...1]) + [old[4]], "\(name): pts, dts and flags kept")
                let oldAt = try XCTUnwrap(Int(old[3])), oldSize = try XCTUnwrap(Int(old[2]))
                let newAt = try XCTUnwrap(Int(new[3])), newSize = try XCTUnwrap(Int(new[2]))
                let units = try XCTUnwrap(Self.units(sourceBytes[oldAt..<oldAt + oldSize]), "\(name): source sample at \(oldAt)")
                XCTAssertTrue(units.contains { $0.layer > 0 }, "\(name): the source sample holds the second view")
                droppedUnits += units.filter { $0.layer > 0 }.count
                let base = units.filter { $0.layer == 0 }.flatMap(\.bytes)
                XCTAssertEqual(Array(outputBytes[newAt..<newAt + newSize]), base, "\(name): the output sample is the source's layer-0 units")
            }
            XCTAssertTrue(run.out.contains("\(droppedUnits) NAL units of the second view dropped"), run.out)

            // An independent decoder: ffmpeg decodes the base view of the source and the whole output alike.
            let frames = { (path: String) in runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-f", "framecrc", "-"])?.out }
            let decoded = try XCTUnwrap(frames(source))
            XCTAssertEqual(decoded.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, before.count, name)
            XCTAssertEqual(frames(output), decoded, "\(name): the same pictures")

            // The sample entry says 2D: no second layer, no eyes; what stays true of the one view stays.
            XCTAssertNil(StereoVideoTests.scannedPayload("lhvC", in: outputBytes), name)
            XCTAssertNil(StereoVideoTests.scannedPayload("eyes", in: outputBytes), name)
            XCTAssertEqual(StereoVideoTests.scannedPayload("hfov", in: outputBytes), StereoVideoTests.scannedPayload("hfov", in: sourceBytes), name)
            XCTAssertEqual(StereoVideoTests.scannedPayload("prji", in: outputBytes), StereoVideoTests.scannedPayload("prji", in: sourceBytes), name)
            let movie = try Movie.open(path: output)
            XCTAssertNil(movie.tracks.first?.video?.stereo, name)
            XCTAssertEqual(movie.tracks.count, try Movie.open(path: source).tracks.count, name)
        }
    }

    /// What `ffmpeg -c copy` makes of spatial video: every byte of the second view kept, `lhvC` dropped. lint
    /// warns (`stereo-layer-undescribed`), flatten-stereo removes those units all the same (checked against the
    /// test's own NAL walk over the bytes ffprobe locates, and ffmpeg's decoded frames), and the result lints
    /// clean; the original MV-HEVC and plain HEVC get no such warning.
    func testASecondViewCopiedWithoutItsDescriptionIsFoundByLintAndRemoved() throws {
        let folder = TemporaryFolder()
        for name in [StereoVideoTests.spatial, StereoVideoTests.water] {
            let original = try AudioFactsTests.wild(name)
            let copied = folder.path("ffmpeg-copy.mov"), output = folder.path("flat.mov")
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", original, "-c", "copy", "-map", "0", copied])?.code, 0)
            let copiedBytes = [UInt8](try fileBytes(copied))
            XCTAssertNil(StereoVideoTests.scannedPayload("lhvC", in: copiedBytes), "\(name): ffmpeg drops lhvC")
            func rules(_ path: String) throws -> [String] {
                let run = runCLI(["lint", "--json", path])
                let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any], run.out)
                return (object["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
            }
            XCTAssertEqual(try rules(copied), ["stereo-layer-undescribed"], name)
            XCTAssertEqual(try rules(original), [], "\(name): the second view is described")

            let run = runCLI(["flatten-stereo", copied, output, "--force"])
            XCTAssertEqual(run.code, 0, run.error)
            XCTAssertTrue(run.out.contains("the sample entry had no lhvC"), run.out)
            let outputBytes = [UInt8](try fileBytes(output))
            let before = try Self.packets(copied), after = try Self.packets(output)
            XCTAssertEqual(after.count, before.count, name)
            for (old, new) in zip(before, after) {
                let oldAt = try XCTUnwrap(Int(old[3])), oldSize = try XCTUnwrap(Int(old[2]))
                let newAt = try XCTUnwrap(Int(new[3])), newSize = try XCTUnwrap(Int(new[2]))
                let units = try XCTUnwrap(Self.units(copiedBytes[oldAt..<oldAt + oldSize]))
                XCTAssertTrue(units.contains { $0.layer > 0 }, "\(name): ffmpeg's copy still holds the second view")
                XCTAssertEqual(Array(outputBytes[newAt..<newAt + newSize]), units.filter { $0.layer == 0 }.flatMap(\.bytes), name)
            }
            // The same frames at the same times as ffmpeg's copy (whose times are ffmpeg's: on water_180 its copy
            // moves them), and the same pictures as the original.
            let frames = { (path: String) in runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-f", "framecrc", "-"])?.out }
            let pictures = { (path: String) in frames(path)?.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last ?? "" } }
            XCTAssertEqual(frames(output), try XCTUnwrap(frames(copied)), "\(name): ffmpeg's copy's frames")
            XCTAssertEqual(pictures(output), try XCTUnwrap(pictures(original)), "\(name): the original's pictures")
            XCTAssertEqual(try rules(output), [], name)
        }
        XCTAssertEqual(try { () throws -> [String] in
            let run = runCLI(["lint", "--json", try AudioFactsTests.wild("androidx-media/h265_with_metadata_track.mp4")])
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
            return (object["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }.filter { $0 == "stereo-layer-undescribed" }
        }(), [], "plain HEVC")
    }

    /// A second layer whose parameter sets are in `hvcC` is described there (and decodable, as an alpha layer must
    /// be): not reported, not flattened. Made from ffmpeg's copy by relabelling its hvcC's SPS as
    /// layer 1; the record's arrays are read as the bytes say (`layersWithParameterSets`, against the test's reading).
    func testALayerWhoseParameterSetsAreInHvcCIsLeftAlone() throws {
        let folder = TemporaryFolder()
        let original = try AudioFactsTests.wild(StereoVideoTests.water)
        let originalBytes = [UInt8](try fileBytes(original))
        XCTAssertEqual(StereoFlatten.layersWithParameterSets(configuration: try XCTUnwrap(StereoVideoTests.scannedPayload("hvcC", in: originalBytes)), arraysAt: 22),
                       [0, 0, 0, 0], "VPS, SPS, PPS and SEI of the base layer")
        XCTAssertEqual(StereoFlatten.layersWithParameterSets(configuration: try XCTUnwrap(StereoVideoTests.scannedPayload("lhvC", in: originalBytes)), arraysAt: 5),
                       [1, 1], "the second view's SPS and PPS")
        XCTAssertNil(StereoFlatten.layersWithParameterSets(configuration: [1, 2, 3], arraysAt: 22))

        let copied = folder.path("ffmpeg-copy.mov")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", original, "-c", "copy", "-map", "0", copied])?.code, 0)
        var bytes = [UInt8](try fileBytes(copied))
        let hvcC = try XCTUnwrap((4..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == Array("hvcC".utf8) }) + 4
        // Walk the arrays (they start 22 bytes into the payload) to the SPS (type 33) and set its layer to 1.
        var at = hvcC + 23
        var relabelled = false
        for _ in 0..<bytes[hvcC + 22] {
            let type = bytes[at] & 63, count = Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
            at += 3
            for _ in 0..<count {
                let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                if type == 33 { bytes[at + 3] |= 1 << 3; relabelled = true }
                at += 2 + length
            }
        }
        XCTAssertTrue(relabelled)
        let described = folder.path("described.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: described))
        let lint = runCLI(["lint", described])
        XCTAssertFalse(lint.out.contains("stereo-layer-undescribed"), lint.out)
        let run = runCLI(["flatten-stereo", described, folder.path("flat.mov")])
        XCTAssertEqual(run.code, 0, run.error)
        XCTAssertTrue(run.out.contains("no stereo (MV-HEVC) video track: nothing written"), run.out)
    }

    /// The whole wild corpus as a folder run: the two MV-HEVC movies are flattened, the one movie the reader
    /// refuses (a `free` box of size 3) fails with 65 naming the box, and every other movie (fragmented,
    /// encrypted, audio-only) is reported as having no stereo video; nothing else is written.
    func testTheWildCorpusAsAFolderFlattensOnlyTheStereoMovies() throws {
        let wild = try RealFixtures.require(WildCorpusTests.folder.path)
        let folder = TemporaryFolder()
        let report = folder.path("report.json")
        let run = runCLI(["flatten-stereo", wild, "--recursive", "--out-dir", folder.path("out"), "--report", report])
        XCTAssertEqual(run.code, 65, "the worst exit seen: the malformed movie's")
        XCTAssertTrue(run.error.contains("sample_malformed_free_box.mp4: malformed input: free at byte 32"), run.error)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let rows = try XCTUnwrap(object["rows"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(rows.count, 36, "every .mov/.mp4/.m4a/.3gp of the corpus")
        func names(_ action: String) -> Set<String> {
            Set(rows.filter { $0["action"] as? String == action }.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } })
        }
        XCTAssertEqual(names("flattened"), ["stereo_spatial.mp4", "water_180_mvhevc_5frames.mov"])
        let failed = rows.filter { ($0["exitCode"] as? Int ?? 0) != 0 }.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        XCTAssertEqual(failed, ["sample_malformed_free_box.mp4"])
        XCTAssertEqual(rows.filter { $0["action"] as? String == "none" }.count, rows.count - 3)
        let written = FileManager.default.enumerator(atPath: folder.path("out"))?.compactMap { $0 as? String }.filter { $0.hasSuffix(".mp4") || $0.hasSuffix(".mov") }
        XCTAssertEqual(Set((written ?? []).map { ($0 as NSString).lastPathComponent }), ["stereo_spatial.mp4", "water_180_mvhevc_5frames.mov"])
    }

    /// Nothing stereo: reported, nothing written. A sample whose NAL length runs past it, and one left with
    /// no base-layer unit: exit 65 naming the sample's byte offset, nothing written. An lhvC whose NAL length
    /// size differs from hvcC's: exit 65 naming the lhvC.
    func testRefusalsLeaveNothingBehind() throws {
        let folder = TemporaryFolder()
        let flat = try AudioFactsTests.wild("eyevinn-mp4ff/prog_8s.mp4")
        let none = runCLI(["flatten-stereo", flat, folder.path("none.mp4")])
        XCTAssertEqual(none.code, 0, none.error)
        XCTAssertTrue(none.out.contains("no stereo (MV-HEVC) video track: nothing written"), none.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("none.mp4")))

        let source = try AudioFactsTests.wild(StereoVideoTests.spatial)
        let bytes = [UInt8](try fileBytes(source))
        let first = try XCTUnwrap(try Self.packets(source).first)
        let at = try XCTUnwrap(Int(first[3]))
        let units = try XCTUnwrap(Self.units(bytes[at..<at + (try XCTUnwrap(Int(first[2])))]))
        // The first unit's length made one byte longer than the sample holds.
        var overrun = bytes
        let total = units.reduce(0) { $0 + $1.bytes.count }
        let tooLong = total - 4 + 1
        overrun.replaceSubrange(at..<at + 4, with: [UInt8(tooLong >> 24 & 255), UInt8(tooLong >> 16 & 255), UInt8(tooLong >> 8 & 255), UInt8(tooLong & 255)])
        // Every layer-0 unit of the first sample relabelled layer 1.
        var noBase = bytes
        var position = at
        for unit in units {
            if unit.layer == 0 { noBase[position + 5] |= 1 << 3 }
            position += unit.bytes.count
        }
        // lhvC's lengthSizeMinusOne (the low bits of its fifth byte) made 1 (2-byte lengths) against hvcC's 3.
        var lengths = bytes
        let lhvC = try XCTUnwrap((4..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == Array("lhvC".utf8) })
        XCTAssertEqual(lengths[lhvC + 8] & 3, 3, "the file's lhvC says 4-byte lengths")
        lengths[lhvC + 8] = lengths[lhvC + 8] & ~3 | 1
        let mismatched = folder.path("lengths.mp4")
        try Data(lengths).write(to: URL(fileURLWithPath: mismatched))
        let refused = runCLI(["flatten-stereo", mismatched, folder.path("lengths-flat.mp4")])
        XCTAssertEqual(refused.code, 65, refused.out + refused.error)
        XCTAssertTrue(refused.error.contains("at byte \(lhvC - 4)") && refused.error.contains("lhvC says 2-byte NAL lengths, hvcC 4-byte"), refused.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("lengths-flat.mp4")))

        for (label, variant) in [("overrun", overrun), ("no-base", noBase)] {
            let damaged = folder.path("\(label).mp4"), output = folder.path("\(label)-flat.mp4")
            try Data(variant).write(to: URL(fileURLWithPath: damaged))
            let run = runCLI(["flatten-stereo", damaged, output])
            XCTAssertEqual(run.code, 65, "\(label): \(run.out) \(run.error)")
            XCTAssertTrue(run.error.contains("at byte \(at)"), "\(label): \(run.error)")
            XCTAssertTrue(run.error.contains("sample 1"), "\(label): \(run.error)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), label)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".") }, [], "\(label): no temporary left")
        }
    }
}
