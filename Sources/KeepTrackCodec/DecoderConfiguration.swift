import CFFmpeg
import KeepTrack

/// What libavcodec needs to open a decoder for a track, taken from the track's sample entry alone
/// (fourcc, configuration boxes, sound description fields) — the work libavformat would do.
public struct DecoderConfiguration: @unchecked Sendable {
    public var codecID: AVCodecID
    /// Human name for messages ("AAC", "ALAC", "LPCM s16le").
    public var codecName: String
    /// Codec configuration: AudioSpecificConfig for AAC, the whole `alac` box for ALAC, avcC/hvcC payloads for video.
    public var extradata: [UInt8] = []
    public var sampleRate: Int = 0
    public var channels: Int = 0
    public var bitsPerSample: Int = 0
    /// LPCM: bytes per frame of all channels (packets are whole chunks).
    public var bytesPerFrame: Int?
    public var width: Int = 0
    public var height: Int = 0
    /// Decoding threads (frame and slice threading); 0 lets FFmpeg use every core.
    public var threadCount: Int = 1
    /// Skip the in-loop deblocking/SAO filters and allow non-conforming speedups: pictures good enough
    /// to analyse (faces, histograms), not to show or re-encode.
    public var fastAnalysis = false
    /// Frames the decoder need not output, for an analysis that settles for fewer.
    public enum SkippedFrames: Sendable {
        case none
        /// Frames no other frame references (most B-frames).
        case unreferenced
        /// Every B-frame (H.264 B slices, HEVC B slices), referenced or not: the I- and P-frames remain.
        case bidirectional
    }
    public var skippedFrames = SkippedFrames.none

    public init(codecID: AVCodecID, codecName: String) {
        self.codecID = codecID
        self.codecName = codecName
    }

    /// The configuration for `track`; throws `CodecError.notDecodable` for formats FFmpeg has no decoder for here (APAC).
    public static func make(for track: Track) throws -> DecoderConfiguration {
        guard let format = track.format else { throw CodecError.notDecodable("track \(track.id) has no sample description") }
        let configuration: DecoderConfiguration
        switch track.kind {
        case .audio: configuration = try audio(for: track, format: format)
        case .video: configuration = try video(for: track, format: format)
        default: throw CodecError.notDecodable("track \(track.id) is \(track.kind.rawValue), not audio or video")
        }
        try configuration.checkLimits("track \(track.id)")
        return configuration
    }

    /// FFmpeg's most channels a decoder accepts (FF_SANE_NB_CHANNELS).
    static let channelLimit = 512

    /// Refuses values libavcodec's `int` fields cannot take, or a decoder would refuse anyway: a sample
    /// entry's rate of 0 falls back to the mdhd time scale (up to 2³² − 1), a v2 SoundDescription
    /// counts channels in 32 bits (`CodecError.notDecodable`, before any of them reaches `apply`).
    func checkLimits(_ subject: String) throws {
        let limit = Int(Int32.max)
        func refuse(_ what: String) -> CodecError {
            CodecError.notDecodable("\(subject): \(codecName) with \(what) is beyond what FFmpeg's decoder takes")
        }
        guard (0...limit).contains(sampleRate) else { throw refuse("sample rate \(sampleRate) Hz") }
        guard (0...Self.channelLimit).contains(channels) else { throw refuse("\(channels) channels") }
        guard (0...limit).contains(bitsPerSample) else { throw refuse("\(bitsPerSample) bits per sample") }
        guard (0...limit).contains(bytesPerFrame ?? 0) else { throw refuse("\(bytesPerFrame ?? 0) bytes per frame") }
        guard (0...limit).contains(width), (0...limit).contains(height) else { throw refuse("a \(width)×\(height) picture") }
        guard extradata.count <= limit - 64 else { throw refuse("\(extradata.count) bytes of configuration") }
    }

