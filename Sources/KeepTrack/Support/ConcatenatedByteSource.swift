/// Several sources laid end to end, read as one. Two uses:
/// - an init segment followed by its media segments (DASH, HLS fMP4, CMAF), together one fragmented
///   movie: the parts follow each other byte for byte (alignment 1), so offsets inside the segments (trun
///   data offsets from their moof) stay right;
/// - the media data of a joined movie, whose samples come from several files: each part starts at a
///   multiple of `joinAlignment`, so an offset keeps its position modulo the copy alignment of its file.
/// The writer copies each range straight from its part (`FileAppender`: copy_file_range for a file).
public final class ConcatenatedByteSource: ByteSource {
    public let parts: [ByteSource]
    /// Where each part starts here.
    public let bases: [UInt64]
    let lengths: [UInt64]
    public let size: UInt64
    public static let joinAlignment: UInt64 = 1 << 20

    public init(_ parts: [ByteSource], alignment: UInt64 = 1) {
        self.parts = parts
        var bases: [UInt64] = []
        var next: UInt64 = 0
        for part in parts {
            bases.append(next)
            next += (part.size + alignment - 1) / alignment * alignment
        }
        self.bases = bases
        lengths = parts.map(\.size)
        size = bases.last.map { $0 + (parts.last?.size ?? 0) } ?? 0
    }

    /// The parts that hold `length` bytes from `offset` here, in order; throws for bytes past the end or
    /// in no part (the gap between a part's end and the next aligned base).
    public func pieces(at offset: UInt64, length: UInt64) throws -> [(source: ByteSource, offset: UInt64, length: UInt64)] {
        guard offset <= size, length <= size - offset else {
            throw KeepTrackError.malformed(path: "", offset: offset, reason: "a read of \(length) bytes past the end of the \(parts.count) parts (\(size) bytes)")
        }
        let pieces = SplicedByteSource.walk(starts: bases, lengths: lengths, offset: offset, length: length)
        guard pieces.reduce(0, { $0 + $1.length }) == length else {
            throw KeepTrackError.malformed(path: "", offset: offset, reason: "a range of \(length) bytes outside every part")
        }
        return pieces.map { (parts[$0.index], $0.into, $0.length) }
    }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0 else { throw KeepTrackError.malformed(path: "", offset: offset, reason: "a read of \(count) bytes") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for piece in try pieces(at: offset, length: UInt64(count)) { bytes += try piece.source.read(at: piece.offset, count: Int(piece.length)) }
        return bytes
    }
}

extension Movie {
    /// An init segment (ftyp, moov with mvex) and its media segments (styp, sidx, moof, mdat, or bare
    /// moof and mdat), in order, read as one fragmented movie.
    public static func open(initSegment: String, segments: [String]) throws -> Movie {
        guard !segments.isEmpty else { throw KeepTrackError.usage("--init \(initSegment) needs at least one media segment after it") }
        let initSource = try FileByteSource(path: initSegment)
        let initBoxes = try BoxParser.parseFile(initSource)
        guard initBoxes.contains(where: { $0.type == "moov" }) else {
            throw KeepTrackError.malformed(path: "", offset: 0, reason: "\(initSegment) is not an init segment: it has no moov box (top-level boxes: \(initBoxes.prefix(8).map(\.type.description).joined(separator: ", ")))")
        }
        if let media = initBoxes.first(where: { $0.type == "mdat" || $0.type == "moof" }) {
            throw KeepTrackError.malformed(path: media.type.description, offset: media.offset,
                reason: "\(initSegment) holds media itself (\(media.type)): give it as the movie, not as --init")
        }
        var parts: [ByteSource] = [try endedAtItsFile(initSource, boxes: initBoxes, path: initSegment)]
        for (index, path) in segments.enumerated() {
            var source: ByteSource = try FileByteSource(path: path)
            let boxes = try BoxParser.parseFile(source)
            if index < segments.count - 1 { source = try endedAtItsFile(source, boxes: boxes, path: path) }
            if let moov = boxes.first(where: { $0.type == "moov" }) {
                throw KeepTrackError.malformed(path: "moov", offset: moov.offset, reason: "\(path) has a moov box: it is a movie or an init segment, not a media segment")
            }
            guard boxes.contains(where: { $0.type == "moof" }) else {
                throw KeepTrackError.malformed(path: "", offset: 0, reason: "\(path) is not a media segment: it has no moof box")
            }
            parts.append(source)
        }
        let movie = try Movie(source: ConcatenatedByteSource(parts))
        // Segments of another rendition under this init segment read as its samples: AAC packets as H.264 ones.
        if let mismatch = firstSampleMismatches(movie.tracks, source: movie.source).first {
            throw KeepTrackError.malformed(path: mismatch.path, offset: mismatch.offset,
                reason: "track \(mismatch.trackID): \(mismatch.reason): the media segments do not belong to \(initSegment) (another rendition's?)")
        }
        return movie
    }

    /// Read end to end, a box of size 0 ("to the end of the file") in a part runs to the end of the last part, and a
    /// box claiming bytes past its file's end takes the next file's: an init moov of size 0 swallowed every segment
    /// (remux wrote 0 samples and exited 0), a segment's mdat of size 0 the segments after it (50 of 75 samples). A
    /// part with a size-0 box gets its real size written in (in memory: init segments and segments are small); one
    /// whose box claims past its end is cut short, and refused.
    static func endedAtItsFile(_ source: ByteSource, boxes: [Box], path: String) throws -> ByteSource {
        if let short = BoxParser.shortMediaData(boxes, source: source) ?? BoxParser.shortPadding(boxes, source: source) {
            throw KeepTrackError.malformed(path: short.box.type.description, offset: short.box.offset,
                reason: "\(path) is cut short: the box claims \(short.declaredSize) bytes, \(short.declaredSize - short.box.size) past the end of the file, which the next segment would fill")
        }
        guard let last = boxes.last, last.headerForm == .toEnd else { return source }
        guard source.size <= 1 << 26, last.size <= UInt64(UInt32.max) else {
            throw KeepTrackError.malformed(path: last.type.description, offset: last.offset,
                reason: "\(path): a box of size 0 (to the end of the file) of \(last.size) bytes, in a part followed by others: rewrite it with its size")
        }
        var bytes = try source.read(at: 0, count: Int(source.size))
        let size = UInt32(last.size)
        bytes.replaceSubrange(Int(last.offset)..<Int(last.offset) + 4, with: [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
        return MemoryByteSource(bytes)
    }
}
