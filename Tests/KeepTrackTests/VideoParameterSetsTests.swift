import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackCodec

final class VideoParameterSetsTests: XCTestCase {
    func testAnnexBSplittingAndLengthPrefixing() {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 0, 0, 3, 1, 9, 0]
        XCTAssertEqual(VideoParameterSets.annexBUnits(stream).map(Array.init), [[0x67, 1, 2], [0x68, 3], [0x65, 0, 0, 3, 1, 9]])
        XCTAssertEqual(VideoParameterSets.lengthPrefixed(annexB: stream),
                       [0, 0, 0, 3, 0x67, 1, 2, 0, 0, 0, 2, 0x68, 3, 0, 0, 0, 6, 0x65, 0, 0, 3, 1, 9])
        XCTAssertEqual(VideoParameterSets.annexBUnits([1, 2, 3]), [])
    }

    /// The start-code search skips from one 01 byte to the next; on streams dense in 00 and 01 bytes
    /// (where 00 00 01 and 00 00 00 01 overlap and touch) it must find exactly the units a byte-by-byte
    /// reading finds.
    func testAnnexBSplittingMatchesAByteByByteReading() {
        func byteByByte(_ bytes: [UInt8]) -> [[UInt8]] {
            var starts: [(code: Int, payload: Int)] = [], index = 0
            while index + 2 < bytes.count {
                if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                    starts.append((index > 0 && bytes[index - 1] == 0 ? index - 1 : index, index + 3)); index += 3
                } else { index += 1 }
            }
            return starts.indices.compactMap { position in
                var end = position + 1 < starts.count ? starts[position + 1].code : bytes.count
                while end > starts[position].payload, bytes[end - 1] == 0 { end -= 1 }
                return end > starts[position].payload ? Array(bytes[starts[position].payload..<end]) : nil
            }
        }
        var state: UInt64 = 15  // a fixed linear congruential sequence: the same streams every run
        func next() -> UInt64 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return state >> 33 }
        var units = 0
        for length in [0, 1, 2, 3, 4, 5, 8, 64, 1_000] {
            for _ in 0..<200 {
                let stream = (0..<length).map { _ in [0, 0, 0, 1, 1, 0x65, 0xFF][Int(next() % 7)] as UInt8 }
                let found = VideoParameterSets.annexBUnits(stream).map(Array.init)
                XCTAssertEqual(found, byteByByte(stream), "\(stream)")
                units += found.count
            }
        }
        XCTAssertGreaterThan(units, 10_000)  // the streams did hold start codes
    }

    /// Encodes a short clip twice with ffmpeg: into a .mov (its muxer writes the configuration box) and as
    /// a raw Annex B stream; the box built from the raw stream must say what ffmpeg's says.
    private func encode(_ codec: String, extra: [String], rawFormat: String, folder: TemporaryFolder) throws -> (box: [UInt8], raw: [UInt8]) {
        let common = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10:duration=1", "-c:v", codec] + extra
        let mov = folder.path("\(codec).mov"), raw = folder.path("\(codec).\(rawFormat)")
        guard runTool("ffmpeg", common + [mov])?.code == 0, runTool("ffmpeg", common + ["-f", rawFormat, raw])?.code == 0 else {
            throw unavailable("ffmpeg with \(codec) is not available")
        }
        let movie = try Movie.open(path: mov)
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        let stsd = try XCTUnwrap(video.box.find(["mdia", "minf", "stbl", "stsd"]))
        let entry = try XCTUnwrap(stsd.children.first)
        let configuration = try XCTUnwrap(entry.first(codec == "libx264" ? "avcC" : "hvcC"))
        return (configuration.payload, [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
    }

    func testAVCConfigurationMatchesFFmpegs() throws {
        let folder = TemporaryFolder()
        let (box, raw) = try encode("libx264", extra: ["-pix_fmt", "yuv420p"], rawFormat: "h264", folder: folder)
        let ours = try VideoParameterSets.avcConfiguration(annexB: raw)
        let sharedLength = min(box.count, ours.count)
        XCTAssertGreaterThan(sharedLength, 10)
        // ffmpeg 5.1 omits the optional High-profile trailer (chroma format, bit depths) that we add.
        XCTAssertEqual(Array(ours.prefix(sharedLength)), Array(box.prefix(sharedLength)))
        XCTAssertEqual(Array(ours.suffix(4)), [0xFD, 0xF8, 0xF8, 0])  // 4:2:0, 8-bit
    }

    func testHEVCConfigurationMatchesFFmpegsForMain10() throws {
        let folder = TemporaryFolder()
        let (box, raw) = try encode("libx265", extra: ["-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error"],
                                    rawFormat: "hevc", folder: folder)
        let ours = try VideoParameterSets.hevcConfiguration(annexB: raw)
        // Same profile/tier/level/compatibility/constraints, chroma format, bit depths and layer byte;
        // bytes 13-15 (segmentation, parallelism) may differ: we write "unknown", which is allowed.
        XCTAssertEqual(Array(ours[0..<13]), Array(box[0..<13]))
        XCTAssertEqual(Array(ours[16..<22]), Array(box[16..<22]))
        XCTAssertEqual(ours[1] & 0x1F, 2, "Main 10 profile")
        XCTAssertEqual(ours[18] & 0x07, 2, "10-bit luma")
        // The parameter sets themselves: VPS, SPS, PPS arrays identical.
        func arrays(_ record: [UInt8]) -> [UInt8: [[UInt8]]] {
            var result: [UInt8: [[UInt8]]] = [:]
            var index = 23
            for _ in 0..<Int(record[22]) {
                let type = record[index] & 0x3F
                let count = Int(record[index + 1]) << 8 | Int(record[index + 2])
                index += 3
                for _ in 0..<count {
                    let length = Int(record[index]) << 8 | Int(record[index + 1])
                    result[type, default: []].append(Array(record[(index + 2)..<(index + 2 + length)]))
                    index += 2 + length
                }
            }
            return result
        }
        let theirs = arrays(box), mine = arrays(ours)
        for type: UInt8 in [32, 33, 34] { XCTAssertEqual(mine[type], theirs[type], "NAL type \(type)") }
    }

    func testTruncatedParameterSetsAreErrorsNotCrashes() {
        XCTAssertThrowsError(try VideoParameterSets.avcConfiguration(annexB: [0, 0, 1, 0x67, 0x64]))
        XCTAssertThrowsError(try VideoParameterSets.hevcConfiguration(annexB: [0, 0, 1, 0x40, 1, 0, 0, 1, 0x42, 1, 1, 0, 0, 1, 0x44, 1]))
    }

    /// More units than the record's count fields hold, a unit longer than its 16-bit length, and
    /// Exp-Golomb values past what the fields hold were traps (UInt8/UInt16 conversions); they are
    /// refusals now. Fuzz/regressions holds two of them as fuzz inputs.
    func testRecordsThatDoNotFitAreRefusedNotTrapped() throws {
        let code: [UInt8] = [0, 0, 0, 1]
        let sps = code + [0x67, 0x42, 0xC0, 0x0A, 0xDA, 0x25], pps = code + [0x68, 0xCE, 0x0F, 0xC8]
        XCTAssertNoThrow(try VideoParameterSets.avcConfiguration(annexB: sps + pps))
        XCTAssertThrowsError(try VideoParameterSets.avcConfiguration(annexB: sps + Array([[UInt8]](repeating: pps, count: 256).joined())))
        XCTAssertThrowsError(try VideoParameterSets.avcConfiguration(annexB: Array([[UInt8]](repeating: sps, count: 32).joined()) + pps))
        XCTAssertThrowsError(try VideoParameterSets.avcConfiguration(annexB: sps + code + [0x68] + Array(repeating: 0xFF, count: 70_000)))
        // High profile: chroma_format_idc coded as 300.
        XCTAssertThrowsError(try VideoParameterSets.avcConfiguration(annexB: code + [0x67, 100, 0, 0x1E, 0x80, 0x4B, 0x7F] + pps))
        for name in ["annexb-avc-256-pps", "annexb-avc-chroma-format-300"] {
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Fuzz/regressions/" + name)
            XCTAssertThrowsError(try VideoParameterSets.avcConfiguration(annexB: Array(try Data(contentsOf: file))), name)
        }
    }

    /// A sweep over the codec layer's parameter-set input: every truncation of a real libx264 and
    /// libx265 stream's parameter sets, and every byte of them set to 0x00, 0xFF or flipped, ends in
    /// a record or an error, never a trap; the untouched streams give records.
    func testTruncatedAndDamagedParameterSetsSweep() throws {
        let folder = TemporaryFolder()
        for (codec, extra, format) in [("libx264", ["-pix_fmt", "yuv420p"], "h264"),
                                       ("libx265", ["-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error"], "hevc")] {
            let (_, raw) = try encode(codec, extra: extra, rawFormat: format, folder: folder)
            let build = { (bytes: [UInt8]) throws -> [UInt8] in
                codec == "libx264" ? try VideoParameterSets.avcConfiguration(annexB: bytes) : try VideoParameterSets.hevcConfiguration(annexB: bytes)
            }
            // The parameter sets: everything before the first slice (or SEI) unit.
            let units = VideoParameterSets.annexBUnits(raw)
            let isParameterSet = { (unit: ArraySlice<UInt8>) in
                codec == "libx264" ? [7, 8].contains((unit.first ?? 0) & 0x1F) : [32, 33, 34].contains(((unit.first ?? 0) >> 1) & 0x3F)
            }
            let lastSet = try XCTUnwrap(units.last(where: isParameterSet))
            let head = Array(raw[..<lastSet.endIndex])
            XCTAssertNoThrow(try build(head), codec)
            var records = 0, refusals = 0
            for length in 0...head.count {
                if (try? build(Array(head.prefix(length)))) != nil { records += 1 } else { refusals += 1 }
            }
            for position in head.indices {
                for damage: (UInt8) -> UInt8 in [{ _ in 0 }, { _ in 0xFF }, { ~$0 }] {
                    var bytes = head
                    bytes[position] = damage(bytes[position])
                    if (try? build(bytes)) != nil { records += 1 } else { refusals += 1 }
                }
            }
            XCTAssertGreaterThan(records, 0, codec)
            XCTAssertGreaterThan(refusals, 0, codec)
        }
    }
}
