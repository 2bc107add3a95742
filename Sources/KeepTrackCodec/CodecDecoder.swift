import CFFmpeg
import KeepTrack

/// A libavcodec decoder fed with packets keeptrack demuxed itself (no libavformat). Audio and video
/// alike: callers receive each decoded `AVFrame` and convert what they need.
public final class CodecDecoder {
    /// libavcodec logs to stderr by default (encoder statistics, decoder complaints); keeptrack reports errors itself.
    static let quietLogs: Void = av_log_set_level(AV_LOG_QUIET)

    let context: UnsafeMutablePointer<AVCodecContext>
    let frame: UnsafeMutablePointer<AVFrame>
    let packet: UnsafeMutablePointer<AVPacket>
    public let configuration: DecoderConfiguration
    /// Where a video decoder places its pictures (kept alive as long as the decoder); nil: libavcodec's pool.
    let pictureArena: PictureArena?

    /// Opens the decoder `configuration` names; throws `CodecError.notDecodable` when this build of FFmpeg lacks it.
    /// `pictureArena`: decode video pictures into it (for callers that keep every picture).
    public init(_ configuration: DecoderConfiguration, pictureArena: PictureArena? = nil) throws {
        self.configuration = configuration
        _ = Self.quietLogs
        try configuration.checkLimits("decoder configuration")
        guard let codec = avcodec_find_decoder(configuration.codecID) else {
            throw CodecError.notDecodable("FFmpeg here has no decoder for \(configuration.codecName)")
        }
        guard let context = avcodec_alloc_context3(codec), let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            throw KeepTrackError.io("out of memory allocating a \(configuration.codecName) decoder")
        }
        self.context = context
        self.frame = frame
        self.packet = packet
        configuration.apply(to: context)
        if let pictureArena, codec.pointee.type == AVMEDIA_TYPE_VIDEO, codec.pointee.capabilities & AV_CODEC_CAP_DR1 != 0 {
            pictureArena.install(on: context)
            self.pictureArena = pictureArena
        } else {
            self.pictureArena = nil
        }
        let status = avcodec_open2(context, codec, nil)
        guard status >= 0 else {
            throw CodecError.notDecodable("FFmpeg cannot open its \(configuration.codecName) decoder with this configuration (\(CodecError.describe(status)))")
        }
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = self.context
        avcodec_free_context(&context)
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av_frame_free(&frame)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
    }

    public var codecContext: UnsafePointer<AVCodecContext> { UnsafePointer(context) }

    /// Decodes one packet and hands every frame it completes to `body`. A packet the decoder rejects
    /// throws, naming the sample, rather than being counted as silence.
    public func decode(_ packet: Packet, body: (UnsafePointer<AVFrame>) throws -> Void) throws {
        av_packet_unref(self.packet)
        guard av_new_packet(self.packet, Int32(packet.bytes.count)) >= 0 else {
            throw KeepTrackError.io("out of memory for a \(packet.bytes.count)-byte packet")
        }
        packet.bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { self.packet.pointee.data.update(from: base, count: source.count) }
        }
        self.packet.pointee.pts = packet.presentationTime
        self.packet.pointee.dts = packet.decodeTime
        if packet.isSync { self.packet.pointee.flags |= AV_PKT_FLAG_KEY }
        var status = avcodec_send_packet(context, self.packet)
        // A full decoder wants its frames taken first; then the packet goes in.
        while status == cffmpeg_error_again() {
            try receive(body)
            status = avcodec_send_packet(context, self.packet)
        }
        if status < 0 {
            throw CodecError.decodeFailed("\(configuration.codecName) packet \(packet.index + 1) (\(packet.bytes.count) bytes at file offset \(packet.offset)): \(CodecError.describe(status))")
        }
        try receive(body)
    }

    /// Drains the frames the decoder still holds at the end of the stream.
    public func finish(body: (UnsafePointer<AVFrame>) throws -> Void) throws {
        _ = avcodec_send_packet(context, nil)
        try receive(body)
    }

    func receive(_ body: (UnsafePointer<AVFrame>) throws -> Void) throws {
        while true {
            let status = avcodec_receive_frame(context, frame)
            if status == cffmpeg_error_again() || status == cffmpeg_error_eof() { return }
            if status < 0 { throw CodecError.decodeFailed("\(configuration.codecName): \(CodecError.describe(status))") }
            defer { av_frame_unref(frame) }
            try body(UnsafePointer(frame))
        }
    }
}

/// Codec-layer failures. `notDecodable` is a finding about a track (reported, never silence);
/// the others are errors.
public enum CodecError: Error, Equatable, CustomStringConvertible, Sendable {
    /// This FFmpeg cannot decode the track (APAC, an unknown format, a missing decoder).
    case notDecodable(String)
    case decodeFailed(String)
    case encodeFailed(String)

    public var description: String {
        switch self {
        case .notDecodable(let reason): "not decodable here: \(reason)"
        case .decodeFailed(let reason): "decoding failed: \(reason)"
        case .encodeFailed(let reason): "encoding failed: \(reason)"
        }
    }

    public static func describe(_ status: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(status, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
