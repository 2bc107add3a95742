/// `elst`: which media time range is presented (and encoder priming skipped).
public struct EditListBox: BoxView {
    public static let types: [FourCC] = ["elst"]
    public struct Entry: Sendable, Equatable {
        /// In movie time scale units.
        public var segmentDuration: UInt64 = 0
        /// In media time scale units; -1 is an empty edit.
        public var mediaTime: Int64 = 0
        public var rateInteger: Int16 = 1
        public var rateFraction: Int16 = 0
        public init() {}
    }
    public var header = FullBoxHeader()
    public var entries: [Entry] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        var count = UInt32(entries.count)
        try coder.uint("entryCount", &count, bytes: 4)
        let width = header.version == 1 ? 8 : 4
        try coder.records("entries", &entries, count: Int(count), recordSize: width * 2 + 4, make: Entry.init) { c, entry in
            try c.uint("segmentDuration", &entry.segmentDuration, bytes: width)
            try c.int("mediaTime", &entry.mediaTime, bytes: width)
            try c.int("rateInteger", &entry.rateInteger, bytes: 2)
            try c.int("rateFraction", &entry.rateFraction, bytes: 2)
        }
    }
}
