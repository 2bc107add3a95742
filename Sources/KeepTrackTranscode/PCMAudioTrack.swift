import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec

/// An audio track decoded to 32-bit float LPCM (a QuickTime version 2 `lpcm` sound description, the samples
/// libavcodec's decoder produces, unrounded) holding exactly what a player presents: the encoder's priming and
/// what the edit list leaves out are gone, so an editor that ignores both (DaVinci Resolve on Linux, which cannot
/// decode AAC) plays the same sound. The track keeps its id, flags, alternate group, references and metadata.
public enum PCMAudioTrack {
    /// Frames an Apple AAC encoder puts before the sound when a QuickTime file says nothing about priming
    /// (no edit offset, no `roll` group): AVFoundation skips them (the iPhone's stereo track).
    public static let applePriming = 2112

    /// What a player presents of `track`, in frames of its decoded audio: from `start`, `count` frames, after `delay`
    /// (leading empty edits, movie time scale units).
    struct Presented: Equatable {
        var start: Int
        var count: Int?
        var delay: UInt64
        /// The presented edit's length in movie units (nil: to the end of the media).
        var duration: UInt64?
    }

    /// The presented range, or why it cannot be one contiguous range (several edits, a rate other than 1).
    static func presented(_ track: Track, rate: Int, isQuickTime: Bool) throws -> Presented {
        let entries = track.editList?.entries ?? []
        let media = entries.filter { $0.mediaTime != -1 }
        guard media.count <= 1, let edit = media.first ?? (entries.isEmpty ? EditListBox.Entry() : nil) else {
            throw KeepTrackError.unsupported("track \(track.id)'s edit list presents \(media.count) pieces of its media; only one is converted")
        }
        guard edit.rateInteger == 1, edit.rateFraction == 0 else {
            throw KeepTrackError.unsupported("track \(track.id)'s edit plays at rate \(edit.rateInteger).\(edit.rateFraction)")
        }
        let leading = entries.prefix { $0.mediaTime == -1 }
        guard leading.count == entries.count - media.count else {
            throw KeepTrackError.unsupported("track \(track.id)'s edit list has an empty edit after its media")
        }
        let mediaScale = Double(max(track.mediaHeader.timescale, 1)), movieScale = Double(max(track.movieTimescale, 1))
        let hasRollGroup = track.box.find(["mdia", "minf", "stbl"])?.all("sgpd").contains { $0.payload.count >= 8 && Array($0.payload[4..<8]) == Array("roll".utf8) } ?? false
        let implicit = isQuickTime && track.format == "mp4a" && edit.mediaTime == 0 && !hasRollGroup ? applePriming : 0
        let start = implicit + Int((Double(edit.mediaTime) / mediaScale * Double(rate)).rounded())
        let open = entries.isEmpty || (edit.segmentDuration == 0 && entries.last == edit)
        let count = open ? nil : Int((Double(edit.segmentDuration) / movieScale * Double(rate)).rounded())
        return Presented(start: start, count: count, delay: leading.reduce(0) { $0 + $1.segmentDuration }, duration: open ? nil : edit.segmentDuration)
    }

