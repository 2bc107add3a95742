/// `mfra/tfra`: random access points of one track's fragments, with the file offsets of their `moof`s.
public struct TrackFragmentRandomAccessBox: BoxView {
    public static let types: [FourCC] = ["tfra"]
    public struct Entry: Sendable, Equatable {
        public var time: UInt64 = 0
        public var moofOffset: UInt64 = 0
        public var trafNumber: UInt32 = 0
        public var trunNumber: UInt32 = 0
        public var sampleNumber: UInt32 = 0
        public init() {}
    }

    public var header = FullBoxHeader()
    public var trackID: UInt32 = 0
    /// 26 reserved bits, then the byte widths minus one of traf, trun and sample numbers (2 bits each).
    public var lengthSizes: UInt32 = 0
    public var entries: [Entry] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("trackID", &trackID, bytes: 4)
        try coder.uint("lengthSizes", &lengthSizes, bytes: 4)
        var count = UInt32(truncatingIfNeeded: entries.count)
        try coder.uint("entryCount", &count, bytes: 4)
        let timeWidth = header.version == 1 ? 8 : 4
        let traf = Int(lengthSizes >> 4 & 3) + 1, trun = Int(lengthSizes >> 2 & 3) + 1, sample = Int(lengthSizes & 3) + 1
        try coder.records("entries", &entries, count: Int(count), recordSize: timeWidth * 2 + traf + trun + sample, make: Entry.init) { c, entry in
            try c.uint("time", &entry.time, bytes: timeWidth)
            try c.uint("moofOffset", &entry.moofOffset, bytes: timeWidth)
            try c.uint("trafNumber", &entry.trafNumber, bytes: traf)
            try c.uint("trunNumber", &entry.trunNumber, bytes: trun)
            try c.uint("sampleNumber", &entry.sampleNumber, bytes: sample)
        }
    }
}
