import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec

/// What feeds an encoder: decodes (or takes kept frames), filters, and puts the frames, in presentation order
/// with their `pts` in the track's time scale, into the handoff. Runs on a thread of its own.
public protocol FrameProducer: AnyObject {
    /// Puts every frame; throws `FrameProducerStopped` when `put` refuses (the encoder gave up).
    func produce(into handoff: FrameHandoff) throws
    /// Unblocks a `produce` that waits on something other than the handoff (reframe's released path).
    func stop()
}

/// Thrown by a producer whose consumer went away: an end, not a failure.
public struct FrameProducerStopped: Error {
    public init() {}
}

/// What an encoding run produced: the encoded frames (length-prefixed, back to back in the data file) in
/// decode order, and how many frames went into the encoder.
public struct EncodedVideo: Sendable {
    public var samples: [EncodedVideoSample] = []
    public var framesEncoded = 0
    public init() {}
}

/// The encode stage: a producer thread a few frames ahead of the encoder thread, which appends the encoded
/// frames to the data file. Both threads start in `init`.
public final class VideoEncodeRun: @unchecked Sendable {
    private let handoff = FrameHandoff(capacity: 8)
    private let producer: any FrameProducer
    private let encoder: VideoEncoder
    private let dataFile: OutputFile
    private let produced = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result = EncodedVideo()
    private var failure: Error?
    private var encodedCount = 0
    public let started = Date()

    public init(producer: any FrameProducer, encoder: VideoEncoder, into dataFile: OutputFile, producerName: String) {
        self.producer = producer
        self.encoder = encoder
        self.dataFile = dataFile
        let producing = Thread { [self] in produce() }
        producing.stackSize = 8 << 20
        producing.name = producerName
        producing.start()
        let encoding = Thread { [self] in encode() }
        encoding.stackSize = 8 << 20
        encoding.name = "keeptrack.encode"
        encoding.start()
    }

    private func produce() {
        do {
            try producer.produce(into: handoff)
            handoff.finish(error: nil)
        } catch {
            handoff.finish(error: error is FrameProducerStopped ? nil : error)
        }
        produced.signal()
    }

    private func encode() {
        var result = EncodedVideo()
        let annexB = encoder.settings.codec.isAnnexB
        let collect = { [dataFile] (packet: EncodedVideoPacket) throws in
            let sample = annexB ? VideoParameterSets.lengthPrefixed(annexB: packet.bytes) : packet.bytes
            try dataFile.write(sample)
            result.samples.append(EncodedVideoSample(size: UInt32(sample.count), decodeTime: packet.decodeTime,
                                                     presentationTime: packet.presentationTime, isSync: packet.isKey))
        }
        do {
            while let prepared = try handoff.take() {
                defer { var owned: UnsafeMutablePointer<AVFrame>? = prepared; av_frame_free(&owned) }
                try encoder.encode(prepared, body: collect)
                result.framesEncoded += 1
                lock.withLock { encodedCount = result.framesEncoded }
            }
            produced.wait()
            try encoder.encode(nil, body: collect)
        } catch {
            handoff.cancel()
            produced.wait()
            lock.withLock { failure = error }
        }
        lock.withLock { self.result = result }
        finished.signal()
    }

    /// Frames gone into the encoder so far.
    public var framesEncoded: Int { lock.withLock { encodedCount } }

    /// Waits for the last frame, reporting (frames encoded, seconds since the start) a few times a second.
    public func wait(progress: (Int, Double) -> Void) throws -> EncodedVideo {
        while finished.wait(timeout: .now() + 0.2) == .timedOut {
            progress(framesEncoded, Date().timeIntervalSince(started))
        }
        finished.signal()
        return try lock.withLock {
            if let failure { throw failure }
            return result
        }
    }

    /// Stops both threads and waits until they no longer touch the encoder, the data file or the frames.
    public func cancel() {
        producer.stop()
        handoff.cancel()
        finished.wait()
        finished.signal()
    }
}
