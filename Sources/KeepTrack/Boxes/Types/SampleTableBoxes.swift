/// `stts`: decode time deltas, run-length coded. Stored as interleaved (count, delta) pairs so a
/// table of millions of runs decodes with one bounds check.
public struct TimeToSampleBox: BoxView {
    public static let types: [FourCC] = ["stts"]
    public var header = FullBoxHeader()
    /// count0, delta0, count1, delta1, ...
    public var pairs: [UInt32] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.entryTable("countDeltaPairs", &pairs, width: 2)
    }
}

/// `ctts`: composition offsets (version 1 offsets are signed), interleaved (count, offset) pairs.
public struct CompositionOffsetBox: BoxView {
    public static let types: [FourCC] = ["ctts"]
    public var header = FullBoxHeader()
    public var pairs: [UInt32] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.entryTable("countOffsetPairs", &pairs, width: 2)
    }
}

/// `cslg`: composition-to-decode shift and the composition time range.
public struct CompositionShiftBox: BoxView {
    public static let types: [FourCC] = ["cslg"]
    public var header = FullBoxHeader()
    public var values: [Int64] = [0, 0, 0, 0, 0]
    public init() {}
    static let names = ["compositionToDTSShift", "leastDecodeToDisplayDelta", "greatestDecodeToDisplayDelta", "compositionStartTime", "compositionEndTime"]

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        guard values.count == 5 else { throw coder.malformed("cslg has \(values.count) values, not 5") }
        for index in 0..<5 { try coder.int(Self.names[index], &values[index], bytes: header.version == 1 ? 8 : 4) }
    }
}

/// `stss` (sync samples) and `stps` (partial sync): 1-based sample numbers.
public struct SyncSampleBox: BoxView {
    public static let types: [FourCC] = ["stss", "stps"]
    public var header = FullBoxHeader()
    public var sampleNumbers: [UInt32] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.entryTable("sampleNumbers", &sampleNumbers, width: 1)
    }
}

/// `sdtp`: one dependency byte per sample (count implied by the sample count).
public struct SampleDependencyBox: BoxView {
    public static let types: [FourCC] = ["sdtp"]
    public var header = FullBoxHeader()
    public var flags: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.rest("sampleFlags", &flags)
    }
}

/// `stsc`: runs of chunks with the same samples per chunk, as (firstChunk, samplesPerChunk, descriptionIndex) triples.
public struct SampleToChunkBox: BoxView {
    public static let types: [FourCC] = ["stsc"]
    public var header = FullBoxHeader()
    public var triples: [UInt32] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.entryTable("firstChunk,samplesPerChunk,descriptionIndex", &triples, width: 3)
    }
}

/// `stsz`: one size for all samples, or a size per sample.
public struct SampleSizeBox: BoxView {
    public static let types: [FourCC] = ["stsz"]
    public var header = FullBoxHeader()
    public var constantSize: UInt32 = 0
    public var sampleCount: UInt32 = 0
    public var sizes: [UInt32] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("sampleSize", &constantSize, bytes: 4)
        if !coder.isDecoding, constantSize == 0 { sampleCount = UInt32(sizes.count) }
        try coder.uint("sampleCount", &sampleCount, bytes: 4)
        if constantSize == 0 { try coder.u32Array("entrySizes", &sizes, count: Int(sampleCount)) }
    }
}

/// `stz2`: per-sample sizes packed in 4, 8 or 16 bits.
public struct CompactSampleSizeBox: BoxView {
    public static let types: [FourCC] = ["stz2"]
    public var header = FullBoxHeader()
    public var reserved: [UInt8] = []
    public var fieldSize: UInt8 = 16
    public var sampleCount: UInt32 = 0
    public var packed: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.bytes("reserved", &reserved, count: 3)
        try coder.uint("fieldSize", &fieldSize, bytes: 1)
        guard [4, 8, 16].contains(fieldSize) else { throw coder.malformed("stz2 field size \(fieldSize) is not 4, 8 or 16") }
        try coder.uint("sampleCount", &sampleCount, bytes: 4)
        let byteCount = (Int(sampleCount) * Int(fieldSize) + 7) / 8
        guard !coder.isDecoding || byteCount <= coder.remaining else {
            throw coder.malformed("claims \(sampleCount) samples, only \(coder.remaining) bytes left")
        }
        guard coder.isDecoding || packed.count == byteCount else {
            throw coder.malformed("stz2 holds \(packed.count) bytes of sizes, \(sampleCount) samples of \(fieldSize) bits need \(byteCount)")
        }
        try coder.bytes("entrySizes", &packed, count: byteCount)
    }

    public func sizes() throws -> [UInt32] {
        switch fieldSize {
        case 4: return (0..<Int(sampleCount)).map { UInt32(packed[$0 / 2] >> ($0 % 2 == 0 ? 4 : 0) & 0xF) }
        case 8: return packed.prefix(Int(sampleCount)).map(UInt32.init)
        case 16: return (0..<Int(sampleCount)).map { UInt32(packed[$0 * 2]) << 8 | UInt32(packed[$0 * 2 + 1]) }
        default: throw KeepTrackError.unsupported("stz2 field size \(fieldSize)")
        }
    }
}

/// `stco`: 32-bit chunk offsets.
public struct ChunkOffsetBox: BoxView {
    public static let types: [FourCC] = ["stco"]
    public var header = FullBoxHeader()
    public var offsets: [UInt32] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.entryTable("chunkOffsets", &offsets, width: 1)
    }
}

/// `co64`: 64-bit chunk offsets, stored as high/low halves to share the fast 32-bit path.
public struct ChunkLargeOffsetBox: BoxView {
    public static let types: [FourCC] = ["co64"]
    public var header = FullBoxHeader()
    public var halves: [UInt32] = []
    public init() {}
    public init(offsets: [UInt64]) {
        halves = offsets.flatMap { [UInt32($0 >> 32), UInt32($0 & 0xFFFF_FFFF)] }
    }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.entryTable("chunkOffsetHalves", &halves, width: 2)
    }

    public var offsets: [UInt64] {
        stride(from: 0, to: halves.count - 1, by: 2).map { UInt64(halves[$0]) << 32 | UInt64(halves[$0 + 1]) }
    }
}
