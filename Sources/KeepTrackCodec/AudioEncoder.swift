import Foundation
import CFFmpeg
import KeepTrack

/// Packets from libavcodec's encoder with what a sample entry and edit list need.
public struct EncodedAudio: Sendable {
    public var packets: [[UInt8]]
    /// Codec configuration (for AAC the AudioSpecificConfig, for `esds`).
    public var extradata: [UInt8]
    /// Encoder delay in frames (`initial_padding`): the edit list's media_time.
    public var primingFrames: Int
    public var framesPerPacket: Int
    /// Frames of input sound, the presented duration.
    public var inputFrames: Int
}

/// Encodes interleaved Float audio with a libavcodec encoder (FFmpeg's native AAC by default):
/// the demo builds decodable movies offline with it, and re-encoding work can reuse it.
public enum AudioEncoder {
    public static func encode(_ samples: [Float], channels: Int, sampleRate: Int, codec: AVCodecID = AV_CODEC_ID_AAC, bitrate: Int = 160_000) throws -> EncodedAudio {
        _ = CodecDecoder.quietLogs
        guard let encoder = avcodec_find_encoder(codec) else { throw CodecError.encodeFailed("FFmpeg here has no encoder for codec \(codec.rawValue)") }
        var context = avcodec_alloc_context3(encoder)
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer { avcodec_free_context(&context); av_frame_free(&frame); av_packet_free(&packet) }
        guard let context, let frame, let packet else { throw KeepTrackError.io("out of memory allocating an encoder") }
        context.pointee.sample_rate = Int32(sampleRate)
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.bit_rate = Int64(bitrate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        let opened = avcodec_open2(context, encoder, nil)
        guard opened >= 0 else { throw CodecError.encodeFailed("cannot open the encoder: \(CodecError.describe(opened))") }
        let frameSize = Int(context.pointee.frame_size > 0 ? context.pointee.frame_size : 1024)
        var packets: [[UInt8]] = []
        func drain() throws {
            while true {
                let status = avcodec_receive_packet(context, packet)
                if status == cffmpeg_error_again() || status == cffmpeg_error_eof() { return }
                guard status >= 0 else { throw CodecError.encodeFailed(CodecError.describe(status)) }
                packets.append(Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))))
                av_packet_unref(packet)
            }
        }
        let totalFrames = samples.count / channels
        var position = 0
        while position < totalFrames {
            let count = min(frameSize, totalFrames - position)
            frame.pointee.nb_samples = Int32(count)
            frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            frame.pointee.sample_rate = Int32(sampleRate)
            av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
            guard av_frame_get_buffer(frame, 0) >= 0 else { throw KeepTrackError.io("out of memory for an audio frame") }
            for channel in 0..<channels {
                let plane = UnsafeMutableRawPointer(frame.pointee.extended_data[channel]!).assumingMemoryBound(to: Float.self)
                for index in 0..<count { plane[index] = samples[(position + index) * channels + channel] }
            }
            frame.pointee.pts = Int64(position)
            let status = avcodec_send_frame(context, frame)
            av_frame_unref(frame)
            guard status >= 0 else { throw CodecError.encodeFailed(CodecError.describe(status)) }
            try drain()
            position += count
        }
        _ = avcodec_send_frame(context, nil)
        try drain()
        let extradata = context.pointee.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(context.pointee.extradata_size))) } ?? []
        return EncodedAudio(packets: packets, extradata: extradata, primingFrames: Int(context.pointee.initial_padding),
                            framesPerPacket: frameSize, inputFrames: totalFrames)
    }
}

/// Test signals.
public enum TestSignal {
    /// A sine at `dBFS` peak (−20 dBFS → RMS −23.01 dBFS), the same in every channel, interleaved.
    public static func sine(frequency: Double = 1000, dBFS: Double, seconds: Double, sampleRate: Int = 48000, channels: Int = 2) -> [Float] {
        let amplitude = pow(10, dBFS / 20)
        let frames = Int(seconds * Double(sampleRate))
        var samples = [Float](repeating: 0, count: frames * channels)
        for index in 0..<frames {
            let value = Float(amplitude * sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate)))
            for channel in 0..<channels { samples[index * channels + channel] = value }
        }
        return samples
    }
}
