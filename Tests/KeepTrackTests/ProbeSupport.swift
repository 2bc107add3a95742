import Foundation
import XCTest

/// A movie as ffprobe (libavformat's mov demuxer) sees it: every stream with its facts and, when
/// asked, its packets — the independent client that checks what keeptrack writes.
///
/// ffprobe numbers streams in the file order of the tracks and reports each track's id (`id`
/// "0x3" → 3), so tracks are matched by id. It cannot decode `apac` (`codec_name` "none"), but
/// it still lists the packets. Times are in the stream's time base (the media timescale), with
/// the edit list applied as the demuxer applies it (packets before the presented range carry the
/// discard flag `D` and may have negative times).
enum FFprobe {
    struct Packet: Equatable, CustomStringConvertible {
        var pts: Int64?
        var dts: Int64?
        var duration: Int64?
        var size: Int
        var isKey: Bool
        var isDiscarded: Bool
        /// `SHA256:…` of the packet's bytes.
        var hash: String

        var description: String {
            "pts \(pts.map(String.init) ?? "N/A") dts \(dts.map(String.init) ?? "N/A") duration \(duration.map(String.init) ?? "N/A") "
                + "size \(size)\(isKey ? " key" : "")\(isDiscarded ? " discard" : "") \(hash.suffix(16))"
        }
    }

    struct Stream {
        var index: Int
        /// The track id (`tkhd`), from ffprobe's `id`; nil when it prints none.
        var trackID: UInt32?
        var codecType: String
        var codecName: String
        var codecTag: String
        var timeBase: String
        var channels: Int?
        var sampleRate: Int?
        /// Seconds; nil when ffprobe says N/A.
        var duration: Double?
        var frameCount: Int?
        /// Coded picture size of a video stream.
        var width: Int?
        var height: Int?
        /// Empty unless the probe asked for packets.
        var packets: [Packet] = []
        /// The file it was probed from (for the whole-stream hash of PCM).
        var path = ""

        var label: String { "stream \(index) (track \(trackID.map(String.init) ?? "?"), \(codecType) \(codecTag))" }
    }

    struct Report {
        var streams: [Stream]
        /// Format (container) duration in seconds; nil when ffprobe says N/A.
        var duration: Double?
        /// Chapters ffprobe read (from `tref/chap` text tracks or Nero `chpl`).
        var chapterCount = 0

        func stream(track id: UInt32) -> Stream? { streams.first { $0.trackID == id } }
    }

