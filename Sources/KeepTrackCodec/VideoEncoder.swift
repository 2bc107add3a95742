import CFFmpeg
import KeepTrack

/// One compressed frame from a `VideoEncoder`: Annex B bytes and times in the encoder's time base.
public struct EncodedVideoPacket: Sendable {
    public var bytes: [UInt8]
    public var presentationTime: Int64
    public var decodeTime: Int64
    public var isKey: Bool
}

/// A libavcodec video encoder (libx264, libx265, prores_ks or dnxhd) with parameter sets in `extradata` (global
/// header, H.264/HEVC), fed with frames whose `pts` are in `timeBase` units — every frame keeps its own time (VFR).
public final class VideoEncoder {
    public enum Codec: String, Sendable, CaseIterable {
        case h264, hevc, prores, dnxhr
        var encoderName: String {
            switch self {
            case .h264: "libx264"
            case .hevc: "libx265"
            case .prores: "prores_ks"
            case .dnxhr: "dnxhd"
            }
        }
        /// x264/x265: packets in Annex B with parameter sets in the extradata, quality by CRF and preset.
        /// ProRes and DNxHR: self-contained intra frames, quality by profile.
        public var isAnnexB: Bool { self == .h264 || self == .hevc }
    }

    /// Colour description written into the stream's VUI (and, by the muxer, the `colr` box).
    public struct Colour: Sendable, Equatable {
        public var primaries: Int32
        public var transfer: Int32
        public var matrix: Int32
        public var fullRange: Bool
        public init(primaries: Int32, transfer: Int32, matrix: Int32, fullRange: Bool) {
            self.primaries = primaries
            self.transfer = transfer
            self.matrix = matrix
            self.fullRange = fullRange
        }
        /// HLG (ARIB STD-B67) or PQ (SMPTE ST 2084).
        public var isHDR: Bool { transfer == Int32(AVCOL_TRC_ARIB_STD_B67.rawValue) || transfer == Int32(AVCOL_TRC_SMPTE2084.rawValue) }
    }

    /// Frames per second as numerator/denominator (30000/1001).
    public struct FrameRate: Equatable, Sendable {
        public var numerator: Int32
        public var denominator: Int32
        public init(numerator: Int32, denominator: Int32) {
            self.numerator = numerator
            self.denominator = denominator
        }
    }

    public struct Settings: Sendable {
        public var codec: Codec
        public var width: Int
        public var height: Int
        /// `AV_PIX_FMT_YUV420P` or `AV_PIX_FMT_YUV420P10LE`.
        public var pixelFormat: Int32
        public var timeBase: Int32
        /// Average frame rate for rate control; frames still carry their own times.
        public var frameRate: FrameRate
        public var crf: Double
        public var preset: String
        public var colour: Colour?
        /// Pixel aspect (width:height of one pixel) written into the stream's VUI: the sample entry's `pasp` says the same.
        public var pixelAspect = FrameRate(numerator: 1, denominator: 1)
        /// The encoder's `profile` option (ProRes: proxy ... hq; DNxHR: dnxhr_lb ... dnxhr_hqx); nil for x264/x265.
        public var profile: String?
        /// 0: every core.
        public var threads: Int = 0
        public init(codec: Codec, width: Int, height: Int, pixelFormat: Int32, timeBase: Int32, frameRate: FrameRate,
                    crf: Double, preset: String, colour: Colour?) {
            self.codec = codec
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.timeBase = timeBase
            self.frameRate = frameRate
            self.crf = crf
            self.preset = preset
            self.colour = colour
        }
    }

    let context: UnsafeMutablePointer<AVCodecContext>
    let packet: UnsafeMutablePointer<AVPacket>
    public let settings: Settings
    /// Annex B parameter sets (SPS/PPS, or VPS/SPS/PPS) for the sample entry's configuration box.
    public let extradata: [UInt8]

    public init(_ settings: Settings) throws {
        _ = CodecDecoder.quietLogs
        self.settings = settings
        guard let codec = avcodec_find_encoder_by_name(settings.codec.encoderName) else {
            throw CodecError.encodeFailed("this FFmpeg has no \(settings.codec.encoderName) encoder")
        }
        guard let context = avcodec_alloc_context3(codec), let packet = av_packet_alloc() else {
            throw KeepTrackError.io("out of memory allocating a \(settings.codec.encoderName) encoder")
        }
        self.context = context
        self.packet = packet
        context.pointee.width = Int32(settings.width)
        context.pointee.height = Int32(settings.height)
        context.pointee.pix_fmt = AVPixelFormat(rawValue: settings.pixelFormat)
        context.pointee.time_base = AVRational(num: 1, den: settings.timeBase)
        context.pointee.framerate = AVRational(num: settings.frameRate.numerator, den: settings.frameRate.denominator)
        context.pointee.sample_aspect_ratio = AVRational(num: settings.pixelAspect.numerator, den: settings.pixelAspect.denominator)
        context.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        context.pointee.thread_count = Int32(settings.threads)
        if let colour = settings.colour {
            context.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(colour.primaries))
            context.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(colour.transfer))
            context.pointee.colorspace = AVColorSpace(rawValue: UInt32(colour.matrix))
            context.pointee.color_range = colour.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        }
        let options = context.pointee.priv_data
        if settings.codec.isAnnexB {
            av_opt_set(options, "preset", settings.preset, 0)
            av_opt_set(options, "crf", String(settings.crf), 0)
        }
        if let profile = settings.profile { av_opt_set(options, "profile", profile, 0) }
        if settings.codec == .hevc {
            // Closed GOPs: every sync sample is an IDR a player can start from; x265's own logging off.
            av_opt_set(options, "x265-params", "log-level=error:open-gop=0", 0)
        }
        _ = HugePagePolicy.applied
        let status = avcodec_open2(context, codec, nil)
        guard status >= 0 else {
            var context: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&context)
            var packet: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&packet)
            let quality = settings.codec.isAnnexB ? "preset \(settings.preset) crf \(settings.crf)" : "profile \(settings.profile ?? "default")"
            throw CodecError.encodeFailed("\(settings.codec.encoderName) refused \(settings.width)x\(settings.height) \(quality): \(CodecError.describe(status))")
        }
        if let data = context.pointee.extradata, context.pointee.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
        } else {
            extradata = []
        }
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = self.context
        avcodec_free_context(&context)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
    }

    /// Encodes one frame (nil flushes the encoder at the end) and hands every finished packet to `body`.
    public func encode(_ frame: UnsafeMutablePointer<AVFrame>?, body: (EncodedVideoPacket) throws -> Void) throws {
        var status = avcodec_send_frame(context, frame)
        while status == cffmpeg_error_again() {
            try receive(body)
            status = avcodec_send_frame(context, frame)
        }
        if status < 0, !(frame == nil && status == cffmpeg_error_eof()) {
            throw CodecError.encodeFailed("\(settings.codec.encoderName): \(CodecError.describe(status))")
        }
        try receive(body)
    }

    private func receive(_ body: (EncodedVideoPacket) throws -> Void) throws {
        while true {
            let status = avcodec_receive_packet(context, packet)
            if status == cffmpeg_error_again() || status == cffmpeg_error_eof() { return }
            if status < 0 { throw CodecError.encodeFailed("\(settings.codec.encoderName): \(CodecError.describe(status))") }
            defer { av_packet_unref(packet) }
            let bytes = Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
            try body(EncodedVideoPacket(bytes: bytes, presentationTime: packet.pointee.pts, decodeTime: packet.pointee.dts,
                                        isKey: packet.pointee.flags & AV_PKT_FLAG_KEY != 0))
        }
    }
}
