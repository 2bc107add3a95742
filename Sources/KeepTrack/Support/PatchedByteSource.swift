/// A byte source seen through a few replaced byte ranges: how a movie reads once its repairs are
/// applied, without writing anything (`fix IN OUT` never touches IN).
public final class PatchedByteSource: ByteSource {
    public let base: ByteSource
    /// Bytes that replace the base's from `offset` on.
    public struct Patch: Sendable, Equatable {
        public var offset: UInt64
        public var bytes: [UInt8]
        public init(offset: UInt64, bytes: [UInt8]) {
            self.offset = offset
            self.bytes = bytes
        }
    }

    /// Replacements in ascending, non-overlapping order.
    let patches: [Patch]

    /// `patches` must lie inside `base` and not overlap (checked: a bad repair must not read garbage).
    public init(_ base: ByteSource, patches: [Patch]) throws {
        let sorted = patches.sorted { $0.offset < $1.offset }
        var end: UInt64 = 0
        for patch in sorted {
            guard patch.offset >= end, UInt64(patch.bytes.count) <= base.size, patch.offset <= base.size - UInt64(patch.bytes.count) else {
                throw KeepTrackError.malformed(path: "", offset: patch.offset, reason: "patch of \(patch.bytes.count) bytes overlaps another or runs past the end of the data")
            }
            end = patch.offset + UInt64(patch.bytes.count)
        }
        self.base = base
        self.patches = sorted
    }

    public var size: UInt64 { base.size }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        var bytes = try base.read(at: offset, count: count)
        let end = offset + UInt64(count)
        for patch in patches {
            let patchEnd = patch.offset + UInt64(patch.bytes.count)
            if patchEnd <= offset { continue }
            if patch.offset >= end { break }
            let from = max(offset, patch.offset), to = min(end, patchEnd)
            for position in from..<to { bytes[Int(position - offset)] = patch.bytes[Int(position - patch.offset)] }
        }
        return bytes
    }
}
