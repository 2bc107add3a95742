/// `alac` inside an `alac` sample entry (or its QuickTime `wave`): the ALAC magic cookie
/// (ALACSpecificConfig) after version and flags. Its channel count and sample rate are what the
/// decoder outputs; the sample entry's fields may be placeholders.
public struct ALACSpecificBox: BoxView, DumpAnnotated, AudioCodecConfiguration {
    public static let types: [FourCC] = ["alac"]
    public var header = FullBoxHeader()
    public var frameLength: UInt32 = 4096
    public var compatibleVersion: UInt8 = 0
    public var bitDepth: UInt8 = 16
    public var pb: UInt8 = 40
    public var mb: UInt8 = 10
    public var kb: UInt8 = 14
    public var numChannels: UInt8 = 2
    public var maxRun: UInt16 = 255
    public var maxFrameBytes: UInt32 = 0
    public var avgBitRate: UInt32 = 0
    public var configuredSampleRate: UInt32 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("frameLength", &frameLength, bytes: 4)
        try coder.uint("compatibleVersion", &compatibleVersion, bytes: 1)
        try coder.uint("bitDepth", &bitDepth, bytes: 1)
        try coder.uint("pb", &pb, bytes: 1)
        try coder.uint("mb", &mb, bytes: 1)
        try coder.uint("kb", &kb, bytes: 1)
        try coder.uint("numChannels", &numChannels, bytes: 1)
        try coder.uint("maxRun", &maxRun, bytes: 2)
        try coder.uint("maxFrameBytes", &maxFrameBytes, bytes: 4)
        try coder.uint("avgBitRate", &avgBitRate, bytes: 4)
        try coder.uint("sampleRate", &configuredSampleRate, bytes: 4)
        try coder.rest("channelLayout", &rest)
    }

    public var channels: Int? { numChannels == 0 ? nil : Int(numChannels) }
    public var sampleRate: Int? { configuredSampleRate == 0 ? nil : Int(configuredSampleRate) }
    public var annotationLines: [String] { ["channels: \(channels.map(String.init) ?? "unknown")"] }
}

/// `dOps`: the Opus specific box (Opus in ISO BMFF, 4.3.2). Opus always decodes at 48 kHz;
/// InputSampleRate only records what the encoder was given.
public struct OpusSpecificBox: BoxView, DumpAnnotated, AudioCodecConfiguration {
    public static let types: [FourCC] = ["dOps"]
    public var version: UInt8 = 0
    public var outputChannelCount: UInt8 = 2
    public var preSkip: UInt16 = 0
    public var inputSampleRate: UInt32 = 48000
    public var outputGain: Int16 = 0
    public var channelMappingFamily: UInt8 = 0
    public var streamCount: UInt8 = 0
    public var coupledCount: UInt8 = 0
    public var channelMapping: [UInt8] = []
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("version", &version, bytes: 1)
        try coder.uint("outputChannelCount", &outputChannelCount, bytes: 1)
        try coder.uint("preSkip", &preSkip, bytes: 2)
        try coder.uint("inputSampleRate", &inputSampleRate, bytes: 4)
        try coder.int("outputGain", &outputGain, bytes: 2)
        try coder.uint("channelMappingFamily", &channelMappingFamily, bytes: 1)
        if channelMappingFamily != 0 {
            try coder.uint("streamCount", &streamCount, bytes: 1)
            try coder.uint("coupledCount", &coupledCount, bytes: 1)
            try coder.bytes("channelMapping", &channelMapping, count: Int(outputChannelCount))
        }
        try coder.rest("rest", &rest)
    }

    public var channels: Int? { outputChannelCount == 0 ? nil : Int(outputChannelCount) }
    public var sampleRate: Int? { 48000 }
    public var annotationLines: [String] { ["channels: \(channels.map(String.init) ?? "unknown")", "decoded sample rate: 48000 Hz"] }
}