    /// Decodes `track` and writes its presented frames to `data` (which must be empty); returns the output track
    /// reading them from there. Throws `CodecError.notDecodable` for a format this FFmpeg cannot decode (APAC).
    public static func make(_ track: Track, in movie: Movie, data: OutputFile) throws -> OutputTrack {
        let configuration = try DecoderConfiguration.make(for: track)
        let decoder = try CodecDecoder(configuration)
        var reader = TrackPacketReader(track: track, source: movie.source, bytesPerFrame: configuration.bytesPerFrame)
        // Streamed to `data` as decoded: only the presented frames, never the whole track in memory.
        var layout: (channels: Int, rate: Int)?
        var range: Range<Int> = 0..<0
        var decodedFrames = 0, written = 0
        var samples: [Float] = []
        let collect = { (frame: UnsafePointer<AVFrame>) throws in
            let shape = (Int(frame.pointee.ch_layout.nb_channels), Int(frame.pointee.sample_rate))
            if layout == nil {
                guard shape.0 > 0, shape.1 > 0 else { throw KeepTrackError.unsupported("track \(track.id) decodes to \(shape.0) channels at \(shape.1) Hz") }
                layout = shape
                let part = try Self.presented(track, rate: shape.1, isQuickTime: movie.isQuickTime)
                range = part.start..<(part.count.map { part.start + $0 } ?? Int.max)
            }
            guard layout! == shape else { throw CodecError.decodeFailed("track \(track.id) changes its channel count or sample rate midway") }
            samples.removeAll(keepingCapacity: true)
            AudioFrames.appendInterleaved(frame, to: &samples)
            let frames = samples.count / shape.0
            let keptFrom = max(range.lowerBound, decodedFrames), keptTo = min(range.upperBound, decodedFrames + frames)
            if keptFrom < keptTo {
                let first = (keptFrom - decodedFrames) * shape.0, last = (keptTo - decodedFrames) * shape.0
                // Little-endian floats, as the sample description's flags say (x86 and ARM are little-endian).
                try samples[first..<last].withUnsafeBytes { try data.write($0) }
                written += keptTo - keptFrom
            }
            decodedFrames += frames
        }
        while let packet = try reader.nextPacket() { try decoder.decode(packet, body: collect) }
        try decoder.finish(body: collect)
        guard let (channels, rate) = layout else { throw KeepTrackError.unsupported("track \(track.id) decoded to no audio") }
        let presented = try Self.presented(track, rate: rate, isQuickTime: movie.isQuickTime)
        let count = written
        guard count > 0 else { throw KeepTrackError.unsupported("track \(track.id) presents none of its \(decodedFrames) decoded frames") }

        var entry = AudioSampleEntry()
        entry.header.reserved = Array(repeating: 0, count: 6)
        entry.version = 2
        entry.channelCount = 3; entry.sampleSize = 16; entry.compressionID = -2; entry.sampleRate = 0x10000  // v2's fixed placeholders
        entry.audioSampleRateBits = Double(rate).bitPattern
        entry.audioChannels = UInt32(channels)
        entry.constBitsPerChannel = 32
        entry.formatSpecificFlags = 0x9  // float, packed (little-endian)
        entry.constBytesPerAudioPacket = UInt32(4 * channels)
        entry.constLPCMFramesPerAudioPacket = 1
        let layoutBox = track.sampleEntries.first?.first("chan")
        let sampleEntry = Box(type: "lpcm", prefix: try entry.encoded(), children: layoutBox.map { [$0] } ?? [])

        var stsd = ByteWriter()
        stsd.u32(0)
        stsd.u32(1)
        var stts = TimeToSampleBox()
        stts.pairs = [UInt32(count), 1]
        var stsz = SampleSizeBox()
        stsz.constantSize = UInt32(4 * channels)
        stsz.sampleCount = UInt32(count)
        let stbl = [Box(type: "stsd", prefix: stsd.bytes, children: [sampleEntry]), Box(type: "stts", bytes: try stts.encoded()),
                    Box(type: "stsc", bytes: try SampleToChunkBox().encoded()), Box(type: "stsz", bytes: try stsz.encoded()),
                    Box(type: "stco", bytes: try ChunkOffsetBox().encoded())]

        // The same movie-time layout as the source: its leading delay, then the presented frames from media time 0.
        var edits = EditListBox()
        var delay = EditListBox.Entry()
        delay.mediaTime = -1
        delay.segmentDuration = presented.delay
        var media = EditListBox.Entry()
        media.segmentDuration = presented.duration
            ?? TimeScale.convert(UInt64(count), from: UInt32(rate), to: max(track.movieTimescale, 1), rounding: .down)
        edits.entries = (presented.delay > 0 ? [delay] : []) + [media]
        edits.header.version = media.segmentDuration > UInt64(UInt32.max) ? 1 : 0
        var header = track.header
        header.duration = presented.delay + media.segmentDuration
        header.header.version = header.duration > UInt64(UInt32.max) ? 1 : header.header.version
        var mediaHeader = track.mediaHeader
        mediaHeader.timescale = UInt32(rate)
        mediaHeader.duration = UInt64(count)
        if mediaHeader.duration > UInt64(UInt32.max) { mediaHeader.header.version = 1 }
        let trak = try EncodedVideoTrack.rebuild(track, header: header, mediaHeader: mediaHeader, edits: edits, stbl: stbl)
        let table = SampleTable(sampleCount: count, sizes: [], constantSize: UInt32(4 * channels), chunkOffsets: [0],
                                sampleToChunk: [1, UInt32(count), 1], timeToSample: [UInt32(count), 1])
        return OutputTrack(trak: trak, table: table, data: try FileByteSource(path: data.temporaryPath), timescale: UInt32(rate))
    }
}
