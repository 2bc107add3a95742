#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

#if canImport(Glibc)
private let systemWrite = Glibc.write
#else
private let systemWrite = Darwin.write
#endif

/// The fast-copy half of `OutputFile`: appends bytes and ranges of other files to a descriptor.
/// Ranges of a file go through `copy_file_range` on Linux (no user-space copy), holes of a sparse
/// input stay holes, small runs are gathered into one `write`, and writeback starts every
/// `writebackPiece` so the final fsync waits only for the tail.
final class FileAppender {
    let descriptor: Int32
    /// For messages.
    let destination: String
    /// Bytes appended so far, those still in the gather buffer included.
    private(set) var position: UInt64 = 0
    /// Small copies (a chunk of a few KB: an edit that drops a track breaks the source into one run
    /// per chunk) are gathered here and written in one `write` instead of one `copy_file_range` each.
    private var gather: UnsafeMutableRawBufferPointer?
    private var gathered = 0
    /// Where the last writeback hint ended (`startWriteback` is asked once per `writebackPiece`).
    private var hinted: UInt64 = 0
    /// The last data extent found in a source (`SEEK_DATA`/`SEEK_HOLE`), so a run inside it needs no lookup.
    private var knownExtent: (source: ObjectIdentifier, start: UInt64, end: UInt64)?

    init(descriptor: Int32, destination: String) {
        self.descriptor = descriptor
        self.destination = destination
    }

    deinit { gather?.deallocate() }

    /// Copies at most this long go through the gather buffer.
    static let gatherLimit = 256 << 10
    static let gatherSize = 4 << 20

    /// Writes out the gathered bytes (they are already counted in `position`).
    private func flushGathered() throws {
        guard gathered > 0, let gather else { return }
        try writeFully(UnsafeRawBufferPointer(rebasing: gather[0..<gathered]))
        gathered = 0
        hintWriteback()
    }

    private func writeFully(_ buffer: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < buffer.count {
            let wrote = systemWrite(descriptor, buffer.baseAddress! + done, buffer.count - done)
            if wrote < 0 {
                if errno == EINTR { continue }
                throw OutputFile.writeError(errno, destination)
            }
            done += wrote
        }
    }

