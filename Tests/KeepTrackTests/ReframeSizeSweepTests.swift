import Foundation
import XCTest

/// `reframe` end to end on a spread of frame sizes. DetectionSizeTests drives the scaler and the detector through
/// every even width 160–1000 in process; this runs the whole command a user runs — demux, decode, analysis,
/// planning, encode, mux — on clips of three frames, and judges every output with ffmpeg's own decoder.
final class ReframeSizeSweepTests: XCTestCase {
    /// A clip to reframe: its stored size, whether it carries an AAC track, and a display rotation.
    struct Clip {
        var width: Int
        var height: Int
        var audio: Bool
        var rotation = 0
        var name: String { "\(width)x\(height)" + (audio ? "-audio" : "") + (rotation == 0 ? "" : "-rotated\(rotation)") }
        /// The picture as a player shows it.
        var displayed: (width: Int, height: Int) { rotation % 180 == 0 ? (width, height) : (height, width) }
    }

    /// Every 20th even width (40 px apart) 160–1000 at heights 144, 240 and 360 (the heights at which sizes overran the heap),
    /// plus 176×144, tiny pictures, 1080p, portrait pictures narrower, as narrow as and a little wider than 9:16,
    /// and a landscape picture stored rotated; an AAC track on every third clip.
    static var clips: [Clip] {
        var sizes: [(Int, Int)] = []
        for height in [144, 240, 360] {
            for width in stride(from: 160, through: 1000, by: 40) { sizes.append((width, height)) }
        }
        sizes += [(176, 144), (426, 240), (2, 2), (16, 16), (64, 36), (1920, 1080),
                  (240, 426), (360, 640), (144, 256), (1080, 1920), (480, 640), (608, 1080), (200, 640)]
        var clips = sizes.enumerated().map { Clip(width: $1.0, height: $1.1, audio: $0 % 3 == 0) }
        clips.append(Clip(width: 426, height: 240, audio: true, rotation: 90))
        return clips
    }

    func testReframeWritesEveryFrameAtTheRightSizeForEverySourceSize() throws {
        let folder = TemporaryFolder()
        let clips = Self.clips
        try makeClips(clips, in: folder)

        // Each reframe is a child process: an abort (the old heap overrun) fails that size, not the test runner.
        var failed: Set<String> = []
        for clip in clips {
            let run = try ChildProcess.run(["reframe", folder.path("in-\(clip.name).mp4"), folder.path("out-\(clip.name).mp4"),
                                            "--preset", "ultrafast"])
            if run.code != 0 { failed.insert(clip.name) }
            XCTAssertEqual(run.code, 0, "\(clip.name): \(run.out)")
        }
        let judged = clips.filter { !failed.contains($0.name) }
        let files = judged.flatMap { [folder.path("in-\($0.name).mp4"), folder.path("out-\($0.name).mp4")] }
        let decoded = try decodeAll(files, audio: judged.flatMap { [$0.audio, $0.audio] })

        for clip in judged {
            let source = try XCTUnwrap(decoded[folder.path("in-\(clip.name).mp4")], clip.name)
            let output = try XCTUnwrap(decoded[folder.path("out-\(clip.name).mp4")], clip.name)
            XCTAssertEqual(source.frames, 3, "\(clip.name): the source as ffmpeg decodes it")
            XCTAssertEqual(source.width, clip.displayed.width, clip.name)
            XCTAssertEqual(source.height, clip.displayed.height, clip.name)
            XCTAssertEqual(output.frames, source.frames, "\(clip.name): every frame")
            let (width, height) = clip.displayed
            if width * 16 <= height * 9 {
                // Already as narrow as 9:16: nothing to cut, the picture passes through.
                XCTAssertEqual([output.width, output.height], [width, height], "\(clip.name): passed through")
            } else {
                // The full height, 9:16 of it to within a pixel, even (4:2:0), never wider than the source.
                XCTAssertEqual(output.height, height, clip.name)
                XCTAssertEqual(output.width % 2, 0, "\(clip.name): \(output.width) wide")
                XCTAssertLessThanOrEqual(abs(Double(output.width) - Double(height) * 9 / 16), 1, "\(clip.name): \(output.width) wide")
                XCTAssertLessThanOrEqual(output.width, width, clip.name)
            }
            // The audio packets as they were: same times, sizes and bytes (CRC).
            XCTAssertEqual(output.audioPackets, source.audioPackets, "\(clip.name): audio")
            if clip.audio { XCTAssertGreaterThanOrEqual(source.audioPackets.count, 5, "\(clip.name): 0.1 s of AAC, 1024 samples a packet") }
        }

        // Where the crop is the whole picture (240×426, and the rotated clip), the output is the upright picture
        // ffmpeg shows: the rotation was applied the right way round.
        let wholePicture = judged.filter { $0.displayed.width == 240 && $0.displayed.height == 426 }
        XCTAssertEqual(wholePicture.map(\.rotation), [0, 90])
        for clip in wholePicture {
            let psnr = try XCTUnwrap(runToolStandardError("ffmpeg", ["-i", folder.path("in-\(clip.name).mp4"), "-i", folder.path("out-\(clip.name).mp4"),
                                                                     "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"]))
            let average = psnr.components(separatedBy: "average:").last.flatMap { Double($0.prefix { !$0.isWhitespace }) }
            XCTAssertGreaterThan(average ?? 0, 35, "\(clip.name): \(psnr.suffix(300))")
        }
    }

