/// Ranges of another source laid end to end: what `flatten-stereo` writes (each sample's layer-0 NAL units,
/// read from the movie where they are). The writer copies the ranges straight from the source file
/// (`FileAppender`), so nothing goes through a temporary file or memory first.
/// Filled by one thread before anything reads it (hence unchecked).
public final class SplicedByteSource: ByteSource, @unchecked Sendable {
    /// Where the ranges' bytes are.
    public let base: ByteSource
    /// Per range: its start here (increasing), its offset in `base`, its length.
    private var starts: [UInt64] = []
    private var offsets: [UInt64] = []
    private var lengths: [UInt64] = []
    public private(set) var size: UInt64 = 0

    public init(base: ByteSource) { self.base = base }

    /// Appends `length` bytes of `base` at `offset` (joined to the range before when they follow it there);
    /// returns where they start here.
    @discardableResult
    public func append(offset: UInt64, length: UInt64) throws -> UInt64 {
        guard offset <= base.size, length <= base.size - offset else {
            throw KeepTrackError.malformed(path: "", offset: offset, reason: "a range of \(length) bytes past the end of the data (\(base.size) bytes)")
        }
        let start = size
        if let last = offsets.indices.last, offsets[last] + lengths[last] == offset {
            lengths[last] += length
        } else if length > 0 {
            starts.append(start)
            offsets.append(offset)
            lengths.append(length)
        }
        size += length
        return start
    }

    /// The pieces of `base` that hold `length` bytes from `offset` here, in order.
    public func pieces(at offset: UInt64, length: UInt64) throws -> [(offset: UInt64, length: UInt64)] {
        guard offset <= size, length <= size - offset else {
            throw KeepTrackError.malformed(path: "", offset: offset, reason: "read of \(length) bytes past the end of the data (\(size) bytes)")
        }
        return Self.walk(starts: starts, lengths: lengths, offset: offset, length: length).map { (offsets[$0.index] + $0.into, $0.length) }
    }

    /// Ranges in order (`starts` increasing, each `lengths` long): which of them hold `length` bytes from
    /// `offset`, where in each and how many, in order. The walk stops at a byte in no range (a gap between
    /// ranges), so the pieces then hold fewer bytes than asked: a caller whose ranges may leave gaps
    /// (`ConcatenatedByteSource` of a join) checks the sum.
    static func walk(starts: [UInt64], lengths: [UInt64], offset: UInt64, length: UInt64) -> [(index: Int, into: UInt64, length: UInt64)] {
        var result: [(index: Int, into: UInt64, length: UInt64)] = []
        var position = offset, remaining = length
        // The last range starting at or before `position`.
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle + 1 } else { high = middle }
        }
        var index = low - 1
        while remaining > 0, index >= 0, index < starts.count, position >= starts[index], position - starts[index] < lengths[index] {
            let into = position - starts[index]
            let take = min(remaining, lengths[index] - into)
            result.append((index, into, take))
            position += take
            remaining -= take
            index += 1
        }
        return result
    }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0 else { throw KeepTrackError.malformed(path: "", offset: offset, reason: "a read of \(count) bytes") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for piece in try pieces(at: offset, length: UInt64(count)) { bytes += try base.read(at: piece.offset, count: Int(piece.length)) }
        return bytes
    }
}