    /// Runs `ffprobe -show_streams -show_format` (and `-show_packets -show_data_hash sha256` when
    /// `packets`) on `path`. Throws when ffprobe is missing or fails (exit status and its message).
    static func probe(_ path: String, packets: Bool = true) throws -> Report {
        var arguments = ["-v", "error", "-of", "json=c=1", "-show_streams", "-show_format", "-show_chapters"]
        if packets { arguments += ["-show_packets", "-show_data_hash", "sha256"] }
        let result = try XCTUnwrap(runTool("ffprobe", arguments + [path]), "ffprobe is installed by scripts/setup.sh")
        guard result.code == 0 else { throw ProbeError(message: "ffprobe exited \(result.code) on \(path)") }
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any], "ffprobe printed no JSON for \(path)")
        var streams = (json["streams"] as? [[String: Any]] ?? []).map { stream(from: $0, path: path) }
        for packet in json["packets"] as? [[String: Any]] ?? [] {
            guard let index = integer(packet["stream_index"]), let position = streams.firstIndex(where: { $0.index == index }) else { continue }
            let flags = packet["flags"] as? String ?? ""
            streams[position].packets.append(Packet(pts: integer64(packet["pts"]), dts: integer64(packet["dts"]),
                                                    duration: integer64(packet["duration"]), size: integer(packet["size"]) ?? -1,
                                                    isKey: flags.contains("K"), isDiscarded: flags.contains("D"),
                                                    hash: packet["data_hash"] as? String ?? ""))
        }
        let format = json["format"] as? [String: Any]
        return Report(streams: streams, duration: double(format?["duration"]), chapterCount: (json["chapters"] as? [Any])?.count ?? 0)
    }

    /// nil when the packet lists are equal; otherwise what differs, naming the first differing
    /// packet (its position and both versions) or the counts.
    static func difference(_ a: [Packet], _ b: [Packet]) -> String? {
        if let first = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            return "packet \(first.offset) of \(a.count)/\(b.count) differs: \(first.element.0) ≠ \(first.element.1)"
        }
        if a.count != b.count {
            let longer = a.count > b.count ? a : b
            return "\(a.count) packets ≠ \(b.count) packets; first unmatched: \(longer[min(a.count, b.count)])"
        }
        return nil
    }

    /// nil when `a` and `b` (a matched pair of tracks) are the same stream: codec, time base and
    /// every packet; otherwise what differs. What ffprobe derives rather than reads is left out:
    /// - the last packet's duration: the mov demuxer sets each duration to next dts − dts and the
    ///   last one to the stream duration − dts, and the stream duration of a stream it cannot decode
    ///   (tmcd, gpmd, mebx) depends on how far probing read and on the movie duration;
    /// - packet boundaries of raw PCM: the demuxer groups PCM samples by chunk, so the packets follow
    ///   the chunking; compared as one stream (bytes, first times, SHA-256 of all packet data);
    /// - `ipcm`/`fpcm` bytes: FFmpeg 5.1 reads them with the sample entry's 16-bit size, ignoring
    ///   `pcmC`, so its packets do not cover the samples: only codec, sample count and times compare.
    static func difference(_ a: Stream, _ b: Stream) -> String? {
        if a.codecType != b.codecType || a.codecTag != b.codecTag || a.codecName != b.codecName {
            return "codec \(a.codecType) \(a.codecTag) \(a.codecName) ≠ \(b.codecType) \(b.codecTag) \(b.codecName)"
        }
        if a.timeBase != b.timeBase { return "time base \(a.timeBase) ≠ \(b.timeBase)" }
        if ["ipcm", "fpcm"].contains(a.codecTag) {
            if a.frameCount != b.frameCount { return "\(a.frameCount ?? 0) samples ≠ \(b.frameCount ?? 0) samples" }
            return a.packets.first?.dts == b.packets.first?.dts ? nil : "first dts \(a.packets.first?.dts ?? 0) ≠ \(b.packets.first?.dts ?? 0)"
        }
        if a.codecName.hasPrefix("pcm_") { return pcmDifference(a, b) }
        return difference(lastDurationLeftOut(a.packets), lastDurationLeftOut(b.packets))
    }

    /// The same for a fragmented source (`moof`/`trun`) and its progressive copy. The mov demuxer
    /// reads the two layouts differently, so what it derives is left out:
    /// - packet durations: a fragment packet's comes from `trun` (the first AAC packet's from the
    ///   parser), a progressive packet's is next dts − dts; a `tfdt` that corrects the previous
    ///   fragment makes them differ while every dts is the same (and dts are compared);
    /// - discard flags: set from fragments where no edit list says so (`frag_every_frame` audio);
    /// - with negative (version 1) `trun` composition offsets, it shifts a fragmented stream's pts
    ///   by the largest negative offset and a progressive one's dts (`ctts` v1) by the same amount:
    ///   one constant shift of pts and dts, the copy's first dts being −shift, is the same timing.
    /// What a player then shows (frames hidden or moved by the copy's edit list) is checked by decoding
    /// instead: `Shown`, WildShownFramesTests.
    static func difference(fragmented a: Stream, _ b: Stream) -> String? {
        func leftOut(_ packets: [Packet]) -> [Packet] {
            packets.map { packet in
                var packet = packet
                packet.duration = nil
                packet.isDiscarded = false
                return packet
            }
        }
        var copy = b
        copy.packets = leftOut(b.packets)
        if let x = a.packets.first, let y = b.packets.first, let xd = x.dts, let yd = y.dts, let xp = x.pts, let yp = y.pts,
           xd - yd == xp - yp, xd - yd > 0, yd == -(xd - yd) {
            let shift = xd - yd
            copy.packets = copy.packets.map { packet in
                var packet = packet
                packet.pts = packet.pts.map { $0 + shift }
                packet.dts = packet.dts.map { $0 + shift }
                return packet
            }
        }
        var source = a
        source.packets = leftOut(a.packets)
        return difference(source, copy)
    }

    private static func lastDurationLeftOut(_ packets: [Packet]) -> [Packet] {
        var packets = packets
        if !packets.isEmpty { packets[packets.count - 1].duration = nil }
        return packets
    }

    private static func pcmDifference(_ a: Stream, _ b: Stream) -> String? {
        let bytes = (a.packets.reduce(0) { $0 + $1.size }, b.packets.reduce(0) { $0 + $1.size })
        if bytes.0 != bytes.1 { return "PCM: \(bytes.0) bytes ≠ \(bytes.1) bytes" }
        if let x = a.packets.first, let y = b.packets.first, x.pts != y.pts || x.dts != y.dts { return "PCM: first packet \(x) ≠ \(y)" }
        let hashes = (streamHash(a), streamHash(b))
        return hashes.0 == hashes.1 && hashes.0 != nil ? nil : "PCM: stream data \(hashes.0 ?? "unreadable") ≠ \(hashes.1 ?? "unreadable")"
    }

    /// SHA-256 of the concatenated packet data of one stream (`ffmpeg -c copy -f hash`).
    static func streamHash(_ stream: Stream) -> String? {
        let result = runTool("ffmpeg", ["-v", "error", "-nostdin", "-i", stream.path, "-map", "0:\(stream.index)", "-c", "copy",
                                        "-f", "hash", "-hash", "sha256", "-"])
        guard let result, result.code == 0 else { return nil }
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Fails with a readable diff (the first differing packet) unless the two streams agree.
    static func assertSamePackets(_ a: Stream, _ b: Stream, _ context: @autoclosure () -> String = "",
                                  file: StaticString = #filePath, line: UInt = #line) {
        if let difference = difference(a, b) {
            XCTFail("\(context()): \(a.label) vs \(b.label): \(difference)", file: file, line: line)
        }
    }

    private static func stream(from object: [String: Any], path: String) -> Stream {
        let id = (object["id"] as? String).flatMap { $0.hasPrefix("0x") ? UInt32($0.dropFirst(2), radix: 16) : UInt32($0) }
        return Stream(index: integer(object["index"]) ?? -1, trackID: id,
                      codecType: object["codec_type"] as? String ?? "?", codecName: object["codec_name"] as? String ?? "none",
                      codecTag: object["codec_tag_string"] as? String ?? "?", timeBase: object["time_base"] as? String ?? "?",
                      channels: integer(object["channels"]), sampleRate: integer(object["sample_rate"]),
                      duration: double(object["duration"]), frameCount: integer(object["nb_frames"]),
                      width: integer(object["width"]), height: integer(object["height"]), path: path)
    }
}