    /// Odd sizes cannot be 4:2:0 H.264 (its cropping works in pairs of pixels); as 4:4:4 they are refused at once,
    /// with a clear error and no file.
    func testOddSizedFourFourFourSourcesAreRefusedCleanly() throws {
        let folder = TemporaryFolder()
        for (width, height) in [(427, 241), (161, 121), (999, 361)] {
            let input = folder.path("in-\(width)x\(height).mp4"), output = folder.path("out-\(width)x\(height).mp4")
            let made = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height):r=30:d=0.1",
                                                        "-frames:v", "3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p", input]),
                                     "ffmpeg is not installed")
            XCTAssertEqual(made.code, 0)
            let run = try ChildProcess.run(["reframe", input, output, "--preset", "ultrafast"])
            XCTAssertEqual(run.code, 65, "\(width)x\(height): \(run.out)")
            XCTAssertTrue(run.out.contains("4:2:0"), run.out)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), "\(width)x\(height): nothing left behind")
        }
    }

    /// Writes every clip with one ffmpeg run (a process per clip cost more than the encoding): three frames of
    /// testsrc2 as 4:2:0 H.264, 0.1 s of AAC where asked; the rotated clip is remuxed with a display rotation.
    private func makeClips(_ clips: [Clip], in folder: TemporaryFolder) throws {
        var inputs: [String] = [], outputs: [String] = []
        for (index, clip) in clips.enumerated() {
            inputs += ["-f", "lavfi", "-i", "testsrc2=s=\(clip.width)x\(clip.height):r=30:d=0.1"]
            outputs += ["-map", "\(index):v", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
            if clip.audio { outputs += ["-map", "\(clips.count):a", "-c:a", "aac"] }
            outputs.append(folder.path((clip.rotation == 0 ? "in-" : "upright-") + "\(clip.name).mp4"))
        }
        inputs += ["-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=0.1"]
        let made = try XCTUnwrap(runTool("ffmpeg", ["-v", "error"] + inputs + outputs), "ffmpeg is not installed")
        XCTAssertEqual(made.code, 0, made.out)
        for clip in clips where clip.rotation != 0 {
            let remuxed = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-i", folder.path("upright-\(clip.name).mp4"), "-c", "copy",
                                                           "-metadata:s:v:0", "rotate=\(clip.rotation)", folder.path("in-\(clip.name).mp4")]))
            XCTAssertEqual(remuxed.code, 0, remuxed.out)
        }
    }

    /// What ffmpeg's decoder saw in one file: decoded frames and their displayed size, and the audio packets.
    struct Decoded {
        var width = 0
        var height = 0
        var frames = 0
        /// Each audio packet's pts, duration, size and CRC, as framecrc prints them.
        var audioPackets: [String] = []
    }

    /// Decodes every file's video (rotated upright, as players show it) and copies its audio packets, all in one
    /// ffmpeg run (framecrc). When that run fails, each file is decoded alone to name the one that breaks it.
    private func decodeAll(_ files: [String], audio: [Bool]) throws -> [String: Decoded] {
        var arguments = ["-v", "error"]
        for file in files { arguments += ["-i", file] }
        var streams: [(file: String, audio: Bool)] = []
        for (index, file) in files.enumerated() {
            arguments += ["-map", "\(index):v"]
            streams.append((file, false))
            if audio[index] {
                arguments += ["-map", "\(index):a"]
                streams.append((file, true))
            }
        }
        arguments += ["-fps_mode", "passthrough", "-c:v", "rawvideo", "-c:a", "copy", "-f", "framecrc", "-"]
        let result = try XCTUnwrap(runTool("ffmpeg", arguments), "ffmpeg is not installed")
        guard result.code == 0 else {
            for (index, file) in files.enumerated() {
                let alone = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-i", file, "-map", "0:v"] + (audio[index] ? ["-map", "0:a"] : [])
                                                  + ["-f", "null", "-"]))
                XCTAssertEqual(alone.code, 0, "ffmpeg cannot decode \(file)")
            }
            XCTFail("ffmpeg could not decode the files together")
            return [:]
        }
        var decoded: [String: Decoded] = [:]
        for line in result.out.split(separator: "\n") {
            if line.hasPrefix("#dimensions ") {
                // "#dimensions 3: 82x144"
                let parts = line.dropFirst("#dimensions ".count).split(separator: ":")
                guard let stream = Int(parts[0]), let size = parts.last?.trimmingCharacters(in: .whitespaces).split(separator: "x"),
                      size.count == 2, let width = Int(size[0]), let height = Int(size[1]) else { continue }
                decoded[streams[stream].file, default: Decoded()].width = width
                decoded[streams[stream].file, default: Decoded()].height = height
            } else if !line.hasPrefix("#") {
                // "stream, dts, pts, duration, size, crc"
                let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard fields.count == 6, let stream = Int(fields[0]) else { continue }
                if streams[stream].audio {
                    decoded[streams[stream].file, default: Decoded()].audioPackets.append(fields[2...].joined(separator: ","))
                } else {
                    decoded[streams[stream].file, default: Decoded()].frames += 1
                }
            }
        }
        return decoded
    }
}
