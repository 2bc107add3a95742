/// `sidx`: an index of subsegments (byte sizes and durations) for streaming. Its first offset is
/// counted from the end of the box, so it describes one particular layout of the file.
public struct SegmentIndexBox: BoxView {
    public static let types: [FourCC] = ["sidx"]
    public struct Reference: Sendable, Equatable {
        /// reference_type (1 bit: 1 points at another sidx) and referenced_size (31 bits).
        public var typeAndSize: UInt32 = 0
        public var subsegmentDuration: UInt32 = 0
        /// starts_with_SAP (1 bit), SAP_type (3 bits), SAP_delta_time (28 bits).
        public var sap: UInt32 = 0
        public init() {}
        public var referencesIndex: Bool { typeAndSize & 0x8000_0000 != 0 }
        public var referencedSize: UInt32 { typeAndSize & 0x7FFF_FFFF }
    }

    public var header = FullBoxHeader()
    public var referenceID: UInt32 = 0
    public var timescale: UInt32 = 0
    public var earliestPresentationTime: UInt64 = 0
    public var firstOffset: UInt64 = 0
    public var reserved: UInt16 = 0
    public var references: [Reference] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("referenceID", &referenceID, bytes: 4)
        try coder.uint("timescale", &timescale, bytes: 4)
        try coder.versioned("earliestPresentationTime", &earliestPresentationTime, version: header.version)
        try coder.versioned("firstOffset", &firstOffset, version: header.version)
        try coder.uint("reserved", &reserved, bytes: 2)
        var count = UInt16(truncatingIfNeeded: references.count)
        try coder.uint("referenceCount", &count, bytes: 2)
        try coder.records("references", &references, count: Int(count), recordSize: 12, make: Reference.init) { c, reference in
            try c.uint("typeAndSize", &reference.typeAndSize, bytes: 4)
            try c.uint("subsegmentDuration", &reference.subsegmentDuration, bytes: 4)
            try c.uint("sap", &reference.sap, bytes: 4)
        }
    }
}
