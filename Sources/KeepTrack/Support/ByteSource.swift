#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Random-access bytes: the file a movie is read from. Reading the structure never loads `mdat`,
/// so parsing a 4 GiB file costs what a 4 MiB one costs.
public protocol ByteSource: AnyObject, Sendable {
    var size: UInt64 { get }
    /// Exactly `count` bytes at `offset`; throws when they are not all there.
    func read(at offset: UInt64, count: Int) throws -> [UInt8]
}

/// Bytes held in memory (tests, fixtures built on the fly).
public final class MemoryByteSource: ByteSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: UInt64 { UInt64(bytes.count) }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw KeepTrackError.malformed(path: "", offset: offset, reason: "read of \(count) bytes past the end of the data (\(size) bytes)")
        }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}

/// A file read with `pread`, so concurrent readers need no shared cursor.
public final class FileByteSource: ByteSource {
    public let path: String
    public let size: UInt64
    let descriptor: Int32

    public init(path: String) throws {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw KeepTrackError.missingInput("\(path): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw KeepTrackError.missingInput("\(path): not a regular file")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw KeepTrackError.missingInput("\(path): \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        size = UInt64(info.st_size)
    }

    deinit { close(descriptor) }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw KeepTrackError.malformed(path: "", offset: offset, reason: "read of \(count) bytes past the end of the file (\(size) bytes)")
        }
        if count == 0 { return [] }
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let got = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if got < 0 {
                    if errno == EINTR { continue }
                    initialized = 0
                    throw KeepTrackError.io("\(path): read at \(offset): \(String(cString: strerror(errno)))")
                }
                if got == 0 {
                    initialized = 0
                    throw KeepTrackError.io("\(path): file shrank while reading at \(offset + UInt64(done))")
                }
                done += got
            }
            initialized = count
        }
    }

    /// Reads into a caller's buffer (the copy loop reuses one buffer instead of allocating per read).
    public func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws {
        var done = 0
        while done < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if got < 0 {
                if errno == EINTR { continue }
                throw KeepTrackError.io("\(path): read at \(offset): \(String(cString: strerror(errno)))")
            }
            if got == 0 { throw KeepTrackError.io("\(path): unexpected end of file at \(offset + UInt64(done))") }
            done += got
        }
    }

    var fileDescriptor: Int32 { descriptor }
}
