import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec

/// A decoder running on a thread of its own, handing references to its frames over through a bounded queue.
public final class DecodeAhead: @unchecked Sendable {
    public let handoff: FrameHandoff
    private let finished = DispatchSemaphore(value: 0)
    private let decoder: CodecDecoder
    private var reader: TrackPacketReader

    struct Stopped: Error {}

    public init(decoder: CodecDecoder, reader: TrackPacketReader, capacity: Int) {
        self.decoder = decoder
        self.reader = reader
        handoff = FrameHandoff(capacity: capacity)
        let thread = Thread { [self] in run() }
        thread.name = "keeptrack.decode-ahead"
        thread.start()
    }

    private func run() {
        let hand = { [handoff] (frame: UnsafePointer<AVFrame>) throws in
            guard let reference = av_frame_clone(frame) else { throw KeepTrackError.io("out of memory handing a decoded frame over") }
            guard handoff.put(reference) else { throw Stopped() }
        }
        do {
            while let packet = try reader.nextPacket() { try decoder.decode(packet, body: hand) }
            try decoder.finish(body: hand)
            handoff.finish(error: nil)
        } catch {
            handoff.finish(error: error is Stopped ? nil : error)
        }
        finished.signal()
    }

    /// Stops the decoder (frames still queued are freed) and waits until its thread no longer touches it.
    public func stop() {
        handoff.cancel()
        finished.wait()
        finished.signal()
    }
}

/// Decoding a movie's video track into frames with their presentation times (media time scale units).
public enum VideoDecoding {
    /// `analysing`: the analysis pass, decoded on one thread. Measured (`ffmpeg -threads 1` vs auto, CPU):
    /// frame threading's hand-offs cost 0.05–0.3 s a clip (talking_head 0.45 vs 0.52 s, scene_still 0.57 vs
    /// 0.73, cut_person_to_animation_hevc 0.60 vs 0.76), and the other core is the detector's meanwhile. The
    /// encoding pass keeps the decoder's threads: there decoding runs beside the encoder. HEVC, decoding ahead,
    /// is the exception: its decoding is the slower part of the analysis, and two frame threads took
    /// cut_person_to_animation_hevc from 1.17× to 1.10× of ffmpeg's wall time (H.264 clips: 1.03–1.14× on
    /// one thread, 1.08–1.15× on two; `bench/footage_ab.py`).
    /// `ahead`: decode on a thread of its own, up to this many frames ahead of `body` (0: on the caller's
    /// thread). The analysis waits for the detector now and then (its rhythm must not depend on the threads'
    /// timing); meanwhile the decoder goes on instead of the core standing idle.
    public static func decode(_ movie: Movie, _ video: Track, fastAnalysis: Bool = false, skipping: DecoderConfiguration.SkippedFrames = .none,
                       analysing: Bool = false, pictureArena: PictureArena? = nil, ahead: Int = 0,
                       body: (UnsafePointer<AVFrame>, Int64) throws -> Void) throws {
        var configuration = try DecoderConfiguration.make(for: video)
        configuration.threadCount = analysing ? (configuration.codecID == AV_CODEC_ID_HEVC && ahead > 0 ? 2 : 1) : 0
        configuration.fastAnalysis = fastAnalysis
        configuration.skippedFrames = skipping
        let decoder = try CodecDecoder(configuration, pictureArena: pictureArena)
        var produced: Int64 = 0
        func handle(_ frame: UnsafePointer<AVFrame>) throws {
            var time = frame.pointee.best_effort_timestamp
            if time == Int64.min { time = frame.pointee.pts }
            if time == Int64.min { time = produced }  // AV_NOPTS_VALUE: count frames
            produced += 1
            try body(frame, time)
        }
        guard ahead > 0 else {
            var reader = TrackPacketReader(track: video, source: movie.source)
            while let packet = try reader.nextPacket() { try decoder.decode(packet, body: handle) }
            try decoder.finish(body: handle)
            return
        }
        let decodeAhead = DecodeAhead(decoder: decoder, reader: TrackPacketReader(track: video, source: movie.source), capacity: ahead)
        defer { decodeAhead.stop() }
        while let frame = try decodeAhead.handoff.take() {
            defer { var owned: UnsafeMutablePointer<AVFrame>? = frame; av_frame_free(&owned) }
            try handle(frame)
        }
    }
}
