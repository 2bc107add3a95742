/// `size` zero bytes that exist nowhere: the payload of sparse test files above 4 GiB. The writer
/// skips over such ranges (leaving holes) instead of writing zeros.
public final class ZeroByteSource: ByteSource {
    public let size: UInt64
    public init(size: UInt64) { self.size = size }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw KeepTrackError.malformed(path: "", offset: offset, reason: "read past the end of \(size) zero bytes")
        }
        return [UInt8](repeating: 0, count: count)
    }
}
