import CEbur128
import Foundation

/// Levels of one stretch of audio. dBFS values are relative to a full-scale square wave's RMS
/// (as FFmpeg's `astats` reports them): a full-scale sine has RMS −3.01 dBFS.
public struct AudioLevels: Sendable, Equatable {
    /// RMS over all channels and frames; −infinity for digital silence.
    public var rmsDBFS: Double
    /// Largest absolute sample; 0 dBFS when clipping.
    public var peakDBFS: Double
    /// EBU R128 integrated loudness (ITU-R BS.1770, gated); −infinity when everything is below the gate.
    public var integratedLUFS: Double
    public var frames: Int
    public var sampleRate: Int
    public var channels: Int

    public var duration: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }

    static func decibels(_ amplitude: Double) -> Double { amplitude > 0 ? 20 * log10(amplitude) : -.infinity }
}

/// Accumulates RMS and sample peak in one pass and integrated loudness through libebur128.
public final class LevelMeter {
    public let channels: Int
    public let sampleRate: Int
    var sumOfSquares: Double = 0
    var peak: Float = 0
    var frames = 0
    var loudness: UnsafeMutablePointer<ebur128_state>?

    public init(channels: Int, sampleRate: Int) {
        self.channels = channels
        self.sampleRate = sampleRate
        loudness = ebur128_init(UInt32(channels), UInt(sampleRate), Int32(EBUR128_MODE_I.rawValue))
    }

    deinit { if loudness != nil { ebur128_destroy(&loudness) } }

    /// Adds `count` interleaved frames.
    public func add(_ samples: UnsafeBufferPointer<Float>) {
        let count = samples.count / channels
        guard count > 0, let base = samples.baseAddress else { return }
        var sum: Double = 0
        var localPeak = peak
        // Float partial sums per block keep the loop fast; Double across blocks keeps it exact enough.
        var index = 0
        let total = count * channels
        while index < total {
            let end = min(index + 4096, total)
            var block: Float = 0
            for position in index..<end {
                let value = base[position]
                block += value * value
                localPeak = max(localPeak, abs(value))
            }
            sum += Double(block)
            index = end
        }
        sumOfSquares += sum
        peak = localPeak
        frames += count
        if let loudness { ebur128_add_frames_float(loudness, base, count) }
    }

    public var levels: AudioLevels {
        let samples = Double(frames * channels)
        let rms = samples > 0 ? (sumOfSquares / samples).squareRoot() : 0
        var lufs = -Double.infinity
        if let loudness, frames > 0, ebur128_loudness_global(loudness, &lufs) != 0 { lufs = -.infinity }
        return AudioLevels(rmsDBFS: AudioLevels.decibels(rms), peakDBFS: AudioLevels.decibels(Double(peak)),
                           integratedLUFS: lufs.isFinite ? lufs : -.infinity, frames: frames, sampleRate: sampleRate, channels: channels)
    }
}
