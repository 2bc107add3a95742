/// `sgpd`: sample group descriptions (`roll`, `prol`, `sync`, `tscl`, ...). Entries stay as bytes.
public struct SampleGroupDescriptionBox: BoxView {
    public static let types: [FourCC] = ["sgpd"]
    public var header = FullBoxHeader()
    public var groupingType: FourCC = "roll"
    public var defaultLength: UInt32 = 0
    public var defaultDescriptionIndex: UInt32 = 0
    public var entryCount: UInt32 = 0
    public var entries: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.fourCC("groupingType", &groupingType)
        if header.version >= 1 { try coder.uint("defaultLength", &defaultLength, bytes: 4) }
        if header.version >= 2 { try coder.uint("defaultSampleDescriptionIndex", &defaultDescriptionIndex, bytes: 4) }
        try coder.uint("entryCount", &entryCount, bytes: 4)
        try coder.rest("entries", &entries)
    }
}

/// `sbgp`: which samples belong to which group description, as (sampleCount, groupIndex) pairs.
public struct SampleToGroupBox: BoxView {
    public static let types: [FourCC] = ["sbgp"]
    public var header = FullBoxHeader()
    public var groupingType: FourCC = "roll"
    public var groupingTypeParameter: UInt32 = 0
    public var pairs: [UInt32] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.fourCC("groupingType", &groupingType)
        if header.version == 1 { try coder.uint("groupingTypeParameter", &groupingTypeParameter, bytes: 4) }
        try coder.entryTable("sampleCount,groupDescriptionIndex", &pairs, width: 2)
    }

    public var totalSamples: UInt64 {
        stride(from: 0, to: pairs.count, by: 2).reduce(0) { $0 + UInt64(pairs[$1]) }
    }
}
