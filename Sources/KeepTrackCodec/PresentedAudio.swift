import CFFmpeg
import KeepTrack

/// The part of a track's media a player presents, from its edit list, in seconds of media time.
/// Encoder priming (AAC's 1024 or 2112 leading frames) is skipped because `elst` media_time starts after it.
public struct EditTimeline: Sendable, Equatable {
    public enum Segment: Sendable, Equatable {
        /// Silence for this many seconds (an empty edit, media_time −1).
        case empty(seconds: Double)
        /// Media from `start` for `duration` seconds (nil: to the end of the media).
        case media(start: Double, duration: Double?)
    }
    public var segments: [Segment]

    public init(track: Track) throws {
        let timescale = Double(track.mediaHeader.timescale)
        let movieTimescale = Double(track.movieTimescale)
        guard let entries = track.editList?.entries, !entries.isEmpty, timescale > 0, movieTimescale > 0 else {
            segments = [.media(start: 0, duration: nil)]
            return
        }
        var segments: [Segment] = []
        var mediaEnd = 0.0
        for (index, entry) in entries.enumerated() {
            let duration = Double(entry.segmentDuration) / movieTimescale
            if entry.mediaTime == -1 {
                segments.append(.empty(seconds: duration))
                continue
            }
            guard entry.rateInteger == 1, entry.rateFraction == 0 else {
                throw KeepTrackError.unsupported("\(track.path)/edts/elst: edit \(index + 1) plays at rate \(entry.rateInteger).\(entry.rateFraction); only rate 1 is measured")
            }
            let start = Double(entry.mediaTime) / timescale
            guard start >= mediaEnd - 1e-9 else {
                throw KeepTrackError.unsupported("\(track.path)/edts/elst: edit \(index + 1) goes back in the media (\(start) s before \(mediaEnd) s); only forward edits are measured")
            }
            // A zero duration on the last edit means "the rest of the media" in some writers.
            let open = entry.segmentDuration == 0 && index == entries.count - 1
            segments.append(.media(start: start, duration: open ? nil : duration))
            mediaEnd = start + duration
        }
        self.segments = segments
    }
}

/// A packet the decoder rejected: 1-based sample number, size, file offset and the decoder's
/// message (which names the codec, the packet and its offset).
public struct SkippedPacket: Sendable, Equatable {
    public var packet: Int
    public var bytes: Int
    public var offset: UInt64
    public var reason: String
}

/// Decodes one audio track and yields exactly its presented frames (edit list applied), measuring
/// them on the way and, when asked, converting them to stereo at the mix rate for the enabled mix.
final class PresentedAudioStream {
    let track: Track
    let decoder: CodecDecoder
    var packets: TrackPacketReader
    let timeline: EditTimeline
    let mixRate: Int?
    private(set) var meter: LevelMeter?
    var stereo: StereoConverter?
    /// Stereo frames ready for the mix, interleaved; consumed from `fifoStart`.
    var fifo: [Float] = []
    var fifoStart = 0
    private(set) var finished = false
    var decoded: [Float] = []
    /// Frames the decoder has produced so far (media position at the decoded rate).
    var mediaPosition = 0
    var segmentIndex = 0
    var segmentStart = 0
    var segmentEnd: Int?
    var emittedLeadingSilence = false
    /// Packets the decoder rejected, left out of the measurement (in decode order).
    private(set) var skipped: [SkippedPacket] = []
    /// Decode time of the first packet of the run being skipped, to keep later media positions in place.
    var skippedSince: Int64?

    init(track: Track, source: ByteSource, mixRate: Int?) throws {
        self.track = track
        let configuration = try DecoderConfiguration.make(for: track)
        decoder = try CodecDecoder(configuration)
        packets = TrackPacketReader(track: track, source: source, bytesPerFrame: configuration.bytesPerFrame)
        timeline = try EditTimeline(track: track)
        self.mixRate = mixRate
    }

    var bufferedFrames: Int { (fifo.count - fifoStart) / 2 }

    /// Decodes until `frames` stereo frames are buffered or the track ends.
    func fill(_ frames: Int) throws {
        while !finished && bufferedFrames < frames { try step() }
    }

    /// Decodes the whole track (a track that is only measured, not mixed).
    func drain() throws {
        while !finished { try step(); fifo.removeAll(keepingCapacity: true); fifoStart = 0 }
    }

    /// Adds up to `frames` buffered stereo frames into `mix`; returns how many there were.
    func take(_ frames: Int, addingInto mix: UnsafeMutableBufferPointer<Float>) -> Int {
        let count = min(frames, bufferedFrames)
        fifo.withUnsafeBufferPointer { buffer in
            for index in 0..<count * 2 { mix[index] += buffer[fifoStart + index] }
        }
        fifoStart += count * 2
        if fifoStart > 1 << 16 { fifo.removeFirst(fifoStart); fifoStart = 0 }
        return count
    }

    func step() throws {
        if let packet = try packets.nextPacket() {
            if let since = skippedSince {
                // The frames the skipped packets would have produced: later media keeps its position.
                let rate = Double(meter?.sampleRate ?? Int(track.audio?.sampleRate ?? 0))
                let timescale = Double(max(track.mediaHeader.timescale, 1))
                let frames = (Double(packet.decodeTime) - Double(since)) * rate / timescale
                if frames.isFinite, frames > 0, frames < 1e15 { mediaPosition += Int(frames.rounded()) }
                skippedSince = nil
            }
            do {
                try decoder.decode(packet) { try present($0) }
            } catch CodecError.decodeFailed(let reason) {
                // A packet the decoder rejects is left out and named, as players and ffmpeg do; the
                // rest of the track is still measured. When none decodes, the track is malformed (below).
                skipped.append(SkippedPacket(packet: packet.index + 1, bytes: packet.bytes.count, offset: packet.offset, reason: reason))
                if skippedSince == nil { skippedSince = packet.decodeTime }
            }
        } else {
            if meter == nil, let first = skipped.first {
                // Not one packet decodes: the media is not what its sample entry says; malformed input,
                // naming the track's sample table and the first packet's offset.
                throw KeepTrackError.malformed(path: track.path + "/mdia/minf/stbl", offset: first.offset,
                    reason: first.reason + (skipped.count > 1 ? " (and every other packet: \(skipped.count) rejected, none decoded)" : ""))
            }
            try decoder.finish { try present($0) }
            if let stereo { stereo.finish(into: &fifo) }
            finished = true
        }
    }

