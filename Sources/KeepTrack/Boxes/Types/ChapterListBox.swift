/// `chpl` (moov/udta): the Nero chapter list FFmpeg writes into MP4 files beside (or instead of) a QuickTime chapter
/// track. Version 1 has 4 reserved bytes before the count, version 0 none (FFmpeg and VLC read it so). Start times
/// are in 100 ns units on the movie timeline; titles are at most 255 bytes of UTF-8.
public struct ChapterListBox: BoxView {
    public static let types: [FourCC] = ["chpl"]
    /// Units of `Chapter.start` per second.
    public static let unitsPerSecond: UInt32 = 10_000_000

    public struct Chapter: Sendable, Equatable {
        public var start: UInt64 = 0
        public var title: [UInt8] = []
        public init() {}
        public init(start: UInt64, title: [UInt8]) { self.start = start; self.title = title }
    }
    public var header = FullBoxHeader(version: 1)
    public var reserved: UInt32 = 0
    public var chapters: [Chapter] = []
    public var trailing: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        if header.version >= 1 { try coder.uint("reserved", &reserved, bytes: 4) }
        guard chapters.count <= 255 else { throw coder.malformed("\(chapters.count) chapters, a chpl holds at most 255") }
        var count = UInt8(chapters.count)
        try coder.uint("chapterCount", &count, bytes: 1)
        // 9 bytes is a chapter with an empty title: the count is checked against what is left before a chapter is made.
        try coder.records("chapters", &chapters, count: Int(count), recordSize: 9, make: Chapter.init) { c, chapter in
            try c.uint("start", &chapter.start, bytes: 8)
            guard chapter.title.count <= 255 else { throw c.malformed("a chapter title of \(chapter.title.count) bytes, at most 255 fit") }
            var length = UInt8(chapter.title.count)
            try c.uint("titleLength", &length, bytes: 1)
            try c.bytes("title", &chapter.title, count: Int(length))
        }
        try coder.rest("trailing", &trailing)
    }

    /// The chapters a cut `[start, end)` (100 ns units on the source timeline) holds, timed from the cut: the chapter
    /// playing at `start` opens it at 0, those starting from `end` on are left out. Sorted by start, as readers sort.
    public func cut(start: UInt64, end: UInt64) -> [Chapter] {
        let sorted = chapters.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        var result: [Chapter] = []
        if let opening = sorted.last(where: { $0.start <= start }) { result.append(Chapter(start: 0, title: opening.title)) }
        result += sorted.filter { $0.start > start && $0.start < end }.map { Chapter(start: $0.start - start, title: $0.title) }
        return result
    }
}
