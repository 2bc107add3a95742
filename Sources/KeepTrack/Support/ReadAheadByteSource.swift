import Foundation

/// Serves small reads from one block read ahead: `repair` probes a few bytes at every offset of the
/// bytes it cannot place, and one system call per probe made that walk minutes long. One caller at a time.
public final class ReadAheadByteSource: ByteSource, @unchecked Sendable {
    let base: ByteSource
    let blockSize: Int
    private var blockOffset: UInt64 = 0
    private var block: [UInt8] = []
    private let lock = NSLock()

    public init(_ base: ByteSource, blockSize: Int = 1 << 20) {
        self.base = base
        self.blockSize = blockSize
    }

    public var size: UInt64 { base.size }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count <= blockSize / 2 else { return try base.read(at: offset, count: count) }
        lock.lock()
        defer { lock.unlock() }
        if offset < blockOffset || offset + UInt64(count) > blockOffset + UInt64(block.count) {
            guard offset + UInt64(count) <= base.size else { return try base.read(at: offset, count: count) }
            blockOffset = offset
            block = try base.read(at: offset, count: Int(min(UInt64(blockSize), base.size - offset)))
        }
        let start = Int(offset - blockOffset)
        return Array(block[start..<(start + count)])
    }
}