/// What a player built on FFmpeg shows of one stream, decoded: the frames it keeps after the edit
/// list and discard flags, at their presentation times (absolute, `-copyts`), with a checksum of
/// their pixels or PCM. Packet lists can agree while this differs (an edit list that hides frames).
enum Shown {
    struct Frame: Equatable, CustomStringConvertible {
        /// Seconds.
        var time: Double
        /// Samples of an audio frame; 0 for video.
        var samples: Int
        var checksum: String
        var description: String { String(format: "%.6f", time) + (samples > 0 ? " \(samples) samples" : "") + " \(checksum)" }
    }

    /// ffmpeg's decoded frames of stream `index` (`framecrc`: one decoding thread so damaged
    /// streams conceal alike; video in the stream's own time base, no frame-rate conversion;
    /// audio as float PCM). Throws when ffmpeg fails to decode it.
    static func frames(_ path: String, stream index: Int, audio: Bool) throws -> [Frame] {
        try ToolAnswers.shared.answer(about: path, ["shown", String(index), String(audio)]) {
            var arguments = ["-v", "error", "-nostdin", "-threads", "1", "-copyts", "-i", path, "-map", "0:\(index)"]
            arguments += audio ? ["-c:a", "pcm_f32le"] : ["-fps_mode", "passthrough", "-enc_time_base", "-1"]
            guard let result = runTool("ffmpeg", arguments + ["-f", "framecrc", "-"]) else { throw unavailable("ffmpeg is not installed") }
            guard result.code == 0 else { throw ProbeError(message: "ffmpeg cannot decode stream \(index) of \(path)") }
            var timeBase = 0.0
            var frames: [Frame] = []
            for line in result.out.split(separator: "\n") {
                if line.hasPrefix("#tb 0:") {
                    let parts = line.dropFirst(6).split(separator: "/").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                    if parts.count == 2, parts[1] > 0 { timeBase = parts[0] / parts[1] }
                }
                // stream, dts, pts, duration, size, checksum
                let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard !line.hasPrefix("#"), fields.count >= 6, let pts = Int64(fields[2]), let duration = Int(fields[3]) else { continue }
                frames.append(Frame(time: Double(pts) * timeBase, samples: audio ? duration : 0, checksum: fields[5]))
            }
            return frames
        }
    }

    /// nil when `b` shows what `a` shows: the same pictures at the same times (within `tolerance`
    /// seconds); for audio the same start and number of samples, and the same PCM (frames follow
    /// packets, which may be grouped otherwise: `pcmEqual` compares the whole stream).
    static func difference(video a: [Frame], _ b: [Frame], tolerance: Double) -> String? {
        if a.count != b.count {
            return "\(a.count) frames shown ≠ \(b.count) (first \(a.first?.description ?? "none") / \(b.first?.description ?? "none"), "
                + "last \(a.last?.description ?? "none") / \(b.last?.description ?? "none"))"
        }
        if let index = a.indices.first(where: { abs(a[$0].time - b[$0].time) > tolerance || a[$0].checksum != b[$0].checksum }) {
            return "frame \(index) of \(a.count) shown as \(a[index]) ≠ \(b[index])"
        }
        return nil
    }