    static func audio(for track: Track, format: FourCC) throws -> DecoderConfiguration {
        let entry = track.audioEntry
        let info = track.audio
        var configuration: DecoderConfiguration
        switch format {
        case "mp4a":
            guard let esds = try track.elementaryStreamDescriptor else {
                throw CodecError.notDecodable("track \(track.id): mp4a without esds")
            }
            let objectType = esds.objectTypeIndication ?? 0
            switch objectType {
            case 0x40, 0x66, 0x67, 0x68:
                configuration = DecoderConfiguration(codecID: AV_CODEC_ID_AAC, codecName: "AAC")
                configuration.extradata = try esds.decoderSpecificInfo() ?? []
            case 0x69, 0x6B:
                configuration = DecoderConfiguration(codecID: AV_CODEC_ID_MP3, codecName: "MP3")
            case 0xDD:
                // The three Vorbis headers, laced, as the DecoderSpecificInfo.
                configuration = DecoderConfiguration(codecID: AV_CODEC_ID_VORBIS, codecName: "Vorbis")
                configuration.extradata = try esds.decoderSpecificInfo() ?? []
            case 0xA9, 0xAA, 0xAB, 0xAC:
                configuration = DecoderConfiguration(codecID: AV_CODEC_ID_DTS, codecName: "DTS")
            default:
                throw CodecError.notDecodable("track \(track.id): mp4a with object type 0x\(String(objectType, radix: 16))")
            }
        case "alac":
            configuration = DecoderConfiguration(codecID: AV_CODEC_ID_ALAC, codecName: "ALAC")
            // FFmpeg's ALAC decoder reads the whole `alac` atom, header included.
            guard let alac = track.sampleEntryChild("alac") else { throw CodecError.notDecodable("track \(track.id): alac without its alac box") }
            configuration.extradata = try alac.serialized()
        case "ac-3": configuration = DecoderConfiguration(codecID: AV_CODEC_ID_AC3, codecName: "AC-3")
        case "ec-3": configuration = DecoderConfiguration(codecID: AV_CODEC_ID_EAC3, codecName: "E-AC-3")
        case "Opus": configuration = DecoderConfiguration(codecID: AV_CODEC_ID_OPUS, codecName: "Opus")
        case "fLaC": configuration = DecoderConfiguration(codecID: AV_CODEC_ID_FLAC, codecName: "FLAC")
        // FFmpeg's AMR and TrueHD decoders need no configuration: each packet (frame header, major sync) says it all.
        case "samr": configuration = DecoderConfiguration(codecID: AV_CODEC_ID_AMR_NB, codecName: "AMR-NB")
        case "sawb": configuration = DecoderConfiguration(codecID: AV_CODEC_ID_AMR_WB, codecName: "AMR-WB")
        case "mlpa": configuration = DecoderConfiguration(codecID: AV_CODEC_ID_TRUEHD, codecName: "Dolby TrueHD")
        case ".mp3", "ms\u{0}U": configuration = DecoderConfiguration(codecID: AV_CODEC_ID_MP3, codecName: "MP3")
        case "dtsc", "dtsh", "dtsl", "dtse": configuration = DecoderConfiguration(codecID: AV_CODEC_ID_DTS, codecName: "DTS")
        default:
            guard track.isLPCM, let entry else {
                throw CodecError.notDecodable("track \(track.id): FFmpeg has no decoder for '\(format)' (\(track.codecName ?? "unknown codec"))")
            }
            configuration = try pcm(track: track, format: format, entry: entry)
        }
        configuration.sampleRate = Int(info?.sampleRate ?? Double(track.mediaHeader.timescale))
        configuration.channels = info?.channels ?? configuration.channels
        if configuration.channels == 0 { configuration.channels = Int(entry?.channelCount ?? 2) }
        if let bits = configuration.bytesPerFrame.map({ _ in configuration.bitsPerSample }) {
            configuration.bytesPerFrame = configuration.channels * bits / 8
        }
        return configuration
    }

    /// LPCM: the codec follows from the fourcc, or for `lpcm` from the SoundDescription v2 flags and bit depth.
    static func pcm(track: Track, format: FourCC, entry: AudioSampleEntry) throws -> DecoderConfiguration {
        let littleEndianAtom = track.sampleEntryChild("enda").map { $0.payload.last == 1 } ?? false
        var bits = Int(entry.sampleSize)
        var isFloat = false
        var bigEndian = true
        var signed = true
        switch format {
        case "sowt": bigEndian = false
        case "twos": break
        case "in24": bits = 24; bigEndian = !littleEndianAtom
        case "in32": bits = 32; bigEndian = !littleEndianAtom
        case "fl32": bits = 32; isFloat = true; bigEndian = !littleEndianAtom
        case "fl64": bits = 64; isFloat = true; bigEndian = !littleEndianAtom
        case "raw ": bits = 8; signed = false
        case "lpcm":
            // kAudioFormatFlagIsFloat 1, IsBigEndian 2, IsSignedInteger 4.
            let flags = entry.formatSpecificFlags
            bits = Int(entry.constBitsPerChannel)
            isFloat = flags & 1 != 0
            bigEndian = flags & 2 != 0
            signed = flags & 4 != 0 || isFloat
        case "ipcm", "fpcm":
            guard let pcmC = track.sampleEntryChild("pcmC"), pcmC.payload.count >= 6 else {
                throw CodecError.notDecodable("track \(track.id): \(format) without pcmC")
            }
            bigEndian = pcmC.payload[4] & 1 == 0
            bits = Int(pcmC.payload[5])
            isFloat = format == "fpcm"
        default: break
        }
        if bits == 8 && format == "twos" { signed = true }
        let (id, name): (AVCodecID, String)
        switch (isFloat, bits, bigEndian, signed) {
        case (true, 32, true, _): (id, name) = (AV_CODEC_ID_PCM_F32BE, "f32be")
        case (true, 32, false, _): (id, name) = (AV_CODEC_ID_PCM_F32LE, "f32le")
        case (true, 64, true, _): (id, name) = (AV_CODEC_ID_PCM_F64BE, "f64be")
        case (true, 64, false, _): (id, name) = (AV_CODEC_ID_PCM_F64LE, "f64le")
        case (false, 8, _, true): (id, name) = (AV_CODEC_ID_PCM_S8, "s8")
        case (false, 8, _, false): (id, name) = (AV_CODEC_ID_PCM_U8, "u8")
        case (false, 16, true, _): (id, name) = (AV_CODEC_ID_PCM_S16BE, "s16be")
        case (false, 16, false, _): (id, name) = (AV_CODEC_ID_PCM_S16LE, "s16le")
        case (false, 24, true, _): (id, name) = (AV_CODEC_ID_PCM_S24BE, "s24be")
        case (false, 24, false, _): (id, name) = (AV_CODEC_ID_PCM_S24LE, "s24le")
        case (false, 32, true, _): (id, name) = (AV_CODEC_ID_PCM_S32BE, "s32be")
        case (false, 32, false, _): (id, name) = (AV_CODEC_ID_PCM_S32LE, "s32le")
        default:
            throw CodecError.notDecodable("track \(track.id): LPCM with \(bits) bits\(isFloat ? " float" : "") is not supported")
        }
        var configuration = DecoderConfiguration(codecID: id, codecName: "LPCM \(name)")
        configuration.bitsPerSample = bits
        configuration.bytesPerFrame = 0 // filled once the channel count is known
        return configuration
    }

