import CFFmpeg
import KeepTrack

/// The codec layer's part of `repair`: where an AAC frame without a length ends (the decoder says), and
/// which recovered samples decode (video and AAC through libavcodec, in order; the first sample that
/// does not ends the track) with, for video, each sample's place in presentation order.
public enum RecoveredSampleCheck {
    /// Finds AAC frame ends for one reference track: the shortest prefix of the bytes whose first frame
    /// decodes (a shorter one runs out before the frame's END element) with the reference's channels and
    /// frame length. A binary search over the length, each attempt with a new decoder: bytes after a
    /// frame are decoded too, and a program config element among them changes the layout a decoder keeps.
    public final class AACFrameFinder {
        let configuration: DecoderConfiguration
        let source: ByteSource
        let channels: Int?
        let frameSamples: Int

        public init(shape: RecordingReference.TrackShape, source: ByteSource) throws {
            configuration = try DecoderConfiguration.make(for: shape.track)
            _ = try CodecDecoder(configuration)
            self.source = source
            channels = shape.track.audio?.channels
            frameSamples = Int(shape.sampleDelta)
        }

        public func frameLength(at offset: UInt64, largest: Int) -> Int? {
            let available = Int(min(UInt64(largest), source.size > offset ? source.size - offset : 0))
            guard available > 0, let bytes = try? source.read(at: offset, count: available) else { return nil }
            guard decodes(Array(bytes), checkingChannels: false) else { return nil }
            var (low, high) = (1, available)
            while low < high {
                let middle = (low + high) / 2
                if decodes(Array(bytes[..<middle]), checkingChannels: false) { high = middle } else { low = middle + 1 }
            }
            return decodes(Array(bytes[..<low]), checkingChannels: true) ? low : nil
        }

        /// The first frame of `bytes` decodes as one of this track's frames. Bytes after the frame are decoded
        /// too and may change the layout reported with it: the channels are checked only on a packet of one frame.
        func decodes(_ bytes: [UInt8], checkingChannels: Bool) -> Bool {
            guard let decoder = try? CodecDecoder(configuration) else { return false }
            var matched: Bool?
            let packet = Packet(index: 0, offset: 0, bytes: bytes, decodeTime: 0, presentationTime: 0, isSync: true)
            try? decoder.decode(packet) { frame in
                if matched == nil {
                    matched = Int(frame.pointee.nb_samples) == frameSamples && frame.pointee.decode_error_flags == 0
                        && (!checkingChannels || channels == nil || Int(frame.pointee.ch_layout.nb_channels) == channels)
                }
            }
            return matched ?? false
        }
    }

    public struct Outcome: Sendable {
        /// Samples that decode, from the first; the rest are dropped.
        public var decodedCount: Int
        /// Why decoding stopped before the end, naming the sample.
        public var failure: String?
        /// Video: each kept sample's place in presentation order, counting every picture given out before it
        /// (nil when the decoder did not return every picture).
        public var presentationRanks: [Int]?
        /// Video samples that decode but were left out: their presentation time depends on pictures not recovered.
        public var heldBack = 0
        /// Video: the decoder's reorder delay in pictures (how far decode order runs ahead of presentation).
        public var reorderDelay = 0
    }

    /// Decodes the recovered samples in order with a fresh decoder for the reference track. Video that fails
    /// to decode ends at the sync sample before the failure. A picture the
    /// decoder gives out only when the stream ends (flushed) may belong after pictures that were never
    /// recovered (B-frames cut off with the data): its presentation time is unknown, so video keeps only the
    /// samples decoded before the first such picture. Every picture given out earlier has its exact place:
    /// the decoder releases one only when no later picture can come before it.
    public static func decode(_ recovered: RecoveredTrack, source: ByteSource) throws -> Outcome {
        let decoder = try CodecDecoder(DecoderConfiguration.make(for: recovered.shape.track))
        var shown: [Int] = []
        var failure: String?
        var decoded = 0
        let collect: (UnsafePointer<AVFrame>) throws -> Void = { frame in
            if frame.pointee.decode_error_flags != 0 { throw CodecError.decodeFailed("the decoder concealed errors in a picture") }
            shown.append(Int(frame.pointee.pts))
        }
        for index in 0..<recovered.count {
            let bytes = try source.read(at: recovered.offsets[index], count: Int(recovered.sizes[index]))
            let packet = Packet(index: index, offset: recovered.offsets[index], bytes: bytes, decodeTime: Int64(index), presentationTime: Int64(index),
                                isSync: recovered.syncs[index])
            do {
                try decoder.decode(packet, body: collect)
                decoded = index + 1
            } catch {
                failure = "sample \(index + 1) (\(bytes.count) bytes at byte \(recovered.offsets[index])) does not decode: \(error)"
                if recovered.shape.track.kind == .video {
                    // Its group of pictures is not trusted either: parameter sets of other settings (a wrong
                    // reference) decode a picture or two into garbage before one fails.
                    decoded = recovered.syncs[..<index].lastIndex(of: true) ?? 0
                }
                break
            }
        }
        let beforeFlush = shown.count
        do { try decoder.finish(body: collect) } catch { failure = failure ?? "the last pictures do not decode: \(error)" }
        guard recovered.shape.track.kind == .video else { return Outcome(decodedCount: decoded, failure: failure, presentationRanks: nil) }
        let flushed = shown[beforeFlush...].filter { $0 >= 0 && $0 < decoded }
        let kept = min(decoded, flushed.min() ?? decoded)
        var rank = [Int](repeating: -1, count: kept)
        for (position, index) in shown.enumerated() where index >= 0 && index < kept { rank[index] = position }
        return Outcome(decodedCount: kept, failure: failure, presentationRanks: rank.contains(-1) ? nil : rank,
                       heldBack: decoded - kept, reorderDelay: Int(decoder.codecContext.pointee.has_b_frames))
    }
}
