/// Channels and sample rate of audio codecs whose configuration does not say them: MPEG-1/2
/// audio (MP3, MP2) and DTS keep them only in each frame's header, and muxers fill the sample
/// entry's fields with placeholders (ffmpeg writes 2 channels for every ISO `mp4a`). Vorbis keeps
/// them in its identification header, inside the `esds` DecoderSpecificInfo.
public struct AudioFrameFacts: Sendable, Equatable {
    public var channels: Int
    public var sampleRate: Int

    /// Codecs whose facts live in the frame header: how many leading bytes of the first packet
    /// `fromFrameHeader` needs.
    public static let frameHeaderBytes = 16

    public enum FrameCodec: Sendable, Equatable {
        case mpegAudio, dts, ac3, eac3
    }

    /// Facts read from the first bytes of a packet; nil when they are not a header of `codec`.
    public static func fromFrameHeader(_ bytes: [UInt8], codec: FrameCodec) -> AudioFrameFacts? {
        switch codec {
        case .mpegAudio: return mpegAudioHeader(bytes)
        case .dts: return dtsCoreHeader(bytes)
        case .ac3: return ac3Header(bytes)
        case .eac3: return eac3Header(bytes)
        }
    }

    /// E-AC-3 sync frame (ATSC A/52 E.1.2): syncword 0x0B77, strmtyp (2), substreamid (3), frmsiz (11),
    /// fscod (2; 3 = a half rate in fscod2), numblkscod (2), acmod (3), lfeon (1), bsid (5, 11 to 16).
    /// Only the first independent substream: channels its dependent substreams add are not counted.
    static func eac3Header(_ bytes: [UInt8]) -> AudioFrameFacts? {
        guard bytes.count >= 8, bytes[0] == 0x0B, bytes[1] == 0x77 else { return nil }
        var bits = BitReader(Array(bytes[2...]))
        guard (try? bits.read(16)) != nil, let frequency = try? bits.read(2), let second = try? bits.read(2),
              let mode = try? bits.read(3), let lfe = try? bits.read(1), let bsid = try? bits.read(5), (11...16).contains(bsid) else { return nil }
        let rate = frequency == 3 ? [24000, 22050, 16000, 0][second] : [48000, 44100, 32000][frequency]
        guard rate > 0 else { return nil }
        return AudioFrameFacts(channels: AC3Fields.acmodChannels[mode] + lfe, sampleRate: rate)
    }

    /// AC-3 sync frame (ATSC A/52 5.3): syncword 0x0B77, crc1, fscod (2), frmsizecod (6), then bsi:
    /// bsid (5), bsmod (3), acmod (3), the mix levels acmod has, lfeon (1). Decoders read these, not `dac3`.
    static func ac3Header(_ bytes: [UInt8]) -> AudioFrameFacts? {
        guard bytes.count >= 8, bytes[0] == 0x0B, bytes[1] == 0x77 else { return nil }
        var bits = BitReader(Array(bytes[4...]))
        guard let frequency = try? bits.read(2), frequency < 3, (try? bits.read(6)) != nil,
              let bsid = try? bits.read(5), bsid <= 10, (try? bits.read(3)) != nil, let mode = try? bits.read(3) else { return nil }
        var skip = 0
        if mode & 1 == 1 && mode != 1 { skip += 2 } // cmixlev
        if mode & 4 == 4 { skip += 2 } // surmixlev
        if mode == 2 { skip += 2 } // dsurmod
        guard skip == 0 || (try? bits.read(skip)) != nil, let lfe = try? bits.read(1) else { return nil }
        return AudioFrameFacts(channels: AC3Fields.acmodChannels[mode] + lfe, sampleRate: [48000, 44100, 32000][frequency])
    }