/// `dfLa`: the FLAC specific box (FLAC in ISO BMFF 3.3.2): FLAC metadata blocks, the first of
/// which is STREAMINFO. STREAMINFO is typed; later blocks stay as bytes.
public struct FLACSpecificBox: BoxView, DumpAnnotated, AudioCodecConfiguration {
    public static let types: [FourCC] = ["dfLa"]
    public var header = FullBoxHeader()
    /// last-metadata-block flag (1), block type (7), length (24).
    public var blockHeader: UInt32 = 0x8000_0022
    public var minimumBlockSize: UInt16 = 0
    public var maximumBlockSize: UInt16 = 0
    public var minimumFrameSize: UInt32 = 0
    public var maximumFrameSize: UInt32 = 0
    /// sample rate (20), channels minus one (3), bits per sample minus one (5), total samples (36).
    public var packed: UInt64 = 0
    public var md5: [UInt8] = []
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("blockHeader", &blockHeader, bytes: 4)
        if hasStreamInfo {
            try coder.uint("minimumBlockSize", &minimumBlockSize, bytes: 2)
            try coder.uint("maximumBlockSize", &maximumBlockSize, bytes: 2)
            try coder.uint("minimumFrameSize", &minimumFrameSize, bytes: 3)
            try coder.uint("maximumFrameSize", &maximumFrameSize, bytes: 3)
            try coder.uint("rateChannelsBitsSamples", &packed, bytes: 8)
            try coder.bytes("md5", &md5, count: 16)
        }
        try coder.rest("rest", &rest)
    }

    /// STREAMINFO (type 0) of at least its 34 bytes.
    public var hasStreamInfo: Bool { blockHeader >> 24 & 0x7F == 0 && blockHeader & 0xFF_FFFF >= 34 }

    public var channels: Int? { hasStreamInfo ? Int(packed >> 41 & 0x7) + 1 : nil }
    public var sampleRate: Int? {
        let rate = Int(packed >> 44)
        return hasStreamInfo && rate > 0 ? rate : nil
    }
    public var bitsPerSample: Int? { hasStreamInfo ? Int(packed >> 36 & 0x1F) + 1 : nil }
    public var totalSamples: UInt64 { packed & 0xF_FFFF_FFFF }

    public var annotationLines: [String] {
        guard hasStreamInfo else { return ["STREAMINFO: <absent>"] }
        return ["sample rate: \(sampleRate.map { "\($0) Hz" } ?? "invalid (0)")", "channels: \(channels ?? 0)",
                "bits per sample: \(bitsPerSample ?? 0)", "total samples: \(totalSamples)"]
    }
}

/// `damr`: the AMR specific box (3GPP TS 26.244 6.7). AMR is mono by its specification, at
/// 8000 Hz (AMR-NB, `samr`) or 16000 Hz (AMR-WB, `sawb`); the box only describes the encoder.
public struct AMRSpecificBox: BoxView {
    public static let types: [FourCC] = ["damr"]
    public var vendor: FourCC = "    "
    public var decoderVersion: UInt8 = 0
    public var modeSet: UInt16 = 0
    public var modeChangePeriod: UInt8 = 0
    public var framesPerSample: UInt8 = 1
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.fourCC("vendor", &vendor)
        try coder.uint("decoderVersion", &decoderVersion, bytes: 1)
        try coder.uint("modeSet", &modeSet, bytes: 2)
        try coder.uint("modeChangePeriod", &modeChangePeriod, bytes: 1)
        try coder.uint("framesPerSample", &framesPerSample, bytes: 1)
        try coder.rest("rest", &rest)
    }

    /// Mono at the rate of the sample entry's format.
    public static func facts(format: FourCC) -> AudioFrameFacts? {
        switch format {
        case "samr": AudioFrameFacts(channels: 1, sampleRate: 8000)
        case "sawb": AudioFrameFacts(channels: 1, sampleRate: 16000)
        default: nil
        }
    }
}
