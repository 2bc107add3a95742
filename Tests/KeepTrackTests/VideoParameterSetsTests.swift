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
}
