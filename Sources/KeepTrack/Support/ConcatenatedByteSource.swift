/// Several sources laid end to end at fixed bases: the media data of a joined movie, whose samples
/// come from several files. Each part starts at a multiple of `alignment`, so an offset keeps its
/// position modulo the copy alignment of the file it is in. The writer copies each range straight
/// from its part (`FileAppender`: copy_file_range where the part is a file).
public final class ConcatenatedByteSource: ByteSource {
    public let parts: [ByteSource]
    /// Where each part starts here.
    public let bases: [UInt64]
    public let size: UInt64
    static let alignment: UInt64 = 1 << 20

    public init(_ parts: [ByteSource]) {
        self.parts = parts
        var bases: [UInt64] = []
        var next: UInt64 = 0
        for part in parts {
            bases.append(next)
            next += (part.size + Self.alignment - 1) / Self.alignment * Self.alignment
        }
        self.bases = bases
        size = bases.last.map { $0 + (parts.last?.size ?? 0) } ?? 0
    }

    /// The parts that hold `length` bytes from `offset` here, in order; throws for bytes in no part
    /// (the gap between a part's end and the next base).
    public func pieces(at offset: UInt64, length: UInt64) throws -> [(source: ByteSource, offset: UInt64, length: UInt64)] {
        var result: [(source: ByteSource, offset: UInt64, length: UInt64)] = []
        var position = offset, remaining = length
        while remaining > 0 {
            guard let index = bases.lastIndex(where: { $0 <= position }) else { break }
            let into = position - bases[index]
            let part = parts[index]
            guard into < part.size else {
                throw KeepTrackError.malformed(path: "", offset: offset, reason: "a range of \(length) bytes outside every joined file")
            }
            let take = min(remaining, part.size - into)
            result.append((part, into, take))
            position += take
            remaining -= take
        }
        return result
    }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0 else { throw KeepTrackError.malformed(path: "", offset: offset, reason: "a read of \(count) bytes") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for piece in try pieces(at: offset, length: UInt64(count)) { bytes += try piece.source.read(at: piece.offset, count: Int(piece.length)) }
        return bytes
    }
}