    static func difference(audio a: [Frame], _ b: [Frame], tolerance: Double) -> String? {
        let samples = (a.reduce(0) { $0 + $1.samples }, b.reduce(0) { $0 + $1.samples })
        if samples.0 != samples.1 { return "\(samples.0) samples decoded ≠ \(samples.1)" }
        if let x = a.first, let y = b.first, abs(x.time - y.time) > tolerance {
            return "audio starts at \(String(format: "%.6f", x.time)) s ≠ \(String(format: "%.6f", y.time)) s"
        }
        return nil
    }

    /// SHA-256 of the decoded PCM of stream `index` (float), nil when ffmpeg cannot decode it.
    static func pcmHash(_ path: String, stream index: Int) throws -> String? {
        try ToolAnswers.shared.answer(about: path, ["pcm-hash", String(index)]) {
            runTool("ffmpeg", ["-v", "error", "-nostdin", "-i", path, "-map", "0:\(index)", "-c:a", "pcm_f32le", "-f", "hash", "-hash", "sha256", "-"])
                .flatMap { $0.code == 0 ? $0.out.trimmingCharacters(in: .whitespacesAndNewlines) : nil }
        }
    }
}

/// A movie as mediainfo (MediaArea's own parser) sees it. It lists only the tracks it knows —
/// video, audio, text, some metadata (`Other`) — never `mebx`; so compare its view of an input
/// with its view of the output, not with keeptrack's track count.
enum MediaInfo {
    struct Track: Equatable {
        /// `Video`, `Audio`, `Text`, `Other`, `Menu`.
        var kind: String
        var id: String?
        var format: String?
        /// Seconds; nil when mediainfo gives none.
        var duration: Double?
        var channels: Int?
    }

    struct Report {
        /// The `General` track's duration in seconds.
        var duration: Double?
        /// Every track but `General`, in mediainfo's order.
        var tracks: [Track]
    }

    static func report(_ path: String) throws -> Report {
        let result = try XCTUnwrap(runTool("mediainfo", ["--Output=JSON", path]), "mediainfo is installed by scripts/setup.sh")
        guard result.code == 0 else { throw ProbeError(message: "mediainfo exited \(result.code) on \(path)") }
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any], "mediainfo printed no JSON for \(path)")
        let tracks = (json["media"] as? [String: Any])?["track"] as? [[String: Any]] ?? []
        let all = tracks.map { track in
            Track(kind: track["@type"] as? String ?? "?", id: track["ID"] as? String, format: track["Format"] as? String,
                  duration: double(track["Duration"]), channels: integer(track["Channels"]))
        }
        return Report(duration: all.first { $0.kind == "General" }?.duration, tracks: all.filter { $0.kind != "General" })
    }

    /// nil when `b`'s tracks are `a`'s (same count; kind, id, format, channels equal and durations
    /// within `tolerance` seconds, track by track); otherwise what differs.
    static func difference(_ a: [Track], _ b: [Track], tolerance: Double) -> String? {
        guard a.count == b.count else {
            return "\(a.count) tracks ≠ \(b.count) tracks (\(a.map(\.kind)) vs \(b.map(\.kind)))"
        }
        for (x, y) in zip(a, b) {
            if x.kind != y.kind || x.id != y.id || x.format != y.format || x.channels != y.channels {
                return "track \(x.id ?? "?"): \(x.kind) \(x.format ?? "-") \(x.channels.map { "\($0) ch" } ?? "") ≠ \(y.kind) \(y.format ?? "-") \(y.channels.map { "\($0) ch" } ?? "")"
            }
            switch (x.duration, y.duration) {
            case (nil, nil): continue
            case let (p?, q?) where abs(p - q) <= tolerance: continue
            default: return "track \(x.id ?? "?") (\(x.kind)): duration \(x.duration.map { "\($0)" } ?? "none") s ≠ \(y.duration.map { "\($0)" } ?? "none") s"
            }
        }
        return nil
    }
}

struct ProbeError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

// JSON numbers come as numbers or as strings ("size": "128", "duration": "0.013000", "N/A").
private func integer(_ value: Any?) -> Int? { integer64(value).map(Int.init) }

private func integer64(_ value: Any?) -> Int64? {
    switch value {
    case let number as Int: return Int64(number)
    case let number as Int64: return number
    case let number as NSNumber: return number.int64Value
    case let text as String: return Int64(text)
    default: return nil
    }
}

private func double(_ value: Any?) -> Double? {
    switch value {
    case let number as Double: return number
    case let number as Int: return Double(number)
    case let number as NSNumber: return number.doubleValue
    case let text as String: return Double(text)
    default: return nil
    }
}
