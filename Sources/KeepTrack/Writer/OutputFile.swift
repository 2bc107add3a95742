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

/// A destination written atomically. Where the file system supports it (Linux `O_TMPFILE`) the bytes go
/// to an anonymous file in the destination's folder that has no name until `commit` links it in, so
/// nothing is left behind even by `kill -9`; elsewhere to a hidden `.NAME.keeptrack-XXXXXX` beside the
/// destination, renamed when complete. On any error the temporary is removed and the destination left
/// untouched; the CLI also removes named temporaries on SIGINT/SIGTERM/SIGHUP (`OutputSignals`).
public final class OutputFile {
    public let destination: String
    /// A path that reads the file being written: `/proc/self/fd/N` for an anonymous file.
    public let temporaryPath: String
    let descriptor: Int32
    /// Bytes written so far, those still in the gather buffer included.
    public private(set) var position: UInt64 = 0
    /// Small copies (a chunk of a few KB: an edit that drops a track breaks the source into one run
    /// per chunk) are gathered here and written in one `write` instead of one `copy_file_range` each.
    private var gather: UnsafeMutableRawBufferPointer?
    private var gathered = 0
    /// Where the last writeback hint ended (`startWriteback` is asked once per `writebackPiece`).
    private var hinted: UInt64 = 0
    /// The last data extent found in a source (`SEEK_DATA`/`SEEK_HOLE`), so a run inside it needs no lookup.
    private var knownExtent: (source: ObjectIdentifier, start: UInt64, end: UInt64)?
    /// True when the file has no name until it is committed.
    public let isAnonymous: Bool
    private var finished = false
    private let overwrite: Bool
    private var registration = -1
    private let folder: String

