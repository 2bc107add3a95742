import CFFmpeg

/// Converts a decoded audio frame to interleaved Float samples (any sample format FFmpeg's audio
/// decoders produce), so measuring and mixing deal with one layout.
public enum AudioFrames {
    /// Appends the frame's samples to `output`, interleaved, as Float in -1...1.
    public static func appendInterleaved(_ frame: UnsafePointer<AVFrame>, to output: inout [Float]) {
        let frames = Int(frame.pointee.nb_samples)
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        guard frames > 0, channels > 0, let planes = frame.pointee.extended_data else { return }
        let format = AVSampleFormat(rawValue: frame.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: frames * channels))
        output.withUnsafeMutableBufferPointer { buffer in
            let out = buffer.baseAddress! + start
            func convert<T>(_ type: T.Type, _ scale: (T) -> Float) {
                if planar {
                    for channel in 0..<channels {
                        let plane = UnsafeRawPointer(planes[channel]!).assumingMemoryBound(to: T.self)
                        for index in 0..<frames { out[index * channels + channel] = scale(plane[index]) }
                    }
                } else {
                    let plane = UnsafeRawPointer(planes[0]!).assumingMemoryBound(to: T.self)
                    for index in 0..<frames * channels { out[index] = scale(plane[index]) }
                }
            }
            switch av_get_packed_sample_fmt(format) {
            case AV_SAMPLE_FMT_FLT: convert(Float.self) { $0 }
            case AV_SAMPLE_FMT_DBL: convert(Double.self) { Float($0) }
            case AV_SAMPLE_FMT_S16: convert(Int16.self) { Float($0) / 32768 }
            case AV_SAMPLE_FMT_S32: convert(Int32.self) { Float(Double($0) / 2_147_483_648) }
            case AV_SAMPLE_FMT_S64: convert(Int64.self) { Float(Double($0) / 9_223_372_036_854_775_808) }
            case AV_SAMPLE_FMT_U8: convert(UInt8.self) { (Float($0) - 128) / 128 }
            default: break
            }
        }
    }
}
