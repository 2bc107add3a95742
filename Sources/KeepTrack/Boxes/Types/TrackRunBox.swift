/// `traf/trun`: a run of contiguous samples. Every per-sample field is optional (a flag says which
/// are present, the rest come from `tfhd` or `trex`); version 1 composition offsets are signed.
public struct TrackRunBox: BoxView {
    public static let types: [FourCC] = ["trun"]
    public static let dataOffsetPresent: UInt32 = 0x1
    public static let firstSampleFlagsPresent: UInt32 = 0x4
    public static let sampleDurationPresent: UInt32 = 0x100
    public static let sampleSizePresent: UInt32 = 0x200
    public static let sampleFlagsPresent: UInt32 = 0x400
    public static let sampleCompositionOffsetPresent: UInt32 = 0x800

    /// The fields a sample's record holds; absent ones stay 0.
    public struct Entry: Sendable, Equatable {
        public var duration: UInt32 = 0
        public var size: UInt32 = 0
        public var flags: UInt32 = 0
        /// As stored: unsigned in version 0, two's complement in version 1 (see `compositionOffset(_:)`).
        public var compositionOffsetBits: UInt32 = 0
        public init() {}
    }

    public var header = FullBoxHeader()
    public var sampleCount: UInt32 = 0
    /// Signed offset of the first sample's data from the fragment's base data offset.
    public var dataOffsetValue: Int32 = 0
    public var firstSampleFlagsValue: UInt32 = 0
    /// One entry per sample when any per-sample field is present, else empty.
    public var entries: [Entry] = []
    public init() {}

    /// Bytes of each sample's record.
    public var recordSize: Int { (header.flags & 0xF00).nonzeroBitCount * 4 }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("sampleCount", &sampleCount, bytes: 4)
        let flags = header.flags
        if flags & Self.dataOffsetPresent != 0 { try coder.int("dataOffset", &dataOffsetValue, bytes: 4) }
        if flags & Self.firstSampleFlagsPresent != 0 { try coder.uint("firstSampleFlags", &firstSampleFlagsValue, bytes: 4) }
        let recordSize = self.recordSize
        guard recordSize > 0 else { entries = []; return }
        let signed = header.version >= 1
        try coder.records("samples", &entries, count: Int(sampleCount), recordSize: recordSize, make: Entry.init) { c, entry in
            if flags & Self.sampleDurationPresent != 0 { try c.uint("sampleDuration", &entry.duration, bytes: 4) }
            if flags & Self.sampleSizePresent != 0 { try c.uint("sampleSize", &entry.size, bytes: 4) }
            if flags & Self.sampleFlagsPresent != 0 { try c.uint("sampleFlags", &entry.flags, bytes: 4) }
            if flags & Self.sampleCompositionOffsetPresent != 0 {
                if signed {
                    var value = Int32(bitPattern: entry.compositionOffsetBits)
                    try c.int("sampleCompositionOffset", &value, bytes: 4)
                    entry.compositionOffsetBits = UInt32(bitPattern: value)
                } else {
                    try c.uint("sampleCompositionOffset", &entry.compositionOffsetBits, bytes: 4)
                }
            }
        }
    }

    public var dataOffset: Int32? { header.flags & Self.dataOffsetPresent != 0 ? dataOffsetValue : nil }
    public var firstSampleFlags: UInt32? { header.flags & Self.firstSampleFlagsPresent != 0 ? firstSampleFlagsValue : nil }
    public func has(_ flag: UInt32) -> Bool { header.flags & flag != 0 }

    /// The composition offset of an entry: signed in version 1, unsigned in version 0.
    public func compositionOffset(_ entry: Entry) -> Int64 {
        header.version >= 1 ? Int64(Int32(bitPattern: entry.compositionOffsetBits)) : Int64(entry.compositionOffsetBits)
    }
}

/// The 32-bit sample flags of `trex`, `tfhd` and `trun` (ISO/IEC 14496-12 8.8.3.1).
public struct FragmentSampleFlags: Sendable, Equatable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// sample_is_non_sync_sample clear: a sync sample.
    public var isSync: Bool { rawValue & 0x1_0000 == 0 }
    /// is_leading, sample_depends_on, sample_is_depended_on, sample_has_redundancy as one `sdtp` byte.
    public var dependencyByte: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 20) }
}