    /// Opens a temporary file in `destination`'s folder.
    /// - Parameters:
    ///   - overwrite: replace an existing destination; otherwise an existing one is refused.
    ///   - inputs: files that must not be the destination (refused even with `overwrite`).
    public init(destination: String, overwrite: Bool, inputs: [String] = []) throws {
        self.destination = destination
        self.overwrite = overwrite
        var existing = stat()
        let exists = lstat(destination, &existing) == 0
        // The destination itself or, through a symbolic link, the file it names.
        var target = stat()
        let targetExists = stat(destination, &target) == 0
        for input in inputs {
            var info = stat()
            guard stat(input, &info) == 0 else { continue }
            let sameAsLink = exists && info.st_dev == existing.st_dev && info.st_ino == existing.st_ino
            let sameAsTarget = targetExists && info.st_dev == target.st_dev && info.st_ino == target.st_ino
            if sameAsLink || sameAsTarget {
                throw KeepTrackError.usage("the output \(destination) is the input file; write to another path")
            }
        }
        if exists && !overwrite { throw KeepTrackError.outputExists(destination) }
        if exists, (existing.st_mode & S_IFMT) == S_IFDIR {
            throw KeepTrackError.cannotCreate("\(destination) is a folder")
        }
        let url = URL(fileURLWithPath: destination)
        folder = url.deletingLastPathComponent().path
        let directory = folder.isEmpty ? "." : folder
        #if os(Linux)
        // The kernel applies the umask to the mode, as for any new file.
        let anonymous = open(directory, Self.temporaryFileFlag | O_RDWR | O_CLOEXEC, 0o666)
        #else
        let anonymous: Int32 = -1
        #endif
        if anonymous >= 0 {
            descriptor = anonymous
            isAnonymous = true
            temporaryPath = "/proc/self/fd/\(anonymous)"
            return
        }
        // No O_TMPFILE here (EOPNOTSUPP on some file systems, EISDIR/EINVAL on old kernels): a named temporary.
        var template = Array((folder + "/." + url.lastPathComponent + ".keeptrack-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw KeepTrackError.cannotCreate("cannot create a file in \(directory): \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        isAnonymous = false
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        fchmod(fd, 0o666 & ~Self.umaskValue)
        registration = TemporaryFileRegistry.shared.register(temporaryPath)
    }

    /// Writes `destination` through `body`: committed when `body` returns, discarded when it throws.
    @discardableResult
    public static func write<Result>(to destination: String, overwrite: Bool, inputs: [String] = [],
                                     _ body: (OutputFile) throws -> Result) throws -> Result {
        let output = try OutputFile(destination: destination, overwrite: overwrite, inputs: inputs)
        do {
            let result = try body(output)
            try output.commit()
            return result
        } catch {
            output.discard()
            throw error
        }
    }

    #if os(Linux)
    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Swift's Glibc module does not export.
    static let temporaryFileFlag: Int32 = 0o20000000 | O_DIRECTORY
    #endif

    /// The process umask, read without changing it (`umask(2)` can only be read by setting it, which
    /// races other threads creating files); only the named-temporary fallback needs it.
    static let umaskValue: mode_t = {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
           let value = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8) {
            return value
        }
        return 0o022
    }()

    deinit {
        if !finished { discard() }
        gather?.deallocate()
    }

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
                throw Self.writeError(errno, destination)
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
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    public func write(_ buffer: UnsafeRawBufferPointer) throws {
        try flushGathered()
        try writeFully(buffer)
        position += UInt64(buffer.count)
        hintWriteback()
    }

    /// Copies `length` bytes at `offset` of `source`; uses copy_file_range between files (no user-space copy).
    /// Runs up to `gatherLimit` long are read into a buffer that goes out with the next write, copy of a
    /// longer run, `finishWriting()` or `commit()`: read the file back only after `finishWriting()`.
    public func copy(from source: ByteSource, offset: UInt64, length: UInt64, buffer: inout [UInt8]) throws {
        var remaining = length
        var sourceOffset = offset
        if source is ZeroByteSource {
            // Leave a hole; commit() extends the file to its full length.
            try flushGathered()
            guard lseek(descriptor, off_t(length), SEEK_CUR) >= 0 else { throw Self.writeError(errno, destination) }
            position += length
            return
        }
        if let file = source as? FileByteSource {
            // Holes of a sparse input stay holes: only the data extents are copied.
            while remaining > 0 {
                let (hole, data) = dataExtent(of: file, at: sourceOffset, limit: remaining)
                if hole > 0 {
                    try flushGathered()
                    guard lseek(descriptor, off_t(hole), SEEK_CUR) >= 0 else { throw Self.writeError(errno, destination) }
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
                throw Self.writeError(errno, destination)
            } else {
                fastPathWorks = false // EXDEV, EINVAL, ENOSYS: fall back to read/write
            }
        }
        #endif
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

    static func writeError(_ code: Int32, _ destination: String) -> KeepTrackError {
        if code == ENOSPC || code == EDQUOT { return .io("\(destination): no space left on the device") }
        if code == EFBIG { return .io("\(destination): file too large for this file system or limit") }
        return .io("\(destination): \(String(cString: strerror(code)))")
    }

    /// Extends the file over a trailing hole so it has its full length (before reading it back).
    public func finishWriting() throws {
        try flushGathered()
        var info = stat()
        if fstat(descriptor, &info) == 0, UInt64(info.st_size) < position, ftruncate(descriptor, off_t(position)) != 0 {
            throw Self.writeError(errno, destination)
        }
    }

    /// fsyncs and gives the file its name: `destination`, never replacing an existing one unless
    /// `overwrite` (a file that appeared meanwhile is refused too), then makes the name durable.
    public func commit() throws {
        try finishWriting()
        guard fsync(descriptor) == 0 else { throw Self.writeError(errno, destination) }
        if isAnonymous {
            try linkAnonymous()
        } else {
            close(descriptor)
            try moveNamed()
        }
        finished = true
        TemporaryFileRegistry.shared.unregister(registration)
        let folderFD = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY)
        if folderFD >= 0 { fsync(folderFD); close(folderFD) }
    }

    private func linkAnonymous() throws {
        #if os(Linux)
        let atFDCWD: Int32 = -100, atSymlinkFollow: Int32 = 0x400
        defer { close(descriptor) }
        if !overwrite {
            // linkat refuses an existing name: the no-clobber check and the commit are one step.
            guard linkat(atFDCWD, temporaryPath, atFDCWD, destination, atSymlinkFollow) == 0 else {
                let code = errno
                finished = true
                if code == EEXIST { throw KeepTrackError.outputExists(destination) }
                throw KeepTrackError.cannotCreate("cannot create \(destination): \(String(cString: strerror(code)))")
            }
            return
        }
        // Replacing: give the file a hidden name first, then rename it over the destination (atomic).
        let url = URL(fileURLWithPath: destination)
        for _ in 0..<16 {
            let name = folder + "/." + url.lastPathComponent + ".keeptrack-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
            let slot = TemporaryFileRegistry.shared.register(name)
            if linkat(atFDCWD, temporaryPath, atFDCWD, name, atSymlinkFollow) == 0 {
                defer { TemporaryFileRegistry.shared.unregister(slot) }
                guard rename(name, destination) == 0 else {
                    let code = errno
                    unlink(name)
                    finished = true
                    throw KeepTrackError.cannotCreate("cannot move the finished file to \(destination): \(String(cString: code == 0 ? strerror(EIO) : strerror(code)))")
                }
                return
            }
            let code = errno
            TemporaryFileRegistry.shared.unregister(slot)
            if code != EEXIST {
                finished = true
                throw KeepTrackError.cannotCreate("cannot create a file in \(folder.isEmpty ? "." : folder): \(String(cString: strerror(code)))")
            }
        }
        finished = true
        throw KeepTrackError.cannotCreate("cannot find a free temporary name beside \(destination)")
        #endif
    }

    private func moveNamed() throws {
        if overwrite {
            guard rename(temporaryPath, destination) == 0 else {
                let code = errno
                discard(closing: false)
                throw KeepTrackError.cannotCreate("cannot move the finished file to \(destination): \(String(cString: strerror(code)))")
            }
        } else {
            // link() refuses an existing name, so a file that appeared meanwhile is never replaced.
            guard link(temporaryPath, destination) == 0 else {
                let code = errno
                discard(closing: false)
                if code == EEXIST { throw KeepTrackError.outputExists(destination) }
                throw KeepTrackError.cannotCreate("cannot create \(destination): \(String(cString: strerror(code)))")
            }
            unlink(temporaryPath)
        }
    }

    /// Removes the temporary file; the destination is untouched.
    public func discard(closing: Bool = true) {
        guard !finished else { return }
        finished = true
        if closing { close(descriptor) }
        if !isAnonymous { unlink(temporaryPath) }
        TemporaryFileRegistry.shared.unregister(registration)
    }
}

/// Opt-in for programs (the keeptrack executables do it first thing): on SIGINT, SIGTERM or SIGHUP
/// remove the named temporaries of unfinished outputs before dying, and let a write past the
/// file-size limit fail with EFBIG (exit 74) instead of killing the process with SIGXFSZ. A library
/// user keeps their own signal handling; anonymous temporaries need none.
public enum OutputSignals {
    public static func installCleanupHandlers() { TemporaryFileRegistry.shared.installHandlers() }
}

/// Temporary outputs to delete if the process is interrupted. The signal handler only calls
/// async-signal-safe `unlink` on C strings prepared in advance.
final class TemporaryFileRegistry: @unchecked Sendable {
    static let shared = TemporaryFileRegistry()
    static let capacity = 64
    static let pathLength = 4096
    private let lock = NSLock()
    nonisolated(unsafe) static var slots: UnsafeMutablePointer<CChar> = {
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity * pathLength)
        pointer.initialize(repeating: 0, count: capacity * pathLength)
        return pointer
    }()
    private var used = Set<Int>()
    private var installed = false

    func register(_ path: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = (0..<Self.capacity).first(where: { !used.contains($0) }) else { return -1 }
        let bytes = Array(path.utf8CString.prefix(Self.pathLength - 1)) + [0]
        let base = Self.slots + slot * Self.pathLength
        for (index, byte) in bytes.enumerated() { base[index] = byte }
        used.insert(slot)
        return slot
    }

    func unregister(_ slot: Int) {
        guard slot >= 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        (Self.slots + slot * Self.pathLength).pointee = 0
        used.remove(slot)
    }

    func installHandlers() {
        lock.lock()
        defer { lock.unlock() }
        guard !installed else { return }
        installed = true
        // Past RLIMIT_FSIZE a write must fail with EFBIG (reported as exit 74), not kill the process.
        signal(SIGXFSZ, SIG_IGN)
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { number in
                for slot in 0..<TemporaryFileRegistry.capacity {
                    let base = TemporaryFileRegistry.slots + slot * TemporaryFileRegistry.pathLength
                    if base.pointee != 0 { unlink(base) }
                }
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }
}
