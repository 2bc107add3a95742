import Foundation

/// Sample data of two tracks compared byte for byte, without hashing: deciding "same or not" costs
/// what reading both costs. The samples' bytes are compared concatenated in decode order, so two
/// layouts of the same samples (a remux, a defragmented copy) compare equal.
public enum SampleBytes {
    /// Logical bytes compared per piece; each worker holds one piece of each side.
    static let pieceSize = 1 << 21

    /// Where the two streams first differ.
    public struct Difference: Sendable, Equatable {
        /// 0-based sample index in decode order of the first differing byte (of A's table).
        public let sample: Int
        /// File offsets of that byte in A and in B.
        public let offsetA: UInt64
        public let offsetB: UInt64
    }

    /// The file extents of a table's samples in decode order, adjacent samples joined into one run.
    struct Runs {
        var offsets: [UInt64] = []
        var lengths: [UInt64] = []
        /// Logical position (in the concatenated stream) where each run starts.
        var starts: [UInt64] = []
        var total: UInt64 = 0

        init(_ table: SampleTable) {
            for sample in table.samples where sample.size > 0 {
                if let last = offsets.indices.last, offsets[last] + lengths[last] == sample.offset {
                    lengths[last] += UInt64(sample.size)
                } else {
                    offsets.append(sample.offset)
                    lengths.append(UInt64(sample.size))
                    starts.append(total)
                }
                total += UInt64(sample.size)
            }
        }

        /// The run holding logical position `position` (< total).
        func run(containing position: UInt64) -> Int {
            var low = 0, high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= position { low = middle } else { high = middle - 1 }
            }
            return low
        }

        func fileOffset(of position: UInt64) -> UInt64 {
            let index = run(containing: position)
            return offsets[index] + (position - starts[index])
        }

        /// Fills `buffer` with the stream's bytes from logical `position`.
        func read(at position: UInt64, from source: ByteSource, into buffer: UnsafeMutableRawBufferPointer) throws {
            var index = run(containing: position)
            var done = 0
            var within = position - starts[index]
            while done < buffer.count {
                let count = Int(min(UInt64(buffer.count - done), lengths[index] - within))
                let part = UnsafeMutableRawBufferPointer(rebasing: buffer[done..<done + count])
                if let file = source as? FileByteSource {
                    try file.read(at: offsets[index] + within, into: part)
                } else {
                    let bytes = try source.read(at: offsets[index] + within, count: count)
                    bytes.withUnsafeBytes { part.copyMemory(from: $0) }
                }
                done += count
                index += 1
                within = 0
            }
        }
    }

    /// The first byte where A's samples and B's samples differ, or nil when every byte is the same.
    /// Both tables must describe the same number of bytes (callers compare `totalBytes` first).
    /// Pieces are compared on every core; each worker reads a piece of A and the same piece of B.
    public static func firstDifference(_ tableA: SampleTable, in sourceA: ByteSource,
                                       _ tableB: SampleTable, in sourceB: ByteSource) throws -> Difference? {
        let runsA = Runs(tableA), runsB = Runs(tableB)
        guard runsA.total == runsB.total else {
            throw KeepTrackError.unsupported("sample data of \(runsA.total) and \(runsB.total) bytes cannot be compared byte for byte")
        }
        let total = runsA.total
        guard total > 0 else { return nil }
        // Both files are read front to back: a larger readahead window for a cold cache.
        for case let file as FileByteSource in [sourceA, sourceB] { _ = posix_fadvise(file.fileDescriptor, 0, 0, 2) } // POSIX_FADV_SEQUENTIAL
        let pieces = Int((total + UInt64(pieceSize) - 1) / UInt64(pieceSize))
        let workers = max(1, min(pieces, ProcessInfo.processInfo.activeProcessorCount))
        let state = SharedScan(pieces: pieces)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let bufferA = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 64)
            let bufferB = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 64)
            defer { bufferA.deallocate(); bufferB.deallocate() }
            while let piece = state.next() {
                let start = UInt64(piece) * UInt64(pieceSize)
                let count = Int(min(UInt64(pieceSize), total - start))
                do {
                    let partA = UnsafeMutableRawBufferPointer(rebasing: bufferA[0..<count])
                    let partB = UnsafeMutableRawBufferPointer(rebasing: bufferB[0..<count])
                    try runsA.read(at: start, from: sourceA, into: partA)
                    try runsB.read(at: start, from: sourceB, into: partB)
                    if memcmp(partA.baseAddress!, partB.baseAddress!, count) != 0 {
                        var index = 0
                        while partA[index] == partB[index] { index += 1 }
                        state.found(piece: piece, position: start + UInt64(index))
                    }
                } catch {
                    state.failed(piece: piece, error)
                }
            }
        }
        if let error = state.error { throw error }
        guard let position = state.position else { return nil }
        return Difference(sample: sampleIndex(at: position, in: tableA),
                          offsetA: runsA.fileOffset(of: position), offsetB: runsB.fileOffset(of: position))
    }

    /// The sample (decode order) holding logical byte `position` of the concatenated stream.
    static func sampleIndex(at position: UInt64, in table: SampleTable) -> Int {
        var end: UInt64 = 0
        for index in 0..<table.sampleCount {
            end += UInt64(table.size(of: index))
            if position < end { return index }
        }
        return max(0, table.sampleCount - 1)
    }
}

/// Hands out pieces in order and keeps the earliest difference or error; pieces after the earliest
/// one found are skipped.
private final class SharedScan: @unchecked Sendable {
    private let lock = NSLock()
    private var nextPiece = 0
    private let pieces: Int
    /// Earliest piece with a difference or an error.
    private var stopPiece = Int.max
    private(set) var position: UInt64?
    private(set) var error: (any Error)?

    init(pieces: Int) { self.pieces = pieces }

    func next() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard nextPiece < pieces, nextPiece < stopPiece else { return nil }
        defer { nextPiece += 1 }
        return nextPiece
    }

    func found(piece: Int, position: UInt64) {
        lock.lock(); defer { lock.unlock() }
        guard piece < stopPiece else { return }
        stopPiece = piece
        self.position = position
        error = nil
    }

    func failed(piece: Int, _ error: any Error) {
        lock.lock(); defer { lock.unlock() }
        guard piece < stopPiece else { return }
        stopPiece = piece
        self.error = error
        position = nil
    }
}