    static func video(for track: Track, format: FourCC) throws -> DecoderConfiguration {
        var configuration: DecoderConfiguration
        switch format {
        case "avc1", "avc3", "dvav", "dva1":
            configuration = DecoderConfiguration(codecID: AV_CODEC_ID_H264, codecName: "H.264")
            configuration.extradata = track.sampleEntryChild("avcC")?.payload ?? []
        case "hvc1", "hev1", "dvh1", "dvhe":
            configuration = DecoderConfiguration(codecID: AV_CODEC_ID_HEVC, codecName: "HEVC")
            configuration.extradata = track.sampleEntryChild("hvcC")?.payload ?? []
        case "ap4h", "ap4x", "apch", "apcn", "apcs", "apco":
            configuration = DecoderConfiguration(codecID: AV_CODEC_ID_PRORES, codecName: "ProRes")
        case "av01":
            configuration = DecoderConfiguration(codecID: AV_CODEC_ID_AV1, codecName: "AV1")
            configuration.extradata = track.sampleEntryChild("av1C")?.payload ?? []
        case "jpeg", "mjpa":
            configuration = DecoderConfiguration(codecID: AV_CODEC_ID_MJPEG, codecName: "Motion JPEG")
        default:
            throw CodecError.notDecodable("track \(track.id): FFmpeg has no decoder for '\(format)'")
        }
        if let entry = track.visualEntry { configuration.width = Int(entry.width); configuration.height = Int(entry.height) }
        return configuration
    }

    /// Sets the fields on a freshly allocated context (extradata copied into padded av_malloc'd memory).
    func apply(to context: UnsafeMutablePointer<AVCodecContext>) {
        if !extradata.isEmpty {
            let padding = 64 // AV_INPUT_BUFFER_PADDING_SIZE
            let memory = av_mallocz(extradata.count + padding)!.assumingMemoryBound(to: UInt8.self)
            extradata.withUnsafeBufferPointer { memory.update(from: $0.baseAddress!, count: $0.count) }
            context.pointee.extradata = memory
            context.pointee.extradata_size = Int32(extradata.count)
        }
        if sampleRate > 0 { context.pointee.sample_rate = Int32(sampleRate) }
        if channels > 0 { av_channel_layout_default(&context.pointee.ch_layout, Int32(channels)) }
        if bitsPerSample > 0 { context.pointee.bits_per_coded_sample = Int32(bitsPerSample) }
        if let bytesPerFrame, bytesPerFrame > 0 { context.pointee.block_align = Int32(bytesPerFrame) }
        if width > 0 { context.pointee.width = Int32(width); context.pointee.height = Int32(height) }
        if fastAnalysis {
            context.pointee.skip_loop_filter = AVDISCARD_ALL
            context.pointee.flags2 |= Int32(AV_CODEC_FLAG2_FAST)
        }
        switch skippedFrames {
        case .none: break
        case .unreferenced: context.pointee.skip_frame = AVDISCARD_NONREF
        case .bidirectional: context.pointee.skip_frame = AVDISCARD_BIDIR
        }
        if threadCount != 1 {
            context.pointee.thread_count = Int32(threadCount)
            context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        }
    }
}
