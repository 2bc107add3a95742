/// Hashes of sample data, the proof that a rewrite passed every sample through unchanged.
public enum SampleDigest {
    /// Bytes read per call: large enough to amortise the system calls, small enough for the memory floor.
    static let bufferSize = 1 << 22

    /// SHA-256 of the samples' bytes concatenated in decode order (independent of chunk layout).
    public static func sha256(of table: SampleTable, in source: ByteSource) throws -> [UInt8] {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        var runStart: UInt64 = 0
        var runLength: UInt64 = 0
        func flush() throws {
            var offset = runStart
            var remaining = runLength
            while remaining > 0 {
                let count = Int(min(remaining, UInt64(bufferSize)))
                if let file = source as? FileByteSource {
                    try buffer.withUnsafeMutableBytes { raw in
                        let part = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
                        try file.read(at: offset, into: part)
                        hasher.update(UnsafeRawBufferPointer(part))
                    }
                } else {
                    hasher.update(try source.read(at: offset, count: count))
                }
                offset += UInt64(count)
                remaining -= UInt64(count)
            }
            runLength = 0
        }
        // Adjacent samples are read as one run.
        for sample in table.samples where sample.size > 0 {
            if runLength > 0, runStart + runLength == sample.offset {
                runLength += UInt64(sample.size)
            } else {
                try flush()
                runStart = sample.offset
                runLength = UInt64(sample.size)
            }
        }
        try flush()
        return hasher.finalize()
    }
}
