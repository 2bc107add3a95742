import Foundation
import XCTest
@testable import KeepTrack

/// QuickTime uncompressed audio whose `stsz` says 1, the classic convention (libquicktime writes it,
/// OtherMuxerFlavourTests): a sample is one frame and its bytes come from the sound description.
/// ffmpeg writes the frame size instead; here its files get stsz patched to 1 (the only change), so
/// ffmpeg's view of the bytes is the same before and after the patch.
final class UncompressedAudioSizeTests: XCTestCase {
    /// name → ffmpeg audio options: v0 `twos` mono 16-bit (2 bytes a frame), v1 `in24` stereo (6).
    static let flavours: [String: [String]] = [
        "twos-mono.mov": ["-c:a", "pcm_s16be"],
        "in24-stereo.mov": ["-ac", "2", "-c:a", "pcm_s24le"],
    ]

    /// What ffmpeg decodes from the file's audio, as raw bytes.
    static func decoded(_ path: String) throws -> Data {
        try XCTUnwrap(runToolData("ffmpeg", ["-v", "error", "-nostdin", "-i", path, "-map", "0:a", "-f", "s32le", "-"]), "ffmpeg on \(path)")
    }

    func testStszSizeOneMeansOneFrameOfTheSoundDescription() throws {
        let folder = TemporaryFolder()
        for (name, options) in Self.flavours.sorted(by: { $0.key < $1.key }) {
            let path = folder.path(name)
            let made = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                                                        "sine=frequency=440:sample_rate=48000:duration=1"] + options + [path]),
                                     "ffmpeg is installed by scripts/setup.sh")
            XCTAssertEqual(made.code, 0, name)
            let before = try Self.decoded(path)
            // stsz: size, type, version and flags, then the constant sample size.
            var bytes = try fileBytes(path)
            let stsz = try XCTUnwrap(bytes.range(of: Data("stsz".utf8))).lowerBound
            XCTAssertGreaterThan(bytes[stsz + 8..<stsz + 12].reduce(0) { $0 << 8 | Int($1) }, 1, name)
            bytes.replaceSubrange(stsz + 8..<stsz + 12, with: [0, 0, 0, 1])
            try bytes.write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(try Self.decoded(path), before, "\(name): ffmpeg reads the patched file as before")

            // keeptrack's view of the bytes is ffprobe's: every packet's bytes.
            let packetBytes = try FFprobe.probe(path).streams[0].packets.reduce(0) { $0 + $1.size }
            XCTAssertGreaterThan(packetBytes, 48000, name)
            let movie = try Movie.open(path: path)
            XCTAssertEqual(movie.tracks.map(\.sampleTable.totalBytes), [UInt64(packetBytes)], name)
            let lint = runCLI(["lint", path])
            XCTAssertFalse(lint.out.contains("unreferenced-media-data"), "\(name): \(lint.out)")

            // Every command that copies keeps every frame: the copies decode to the same audio.
            for command in ["remux", "select", "extract"] {
                let output = folder.path("\(command)-\(name)")
                let arguments = command == "extract" ? [command, path, output, "--track", "1"] : [command, path, output]
                let run = runCLI(arguments)
                XCTAssertEqual(run.code, 0, "\(command) \(name): \(run.error)")
                XCTAssertEqual(try Self.decoded(output), before, "\(command) \(name) lost audio")
            }
        }
    }

    /// The convention for compressed audio: libquicktime writes `ima4` so (stts 1 tick, stsz 1, stsc in
    /// frames: 64 frames a 34-byte packet). ffmpeg writes packets; its file is patched to frames here
    /// (same box sizes), and ffmpeg decodes the patched file to the same audio. keeptrack cannot
    /// split the chunks into packets: it must say so, not read 64 bytes where 34 are.
    func testCompressedAudioCountedInFramesIsRefusedWithTheReason() throws {
        let folder = TemporaryFolder()
        let path = folder.path("ima4-frames.mov")
        let made = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                                                    "sine=frequency=440:sample_rate=48000:duration=1", "-c:a", "adpcm_ima_qt", path]))
        XCTAssertEqual(made.code, 0)
        let before = try Self.decoded(path)
        let packets = try FFprobe.probe(path).streams[0].packets.count
        XCTAssertEqual(packets, 750)
        var bytes = try fileBytes(path)
        func field(_ box: String, _ at: Int) throws -> Int { try XCTUnwrap(bytes.range(of: Data(box.utf8))).lowerBound + at }
        func put(_ offset: Int, _ value: UInt32) { bytes.replaceSubrange(offset..<offset + 4, with: withUnsafeBytes(of: value.bigEndian, Array.init)) }
        let frames = UInt32(packets * 64)
        // stts (count, delta), stsc (first chunk, samples per chunk), stsz (size, count), after version and entry count.
        put(try field("stts", 12), frames); put(try field("stts", 16), 1)
        put(try field("stsc", 16), frames)
        put(try field("stsz", 8), 1); put(try field("stsz", 12), frames)
        try bytes.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try Self.decoded(path), before, "ffmpeg reads the frame-counted file as the packet one")

        for command in [["inspect", path], ["remux", path, folder.path("copy.mov")]] {
            let run = runCLI(command)
            XCTAssertEqual(run.code, 65, "\(command[0]): \(run.out)")
            XCTAssertTrue(run.error.contains("stsz at byte") && run.error.contains("`ima4`") && run.error.contains("48000 samples of 1 byte and 1 tick"),
                          "\(command[0]): \(run.error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("copy.mov")))
    }
}