    /// Trims one decoded frame to the presented segments.
    func present(_ frame: UnsafePointer<AVFrame>) throws {
        let rate = Int(frame.pointee.sample_rate)
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        if meter == nil {
            meter = LevelMeter(channels: channels, sampleRate: rate)
            if let mixRate { stereo = try StereoConverter(layout: frame.pointee.ch_layout, rate: rate, mixRate: mixRate) }
            try enterSegment(rate: rate)
        }
        guard let meter, meter.channels == channels, meter.sampleRate == rate else {
            throw CodecError.decodeFailed("track \(track.id) changes its sample rate or channel count midway")
        }
        decoded.removeAll(keepingCapacity: true)
        AudioFrames.appendInterleaved(frame, to: &decoded)
        let count = decoded.count / channels
        var offset = 0
        while offset < count && segmentIndex < timeline.segments.count {
            let position = mediaPosition + offset
            if position < segmentStart { offset = min(count, segmentStart - mediaPosition); continue }
            let end = min(count, segmentEnd.map { $0 - mediaPosition } ?? count)
            if end > offset {
                decoded.withUnsafeBufferPointer { buffer in
                    let slice = UnsafeBufferPointer(rebasing: buffer[offset * channels..<end * channels])
                    meter.add(slice)
                    stereo?.convert(slice, into: &fifo)
                }
                offset = end
            }
            if let segmentEnd, mediaPosition + offset >= segmentEnd {
                segmentIndex += 1
                try enterSegment(rate: rate)
            }
        }
        mediaPosition += count
    }

    /// Moves to the segment at `segmentIndex`, emitting empty edits as silence into the mix.
    func enterSegment(rate: Int) throws {
        while segmentIndex < timeline.segments.count {
            switch timeline.segments[segmentIndex] {
            case .empty(let seconds):
                stereo?.silence(frames: Int((seconds * Double(rate)).rounded()), into: &fifo)
                segmentIndex += 1
            case .media(let start, let duration):
                segmentStart = Int((start * Double(rate)).rounded())
                segmentEnd = duration.map { segmentStart + Int(($0 * Double(rate)).rounded()) }
                return
            }
        }
    }
}

/// Turns a track's frames into interleaved stereo at the mix rate: copied for stereo at that rate,
/// duplicated for mono, otherwise downmixed and resampled by libswresample (its standard matrix).
final class StereoConverter {
    let channels: Int
    var resampler: OpaquePointer?
    var scratch: [Float] = []

    init(layout: AVChannelLayout, rate: Int, mixRate: Int) throws {
        channels = Int(layout.nb_channels)
        guard channels > 2 || rate != mixRate else { return }
        var input = AVChannelLayout()
        if layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&input, layout.nb_channels)
        } else {
            var copy = layout
            av_channel_layout_copy(&input, &copy)
        }
        defer { av_channel_layout_uninit(&input) }
        var output = AVChannelLayout()
        av_channel_layout_default(&output, 2)
        var context: OpaquePointer?
        let status = swr_alloc_set_opts2(&context, &output, AV_SAMPLE_FMT_FLT, Int32(mixRate), &input, AV_SAMPLE_FMT_FLT, Int32(rate), 0, nil)
        guard status >= 0, let context, swr_init(context) >= 0 else {
            throw CodecError.decodeFailed("cannot convert \(channels) channels at \(rate) Hz to stereo at \(mixRate) Hz")
        }
        resampler = context
    }

    deinit { if resampler != nil { swr_free(&resampler) } }

    func convert(_ samples: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        let frames = samples.count / channels
        guard let resampler else {
            if channels == 2 { output.append(contentsOf: samples) } else {
                for value in samples { output.append(value); output.append(value) }
            }
            return
        }
        run(resampler, input: samples.baseAddress, frames: frames, into: &output)
    }

    func silence(frames: Int, into output: inout [Float]) {
        guard frames > 0 else { return }
        let zeros = [Float](repeating: 0, count: frames * channels)
        zeros.withUnsafeBufferPointer { convert($0, into: &output) }
    }

    func finish(into output: inout [Float]) {
        if let resampler { run(resampler, input: nil, frames: 0, into: &output) }
    }

    func run(_ resampler: OpaquePointer, input: UnsafePointer<Float>?, frames: Int, into output: inout [Float]) {
        let capacity = Int(swr_get_out_samples(resampler, Int32(frames))) + 32
        scratch = [Float](repeating: 0, count: capacity * 2)
        let produced: Int32 = scratch.withUnsafeMutableBufferPointer { out in
            var outPlane: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(out.baseAddress!).assumingMemoryBound(to: UInt8.self)
            var inPlane: UnsafePointer<UInt8>? = input.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }
            return swr_convert(resampler, &outPlane, Int32(capacity), &inPlane, Int32(frames))
        }
        if produced > 0 { output.append(contentsOf: scratch[0..<Int(produced) * 2]) }
    }
}
