import CFFmpeg
import Foundation

/// A bounded queue of owned frames between a producer thread (decode and crop) and the encoder, so the
/// decoder's threads work on the next frames while the encoder waits for its own; a few frames in flight.
public final class FrameHandoff: @unchecked Sendable {
    private let condition = NSCondition()
    private var frames: [UnsafeMutablePointer<AVFrame>] = []
    private let capacity: Int
    private var finished = false
    private var cancelled = false
    private var failure: Error?

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Producer: hands a frame over (the queue owns it); false when the consumer gave up.
    public func put(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while frames.count >= capacity && !cancelled { condition.wait() }
        if cancelled {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
            return false
        }
        frames.append(frame)
        condition.broadcast()
        return true
    }

    /// Producer: no more frames; `error` if it stopped early.
    public func finish(error: Error?) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: the next frame (the caller owns it), nil at the end; rethrows the producer's error.
    public func take() throws -> UnsafeMutablePointer<AVFrame>? {
        condition.lock()
        defer { condition.unlock() }
        while frames.isEmpty && !finished { condition.wait() }
        if !frames.isEmpty {
            condition.broadcast()
            return frames.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// Consumer: stop the producer and free what is queued.
    public func cancel() {
        condition.lock()
        cancelled = true
        for frame in frames {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
        }
        frames.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