    /// Reads a small run of `file` into the gather buffer (written out when full).
    private func gatherCopy(from file: FileByteSource, offset: UInt64, length: Int) throws {
        let buffer = gather ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.gatherSize, alignment: 64)
        gather = buffer
        if gathered + length > buffer.count { try flushGathered() }
        try file.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[gathered..<gathered + length]))
        gathered += length
        position += UInt64(length)
    }

    /// Hints the kernel to write back what was written since the last hint, once a piece is complete.
    private func hintWriteback() {
        let written = position - UInt64(gathered)
        guard written - hinted >= UInt64(Self.writebackPiece) else { return }
        startWriteback(from: hinted, count: written - hinted)
        hinted = written
    }

    /// The data extent of `file` holding `offset`, or (offset, offset) when `offset` is in a hole:
    /// looked up once per extent, not once per copied run.
    private func dataExtent(of file: FileByteSource, at offset: UInt64, limit: UInt64) -> (hole: UInt64, data: UInt64) {
        let id = ObjectIdentifier(file)
        if let known = knownExtent, known.source == id, offset >= known.start, offset < known.end {
            return (0, min(limit, known.end - offset))
        }
        let (hole, data) = Self.extent(of: file.fileDescriptor, at: offset, limit: .max)
        if data > 0 { knownExtent = (id, offset + hole, offset + hole &+ data) }
        return (min(hole, limit), min(data, limit - min(hole, limit)))
    }

    /// Appends bytes.
    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    func write(_ buffer: UnsafeRawBufferPointer) throws {
        try flushGathered()
        try writeFully(buffer)
        position += UInt64(buffer.count)
        hintWriteback()
    }

    /// Copies `length` bytes at `offset` of `source`; uses copy_file_range between files (no user-space copy).
    /// Runs up to `gatherLimit` long are read into a buffer that goes out with the next write, copy of a
    /// longer run, `finishWriting()` or `commit()`: read the file back only after `finishWriting()`.
    func copy(from source: ByteSource, offset: UInt64, length: UInt64, buffer: inout [UInt8]) throws {
        if let spliced = source as? SplicedByteSource {
            // Each range straight from the source it is a range of (copy_file_range where that is a file).
            for piece in try spliced.pieces(at: offset, length: length) {
                try copy(from: spliced.base, offset: piece.offset, length: piece.length, buffer: &buffer)
            }
            return
        }
        if let joined = source as? ConcatenatedByteSource {
            // Each range from the file it is in (join, segments).
            for piece in try joined.pieces(at: offset, length: length) {
                try copy(from: piece.source, offset: piece.offset, length: piece.length, buffer: &buffer)
            }
            return
        }
        var remaining = length
        var sourceOffset = offset
        if source is ZeroByteSource {
            // Leave a hole; commit() extends the file to its full length.
            try flushGathered()
            guard lseek(descriptor, off_t(length), SEEK_CUR) >= 0 else { throw OutputFile.writeError(errno, destination) }
            position += length
            return
        }
        if let file = source as? FileByteSource {
            // Holes of a sparse input stay holes: only the data extents are copied.
            while remaining > 0 {
                let (hole, data) = dataExtent(of: file, at: sourceOffset, limit: remaining)
                if hole > 0 {
                    try flushGathered()
                    guard lseek(descriptor, off_t(hole), SEEK_CUR) >= 0 else { throw OutputFile.writeError(errno, destination) }
                    position += hole
                    sourceOffset += hole
                    remaining -= hole
                }
                if data > 0 && data <= UInt64(Self.gatherLimit) {
                    try gatherCopy(from: file, offset: sourceOffset, length: Int(data))
                    sourceOffset += data
                    remaining -= data
                } else if data > 0 {
                    try flushGathered()
                    try copyData(from: file, offset: sourceOffset, length: data, buffer: &buffer)
                    sourceOffset += data
                    remaining -= data
                }
            }
            return
        }
        while remaining > 0 {
            let count = Int(min(remaining, 1 << 24))
            try write(source.read(at: sourceOffset, count: count))
            remaining -= UInt64(count)
            sourceOffset += UInt64(count)
        }
    }

    /// Copies a range holding data: copy_file_range between files (no user-space copy), else read/write.
    func copyData(from file: FileByteSource, offset: UInt64, length: UInt64, buffer: inout [UInt8]) throws {
        var remaining = length
        var sourceOffset = offset
        #if os(Linux)
        var fastPathWorks = Self.copyFileRange != nil
        while remaining > 0 && fastPathWorks, let copyFileRange = Self.copyFileRange {
            var inOffset = off_t(sourceOffset)
            let copied = copyFileRange(file.fileDescriptor, &inOffset, descriptor, nil, Int(min(remaining, UInt64(Self.writebackPiece))), 0)
            if copied > 0 {
                remaining -= UInt64(copied)
                sourceOffset += UInt64(copied)
                position += UInt64(copied)
                hintWriteback()
            } else if copied == 0 {
                throw KeepTrackError.io("\(file.path): unexpected end of file at \(sourceOffset)")
            } else if errno == EINTR {
                continue
            } else if errno == ENOSPC || errno == EDQUOT || errno == EFBIG || errno == EIO {
                throw OutputFile.writeError(errno, destination)
            } else {
                fastPathWorks = false // EXDEV, EINVAL, ENOSYS: fall back to read/write
            }
        }
        #endif
        if remaining > 0 && buffer.isEmpty { buffer = [UInt8](repeating: 0, count: 1 << 22) }
        while remaining > 0 {
            let count = Int(min(remaining, UInt64(buffer.count)))
            try buffer.withUnsafeMutableBytes { raw in
                try file.read(at: sourceOffset, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
                try write(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
            }
            remaining -= UInt64(count)
            sourceOffset += UInt64(count)
        }
    }

    /// From `offset`, the length of the hole (zeros not stored) and then of the data that follows,
    /// within `limit` bytes. Without SEEK_DATA/SEEK_HOLE support everything is data.
    static func extent(of descriptor: Int32, at offset: UInt64, limit: UInt64) -> (hole: UInt64, data: UInt64) {
        #if os(Linux)
        let seekData: Int32 = 3, seekHole: Int32 = 4
        let dataStart = lseek(descriptor, off_t(offset), seekData)
        if dataStart < 0 { return errno == ENXIO ? (limit, 0) : (0, limit) } // ENXIO: only a hole up to the end
        let hole = min(UInt64(dataStart) - offset, limit)
        if hole == limit { return (hole, 0) }
        let dataEnd = lseek(descriptor, dataStart, seekHole)
        let data = dataEnd < 0 ? limit - hole : min(UInt64(dataEnd) - UInt64(dataStart), limit - hole)
        return (hole, data)
        #else
        return (0, limit)
        #endif
    }

    /// Bytes copied between writeback hints: small enough that the disk starts writing while the
    /// copy goes on, so the final fsync waits only for the last piece instead of the whole file.
    static let writebackPiece = 64 << 20

    /// Asks the kernel to start writing a range to disk now, without waiting (a hint; errors surface at fsync).
    func startWriteback(from offset: UInt64, count: UInt64) {
        #if os(Linux)
        let syncFileRangeWrite: UInt32 = 2
        _ = Self.syncFileRange?(descriptor, off_t(offset), off_t(count), syncFileRangeWrite)
        #endif
    }

    #if os(Linux)
    typealias SyncFileRange = @convention(c) (Int32, off_t, off_t, UInt32) -> Int32
    static let syncFileRange: SyncFileRange? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: SyncFileRange.self)
    }()

    typealias CopyFileRange = @convention(c) (Int32, UnsafeMutablePointer<off_t>?, Int32, UnsafeMutablePointer<off_t>?, Int, UInt32) -> Int
    /// glibc's copy_file_range, looked up at run time (Swift's Glibc module does not export it).
    static let copyFileRange: CopyFileRange? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "copy_file_range") else { return nil }
        return unsafeBitCast(symbol, to: CopyFileRange.self)
    }()
    #endif

    /// Extends the file over a trailing hole so it has its full length (before reading it back).
    func finishWriting() throws {
        try flushGathered()
        var info = stat()
        if fstat(descriptor, &info) == 0, UInt64(info.st_size) < position, ftruncate(descriptor, off_t(position)) != 0 {
            throw OutputFile.writeError(errno, destination)
        }
    }
}
