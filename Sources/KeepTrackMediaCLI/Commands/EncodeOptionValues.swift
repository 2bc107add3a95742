import KeepTrack
import KeepTrackCLI
import KeepTrackFraming

/// Values the encoding commands (reframe, transcode) read the same way.
enum EncodeOptionValues {
    /// x264's and x265's presets, fastest first.
    static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    static func pair(_ text: String, separator: Character, option: String) throws -> PixelSize {
        let parts = text.split(separator: separator)
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a > 0, b > 0, a <= 100_000, b <= 100_000 else {
            throw KeepTrackCLIError.usage("--\(option) takes two positive numbers as A\(separator)B, not '\(text)'")
        }
        return PixelSize(width: a, height: b)
    }
}
