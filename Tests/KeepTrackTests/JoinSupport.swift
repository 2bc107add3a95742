import Foundation
import XCTest
@testable import KeepTrack

/// What join tests ask independent tools: sync frame times (ffprobe), PCM decoded by the static
/// FFmpeg 9.0.2 (it cuts an audio edit inside a packet; Debian's 5.1 does not), clips made by ffmpeg.
enum JoinProof {
    /// Presentation times (seconds) of the first video stream's key frames after 0, as ffprobe lists them.
    static func syncTimes(_ path: String) throws -> [Double] {
        guard let result = runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", path]),
              result.code == 0 else { throw unavailable("ffprobe is not installed") }
        return result.out.split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, fields[1].hasPrefix("K"), let time = Double(fields[0]), time > 0 else { return nil }
            return time
        }.sorted()
    }

    /// Float PCM of `stream` with the edit list applied, decoded by FFmpeg 9.0.2.
    static func pcm9(_ path: String, stream: String = "0:a:0") throws -> [Float] {
        let ffmpeg = try NewerFFmpeg.require()
        guard let data = runToolData(ffmpeg, ["-v", "error", "-i", path, "-map", stream, "-f", "f32le", "-"]) else {
            throw ProbeError(message: "FFmpeg 9 cannot decode \(stream) of \(path)")
        }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// A short clip made by ffmpeg: H.264 with B-frames (GOP of 12) and AAC, `seconds` long. AAC without
    /// perceptual noise substitution: PNS draws from the decoder's random generator, so a decode that
    /// starts after another clip could never equal the clip's own decode, joined or not.
    static func makeClip(_ path: String, video: String = "testsrc2", tone: Int = 440, seconds: Int = 1,
                         videoCodec: [String] = ["-c:v", "libx264", "-bf", "2", "-g", "12"], extra: [String] = [], audio: Bool = true) throws {
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "\(video)=size=320x240:rate=25:duration=\(seconds)"]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=48000:duration=\(seconds)"] }
        arguments += videoCodec + (audio ? ["-c:a", "aac", "-aac_pns", "0", "-b:a", "96k"] : []) + extra + [path]
        guard let result = runTool("ffmpeg", arguments), result.code == 0 else { throw unavailable("ffmpeg cannot make the clip \(path)") }
    }

    /// Each sample's bytes.
    static func samples(_ movie: Movie, track id: UInt32) throws -> [[UInt8]] {
        let track = try XCTUnwrap(movie.track(id: id))
        return try track.sampleTable.samples.map { try movie.source.read(at: $0.offset, count: Int($0.size)) }
    }
}
