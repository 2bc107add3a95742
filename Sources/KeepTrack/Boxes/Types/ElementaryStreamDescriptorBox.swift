/// `esds`: the MPEG-4 elementary stream descriptor of an `mp4a` sample entry (directly in ISO files,
/// inside `wave` in QuickTime ones). The descriptor bytes are kept exactly; the nested descriptors
/// (ES_Descriptor → DecoderConfigDescriptor → DecoderSpecificInfo) are read on demand, because the
/// AudioSpecificConfig inside tells the true channel layout when the sample entry's field is a
/// placeholder or wrong.
public struct ElementaryStreamDescriptorBox: BoxView, DumpAnnotated {
    public static let types: [FourCC] = ["esds"]
    public var header = FullBoxHeader()
    public var descriptors: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.rest("descriptors", &descriptors)
    }

    /// DecoderConfigDescriptor.objectTypeIndication (0x40 = MPEG-4 audio), nil when absent.
    public var objectTypeIndication: UInt8? { (try? decoderConfig())?.objectType }

    /// The DecoderSpecificInfo bytes as stored (for AAC the AudioSpecificConfig a decoder is opened with).
    public func decoderSpecificInfo() throws -> [UInt8]? { try decoderConfig()?.specificInfo }

    /// The decoded AudioSpecificConfig, nil when absent or unreadable, or when the object type
    /// is not AAC (an MP3, Vorbis or DTS `mp4a` carries something else, or nothing, there).
    public var audioSpecificConfig: AudioSpecificConfig? {
        guard let config = try? decoderConfig(), let info = config.specificInfo,
              MPEG4ObjectType.aac.contains(config.objectType) else { return nil }
        return try? AudioSpecificConfig(bytes: info)
    }

    public var annotationLines: [String] {
        let found: (objectType: UInt8, specificInfo: [UInt8]?)?
        do { found = try decoderConfig() } catch { return ["decoderConfig: <unreadable: \(error)>"] }
        guard let config = found else { return ["decoderConfig: <absent>"] }
        var lines = ["objectTypeIndication: 0x" + String(config.objectType, radix: 16).leftPadded(to: 2)
                     + " (" + MPEG4ObjectType.codecName(config.objectType) + ")"]
        if let info = config.specificInfo, MPEG4ObjectType.aac.contains(config.objectType),
           let audio = try? AudioSpecificConfig(bytes: info) {
            lines += audio.dumpLines
        }
        return lines
    }

    /// Walks the descriptors down to the DecoderConfigDescriptor (tag 4) and its DecoderSpecificInfo (tag 5).
    func decoderConfig() throws -> (objectType: UInt8, specificInfo: [UInt8]?)? {
        var reader = ByteReader(descriptors, path: "esds")
        guard let es = try Self.descriptor(&reader), es.tag == 0x03 else { return nil }
        var inner = ByteReader(es.body, path: "esds/ES_Descriptor")
        try inner.skip(2, "ES_ID")
        let flags = try inner.u8("ES flags")
        if flags & 0x80 != 0 { try inner.skip(2, "dependsOn_ES_ID") }
        if flags & 0x40 != 0 { try inner.skip(Int(try inner.u8("URLlength")), "URL") }
        if flags & 0x20 != 0 { try inner.skip(2, "OCR_ES_ID") }
        while !inner.isAtEnd, let child = try Self.descriptor(&inner) {
            guard child.tag == 0x04 else { continue }
            var config = ByteReader(child.body, path: "esds/DecoderConfigDescriptor")
            let objectType = try config.u8("objectTypeIndication")
            try config.skip(12, "streamType, bufferSize, bitrates")
            while !config.isAtEnd, let info = try Self.descriptor(&config) {
                if info.tag == 0x05 { return (objectType, info.body) }
            }
            return (objectType, nil)
        }
        return nil
    }

    /// One descriptor: tag, then a size in 1–4 bytes of 7 bits each (high bit = more follow).
    static func descriptor(_ reader: inout ByteReader) throws -> (tag: UInt8, body: [UInt8])? {
        guard reader.remaining >= 2 else { return nil }
        let tag = try reader.u8("descriptor tag")
        var size = 0
        for _ in 0..<4 {
            let byte = try reader.u8("descriptor size")
            size = size << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        return (tag, try reader.bytes(size, "descriptor \(tag) body"))
    }
}

/// MPEG-4 AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1): object type, sampling frequency and
/// channel configuration, with their escape values (object type 31, frequency index 15,
/// channel configuration 0 = the layout is in a program config element).
public struct AudioSpecificConfig: Sendable, Equatable {
    public var audioObjectType: Int
    public var samplingFrequencyIndex: Int
    public var samplingFrequency: Int?
    public var channelConfiguration: Int
    /// SBR/PS (object type 5 or 29): the output rate and the core object type.
    public var extensionSamplingFrequency: Int?
    public var coreObjectType: Int?
    /// Channels counted from a program config element (channel configuration 0).
    public var programConfigChannels: Int?

