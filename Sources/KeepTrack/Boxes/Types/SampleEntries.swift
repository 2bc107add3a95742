/// The fields every audio and video sample entry starts with: ISO SampleEntry's six reserved bytes
/// and data reference index, then QuickTime's version, revision level and vendor (ISO: reserved).
public struct SampleEntryHeader: Sendable, Equatable {
    public var reserved: [UInt8] = []
    public var dataReferenceIndex: UInt16 = 1
    public var version: UInt16 = 0
    public var revisionLevel: UInt16 = 0
    public var vendor: UInt32 = 0
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.bytes("reserved", &reserved, count: 6)
        try coder.uint("dataReferenceIndex", &dataReferenceIndex, bytes: 2)
        try coder.uint("version", &version, bytes: 2)
        try coder.uint("revisionLevel", &revisionLevel, bytes: 2)
        try coder.uint("vendor", &vendor, bytes: 4)
    }
}

/// The fixed fields of a video sample entry (`avc1`, `hvc1`, `hev1`, `dvh1`, `ap4h`, ...),
/// coded from the entry's prefix; configuration boxes (hvcC, colr, dvvC) are its children.
public struct VisualSampleEntry: FieldCodable, Equatable {
    public var header = SampleEntryHeader()
    public var temporalQuality: UInt32 = 0
    public var spatialQuality: UInt32 = 0
    public var width: UInt16 = 0
    public var height: UInt16 = 0
    public var horizontalResolution: UInt32 = 0x0048_0000
    public var verticalResolution: UInt32 = 0x0048_0000
    public var dataSize: UInt32 = 0
    public var frameCount: UInt16 = 1
    public var compressorName: [UInt8] = Array(repeating: 0, count: 32)
    public var depth: UInt16 = 0x18
    public var colorTableID: Int16 = -1
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("temporalQuality", &temporalQuality, bytes: 4)
        try coder.uint("spatialQuality", &spatialQuality, bytes: 4)
        try coder.uint("width", &width, bytes: 2)
        try coder.uint("height", &height, bytes: 2)
        try coder.uint("horizontalResolution", &horizontalResolution, bytes: 4)
        try coder.uint("verticalResolution", &verticalResolution, bytes: 4)
        try coder.uint("dataSize", &dataSize, bytes: 4)
        try coder.uint("frameCount", &frameCount, bytes: 2)
        try coder.bytes("compressorName", &compressorName, count: 32)
        try coder.uint("depth", &depth, bytes: 2)
        try coder.int("colorTableID", &colorTableID, bytes: 2)
    }
}

/// The fixed fields of an audio sample entry: ISO AudioSampleEntry, or QuickTime SoundDescription
/// version 0, 1 or 2. In version 2 the v0 fields are placeholders (3 channels, rate 1.0 for APAC);
/// the true rate and channel count are the v2 fields.
public struct AudioSampleEntry: FieldCodable, Equatable {
    public var header = SampleEntryHeader()
    public var channelCount: UInt16 = 2
    public var sampleSize: UInt16 = 16
    public var compressionID: Int16 = 0
    public var packetSize: UInt16 = 0
    /// 16.16 fixed point.
    public var sampleRate: UInt32 = 0
    // Version 1.
    public var samplesPerPacket: UInt32 = 0
    public var bytesPerPacket: UInt32 = 0
    public var bytesPerFrame: UInt32 = 0
    public var bytesPerSample: UInt32 = 0
    // Version 2.
    public var sizeOfStructOnly: UInt32 = 72
    public var audioSampleRateBits: UInt64 = 0
    public var audioChannels: UInt32 = 0
    public var always7F000000: UInt32 = 0x7F00_0000
    public var constBitsPerChannel: UInt32 = 0
    public var formatSpecificFlags: UInt32 = 0
    public var constBytesPerAudioPacket: UInt32 = 0
    public var constLPCMFramesPerAudioPacket: UInt32 = 0
    public init() {}

    /// QuickTime SoundDescription version: 0 (and ISO), 1 or 2; it decides which fields follow.
    public var version: UInt16 {
        get { header.version }
        set { header.version = newValue }
    }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("channelCount", &channelCount, bytes: 2)
        try coder.uint("sampleSize", &sampleSize, bytes: 2)
        try coder.int("compressionID", &compressionID, bytes: 2)
        try coder.uint("packetSize", &packetSize, bytes: 2)
        try coder.uint("sampleRate", &sampleRate, bytes: 4)
        if version == 1 {
            try coder.uint("samplesPerPacket", &samplesPerPacket, bytes: 4)
            try coder.uint("bytesPerPacket", &bytesPerPacket, bytes: 4)
            try coder.uint("bytesPerFrame", &bytesPerFrame, bytes: 4)
            try coder.uint("bytesPerSample", &bytesPerSample, bytes: 4)
        } else if version == 2 {
            try coder.uint("sizeOfStructOnly", &sizeOfStructOnly, bytes: 4)
            try coder.uint("audioSampleRateFloat64Bits", &audioSampleRateBits, bytes: 8)
            try coder.uint("numAudioChannels", &audioChannels, bytes: 4)
            try coder.uint("always7F000000", &always7F000000, bytes: 4)
            try coder.uint("constBitsPerChannel", &constBitsPerChannel, bytes: 4)
            try coder.uint("formatSpecificFlags", &formatSpecificFlags, bytes: 4)
            try coder.uint("constBytesPerAudioPacket", &constBytesPerAudioPacket, bytes: 4)
            try coder.uint("constLPCMFramesPerAudioPacket", &constLPCMFramesPerAudioPacket, bytes: 4)
        }
    }

    /// The true sample rate: the v2 float64 field when present, else the 16.16 field.
    public var effectiveSampleRate: Double {
        version == 2 ? Double(bitPattern: audioSampleRateBits) : Double(sampleRate >> 16)
    }

    /// The true channel count from the v2 field; the v0/ISO field otherwise (which callers may distrust).
    public var effectiveChannels: Int { version == 2 ? Int(audioChannels) : Int(channelCount) }
}