    /// ISO/IEC 11172-3 / 13818-3 frame header: 11 sync bits, version, layer, bitrate, sampling
    /// frequency, padding, private, channel mode (3 = single channel).
    static func mpegAudioHeader(_ bytes: [UInt8]) -> AudioFrameFacts? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
        let version = Int(bytes[1] >> 3) & 3 // 0: MPEG-2.5, 2: MPEG-2, 3: MPEG-1
        let layer = Int(bytes[1] >> 1) & 3
        let frequencyIndex = Int(bytes[2] >> 2) & 3
        guard version != 1, layer != 0, frequencyIndex != 3 else { return nil }
        let base = [44100, 48000, 32000][frequencyIndex]
        let rate = version == 3 ? base : version == 2 ? base / 2 : base / 4
        let channelMode = Int(bytes[3] >> 6)
        return AudioFrameFacts(channels: channelMode == 3 ? 1 : 2, sampleRate: rate)
    }

    /// DTS core frame header (ETSI TS 102 114 5.3.1), 16-bit big-endian form: sync 0x7FFE8001,
    /// then FTYPE, SHORT, CPF, NBLKS, FSIZE (28 bits), AMODE (6), SFREQ (4), … LFF (2).
    static func dtsCoreHeader(_ bytes: [UInt8]) -> AudioFrameFacts? {
        guard bytes.count >= 11, bytes[0] == 0x7F, bytes[1] == 0xFE, bytes[2] == 0x80, bytes[3] == 0x01 else { return nil }
        var bits = BitReader(Array(bytes[4...]))
        guard (try? bits.read(28)) != nil, let mode = try? bits.read(6), let frequency = try? bits.read(4) else { return nil }
        // RATE 5, FixedBit 1, DYNF 1, TIMEF 1, AUXF 1, HDCD 1, EXT_AUDIO_ID 3, EXT_AUDIO 1, ASPF 1, then LFF.
        guard (try? bits.read(15)) != nil, let lfe = try? bits.read(2) else { return nil }
        let modeChannels = [1, 2, 2, 2, 2, 3, 3, 4, 4, 5, 6, 6, 6, 7, 8, 8]
        let rates = [0, 8000, 16000, 32000, 0, 0, 11025, 22050, 44100, 0, 0, 12000, 24000, 48000, 0, 0]
        guard mode < modeChannels.count, rates[frequency] > 0 else { return nil }
        return AudioFrameFacts(channels: modeChannels[mode] + (lfe == 1 || lfe == 2 ? 1 : 0), sampleRate: rates[frequency])
    }

    /// The Vorbis identification header (packet type 1, "vorbis", version, channels, rate) found
    /// in the DecoderSpecificInfo, whichever way the three headers are laced around it.
    public static func vorbisIdentification(_ specificInfo: [UInt8]) -> AudioFrameFacts? {
        let marker: [UInt8] = [0x01, 0x76, 0x6F, 0x72, 0x62, 0x69, 0x73] // 0x01 "vorbis"
        guard specificInfo.count >= marker.count + 9 else { return nil }
        for start in 0...(specificInfo.count - marker.count - 9) where specificInfo[start] == 0x01 {
            guard Array(specificInfo[start..<(start + marker.count)]) == marker else { continue }
            let fields = start + marker.count
            let channels = Int(specificInfo[fields + 4])
            let rate = (0..<4).reduce(0) { $0 | Int(specificInfo[fields + 5 + $1]) << (8 * $1) }
            guard channels > 0, rate > 0 else { return nil }
            return AudioFrameFacts(channels: channels, sampleRate: rate)
        }
        return nil
    }
}

/// What an `esds` DecoderConfigDescriptor.objectTypeIndication says the stream is (the MP4
/// registration authority's object type table, one table for audio and visual streams): not
/// every `mp4a` is AAC and not every `mp4v` is MPEG-4 Visual.
public enum MPEG4ObjectType {
    public static let aac: Set<UInt8> = [0x40, 0x66, 0x67, 0x68]
    public static let mpegAudio: Set<UInt8> = [0x69, 0x6B]
    public static let dts: Set<UInt8> = [0xA9, 0xAA, 0xAB, 0xAC]

    public static func codecName(_ objectType: UInt8) -> String {
        switch objectType {
        case 0x20: return "MPEG-4 Visual"
        case 0x21: return "H.264"
        case 0x23: return "HEVC"
        case 0x40: return "AAC"
        case 0x60...0x65: return "MPEG-2 video"
        case 0x66, 0x67, 0x68: return "AAC (MPEG-2)"
        case 0x69: return "MPEG-2 audio (MP3)"
        case 0x6A: return "MPEG-1 video"
        case 0x6B: return "MPEG-1 audio (MP3)"
        case 0x6C: return "JPEG"
        case 0x6D: return "PNG"
        case 0xA5: return "AC-3"
        case 0xA6: return "E-AC-3"
        case 0xA9, 0xAA, 0xAB, 0xAC: return "DTS"
        case 0xAD: return "Opus"
        case 0xDD: return "Vorbis"
        case 0xE1: return "QCELP"
        default: return "object type 0x" + String(objectType, radix: 16).leftPadded(to: 2)
        }
    }
}