    static let frequencies = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
    /// Object types whose GASpecificConfig may carry a program config element.
    static let generalAudioTypes: Set<Int> = [1, 2, 3, 4, 6, 7, 17, 19, 20, 21, 22, 23]

    public init(bytes: [UInt8]) throws {
        var bits = BitReader(bytes)
        audioObjectType = try Self.objectType(&bits)
        (samplingFrequencyIndex, samplingFrequency) = try Self.frequency(&bits)
        channelConfiguration = try bits.read(4)
        var coreType = audioObjectType
        if audioObjectType == 5 || audioObjectType == 29 {
            extensionSamplingFrequency = try Self.frequency(&bits).1
            coreType = try Self.objectType(&bits)
            coreObjectType = coreType
        }
        if channelConfiguration == 0, Self.generalAudioTypes.contains(coreType) {
            _ = try bits.read(1) // frameLengthFlag
            if try bits.read(1) == 1 { _ = try bits.read(14) } // dependsOnCoreCoder → coreCoderDelay
            _ = try bits.read(1) // extensionFlag
            programConfigChannels = try Self.programConfigChannels(&bits)
        }
    }

    static func objectType(_ bits: inout BitReader) throws -> Int {
        let type = try bits.read(5)
        return type == 31 ? 32 + (try bits.read(6)) : type
    }

    static func frequency(_ bits: inout BitReader) throws -> (index: Int, hertz: Int?) {
        let index = try bits.read(4)
        if index == 15 { return (index, try bits.read(24)) }
        return (index, index < frequencies.count ? frequencies[index] : nil)
    }

    /// program_config_element(): counts front/side/back elements (a CPE is two channels) and LFEs.
    static func programConfigChannels(_ bits: inout BitReader) throws -> Int {
        _ = try bits.read(4 + 2 + 4) // element_instance_tag, object_type, sampling_frequency_index
        let front = try bits.read(4), side = try bits.read(4), back = try bits.read(4)
        let lfe = try bits.read(2)
        _ = try bits.read(3 + 4) // assoc data, valid cc
        for width in [4, 4, 3] { // mono, stereo, matrix mixdown: a presence bit, then the field
            if try bits.read(1) == 1 { _ = try bits.read(width) }
        }
        var channels = lfe
        for _ in 0..<(front + side + back) {
            channels += try bits.read(1) == 1 ? 2 : 1
            _ = try bits.read(4)
        }
        return channels
    }

    /// The channel count a decoder outputs; nil for reserved configurations.
    public var channels: Int? {
        // Parametric stereo turns one coded channel into two.
        if audioObjectType == 29 || coreObjectType == 29, channelConfiguration == 1 { return 2 }
        switch channelConfiguration {
        case 0: return programConfigChannels
        case 1...6: return channelConfiguration
        case 7, 12, 14: return 8
        case 11: return 7
        case 13: return 24
        default: return nil
        }
    }

    /// The rate a decoder outputs (the SBR rate when present).
    public var outputSampleRate: Int? { extensionSamplingFrequency ?? samplingFrequency }

    var dumpLines: [String] {
        var lines = ["audioObjectType: \(audioObjectType)", "samplingFrequencyIndex: \(samplingFrequencyIndex)",
                     "samplingFrequency: \(samplingFrequency.map(String.init) ?? "reserved")",
                     "channelConfiguration: \(channelConfiguration)"]
        if let extensionSamplingFrequency { lines.append("extensionSamplingFrequency: \(extensionSamplingFrequency)") }
        if let coreObjectType { lines.append("coreObjectType: \(coreObjectType)") }
        lines.append("channels: \(channels.map(String.init) ?? "unknown")")
        return lines
    }
}

/// Reads big-endian bit fields; running out of bits is malformed input, not a trap.
struct BitReader {
    let bytes: [UInt8]
    var position = 0
    /// Named in errors, with the byte offset reached inside `bytes`.
    let path: String
    init(_ bytes: [UInt8], path: String = "esds/AudioSpecificConfig") { self.bytes = bytes; self.path = path }

    mutating func alignToByte() { position = (position + 7) / 8 * 8 }

    mutating func skip(_ count: Int) throws {
        guard position + count <= bytes.count * 8 else {
            throw KeepTrackError.malformed(path: path, offset: UInt64(position / 8), reason: "needs \(count) more bits")
        }
        position += count
    }

    mutating func read(_ count: Int) throws -> Int {
        guard position + count <= bytes.count * 8 else {
            throw KeepTrackError.malformed(path: path, offset: UInt64(position / 8), reason: "needs \(count) more bits")
        }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position / 8] >> (7 - UInt8(position % 8)) & 1)
            position += 1
        }
        return value
    }
}
