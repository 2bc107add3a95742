import CFFmpeg
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming

/// How a video is encoded, decided once before the first frame: codec, quality, the encoder's pixel format and
/// colour, and whether the frames are tone-mapped from HDR to SDR on the way.
public struct EncodePlan: Sendable {
    /// What may happen to an HDR (HLG/PQ) source.
    public enum HDR: Sendable, Equatable {
        /// Stay HDR: 10-bit with the source's colour; an 8-bit codec is refused (`Refusal.Kind.hdrNeedsTenBit`).
        case keep
        /// Tone-map to SDR BT.709, whatever the codec.
        case toSDR
        /// Stay HDR where the codec is 10-bit, tone-map where it is 8-bit (H.264 here).
        case keepWherePossible
    }

    public var codec: VideoEncoder.Codec
    /// nil for the intra codecs (ProRes, DNxHR), whose quality is their profile.
    public var crf: Double?
    public var preset: String?
    /// The encoder's pixel format (an `AVPixelFormat` raw value), which the frames must arrive in.
    public var pixelFormat: Int32
    public var settings: VideoEncoder.Settings
    /// The source is HDR and the output SDR BT.709: the frames pass through `FilterGraph.toneMapToSDR`.
    public var toneMaps: Bool

    /// 10 bits a sample (HDR kept, ProRes, DNxHR HQX), else 8.
    public var isTenBit: Bool { [AV_PIX_FMT_YUV420P10LE.rawValue, AV_PIX_FMT_YUV422P10LE.rawValue].contains(pixelFormat) }

    /// The colour an SDR output is tagged with after a tone map: BT.709 primaries, transfer and matrix, limited range.
    public static let bt709 = VideoEncoder.Colour(primaries: Int32(AVCOL_PRI_BT709.rawValue), transfer: Int32(AVCOL_TRC_BT709.rawValue),
                                                  matrix: Int32(AVCOL_SPC_BT709.rawValue), fullRange: false)

    /// DNxHR's 10-bit 4:2:2 profile; its other 4:2:2 profiles are 8-bit.
    public static let dnxhrTenBitProfile = "dnxhr_hqx"

    /// `codec` nil: HEVC for an HDR source kept HDR, H.264 otherwise. `profile`: the encoder's, for ProRes and
    /// DNxHR. `frameTimes`: every frame's presentation time (media seconds), for the average frame rate the
    /// encoder's rate control wants.
    public static func make(video: Track, frameTimes: [Double], sourceColour: VideoEncoder.Colour?, outputSize: PixelSize,
                            codec requested: VideoEncoder.Codec?, profile: String? = nil, crf: Double?, preset: String?,
                            hdr: HDR) throws -> EncodePlan {
        let sourceIsHDR = sourceColour?.isHDR ?? false
        let codec = requested ?? (sourceIsHDR && hdr != .toSDR ? .hevc : .h264)
        let tenBitCapable = codec == .hevc || codec == .prores || (codec == .dnxhr && profile == dnxhrTenBitProfile)
        let staysHDR: Bool
        switch hdr {
        case .keep:
            if sourceIsHDR && !tenBitCapable { throw hdrNeedsTenBit(video.video?.hdr, codec: codec, profile: profile) }
            staysHDR = sourceIsHDR
        case .toSDR: staysHDR = false
        case .keepWherePossible: staysHDR = sourceIsHDR && tenBitCapable
        }
        let toneMaps = sourceIsHDR && !staysHDR
        let pixelFormat = switch codec {
        case .h264, .hevc: staysHDR ? AV_PIX_FMT_YUV420P10LE.rawValue : AV_PIX_FMT_YUV420P.rawValue
        case .prores: AV_PIX_FMT_YUV422P10LE.rawValue
        case .dnxhr: tenBitCapable ? AV_PIX_FMT_YUV422P10LE.rawValue : AV_PIX_FMT_YUV422P.rawValue
        }
        let crf = codec.isAnnexB ? crf ?? (codec == .h264 ? 20 : 22) : nil
        let preset = codec.isAnnexB ? preset ?? "medium" : nil
        let timescale = Int32(clamping: Int(video.mediaHeader.timescale))
        let span = (frameTimes.last ?? 0) - (frameTimes.first ?? 0)
        let averageRate = frameTimes.count > 1 && span > 0 ? Double(frameTimes.count - 1) / span : 30
        let rational = av_d2q(averageRate, 100_000)
        var settings = VideoEncoder.Settings(codec: codec, width: outputSize.width, height: outputSize.height, pixelFormat: pixelFormat,
                                             timeBase: timescale, frameRate: .init(numerator: rational.num, denominator: rational.den),
                                             crf: crf ?? 0, preset: preset ?? "", colour: toneMaps ? bt709 : sourceColour)
        settings.profile = profile
        settings.threads = 0
        return EncodePlan(codec: codec, crf: crf, preset: preset, pixelFormat: pixelFormat, settings: settings, toneMaps: toneMaps)
    }

    /// The refusal of an 8-bit encode for an HDR source (a front end adds how its user asks otherwise).
    public static func hdrNeedsTenBit(_ hdr: String?, codec: VideoEncoder.Codec = .h264, profile: String? = nil) -> KeepTrackError {
        let (format, wayOut) = codec == .h264 ? ("H.264", "HEVC") : ("DNxHR \(profile ?? "")", dnxhrTenBitProfile)
        return .refused(.init(.hdrNeedsTenBit, "the source is HDR (\(hdr ?? "HLG/PQ")) and \(format) here is 8-bit SDR; \(wayOut) (10-bit) keeps the HDR transfer"))
    }

    /// True when `error` is that refusal.
    public static func isHDRNeedsTenBit(_ error: Error) -> Bool {
        if case .refused(let refusal) = error as? KeepTrackError { return refusal.kind == .hdrNeedsTenBit }
        return false
    }

    /// The colour a decoded frame says it has, completed from the track's `colr` box where the stream leaves a
    /// field unspecified; nil when neither says anything.
    public static func sourceColour(of frame: UnsafePointer<AVFrame>, track: Track) -> VideoEncoder.Colour? {
        let unspecified: UInt32 = 2
        var primaries = frame.pointee.color_primaries.rawValue, transfer = frame.pointee.color_trc.rawValue
        var matrix = frame.pointee.colorspace.rawValue
        if let box = track.configuration(ColourInformationBox.self, "colr"), box.colourType == "nclx" || box.colourType == "nclc" {
            if primaries == unspecified { primaries = UInt32(box.primaries) }
            if transfer == unspecified { transfer = UInt32(box.transfer) }
            if matrix == unspecified { matrix = UInt32(box.matrixCoefficients) }
        }
        if primaries == unspecified && transfer == unspecified && matrix == unspecified { return nil }
        return VideoEncoder.Colour(primaries: Int32(primaries), transfer: Int32(transfer), matrix: Int32(matrix),
                                   fullRange: frame.pointee.color_range == AVCOL_RANGE_JPEG)
    }
}
