#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A destination written atomically: the bytes go to a temporary in the destination's folder
/// (`AtomicFile`: anonymous `O_TMPFILE` where the file system has it, else a hidden named file)
/// through a fast appender (`FileAppender`: copy_file_range, holes kept), and `commit` gives the
/// finished file its name in one step. On any error the temporary is removed and the destination left
/// untouched. Write through `OutputFile.write(to:) { … }`, which commits or discards for you. Nothing
/// here installs a signal handler; programs opt in with `OutputSignals.installCleanupHandlers()`.
public final class OutputFile {
    private let file: AtomicFile
    private let appender: FileAppender

    public var destination: String { file.destination }
    /// A path that reads the file being written: `/proc/self/fd/N` for an anonymous file.
    public var temporaryPath: String { file.temporaryPath }
    /// True when the file has no name until it is committed (nothing is left behind even by `kill -9`).
    public var isAnonymous: Bool { file.isAnonymous }
    /// Bytes written so far.
    public var position: UInt64 { appender.position }

    /// Opens a temporary file in `destination`'s folder.
    /// - Parameters:
    ///   - overwrite: replace an existing destination (atomically); otherwise an existing one is
    ///     refused (`KeepTrackError.outputExists`), also one that appears before the commit.
    ///   - inputs: files that must not be the destination (refused even with `overwrite`).
    public convenience init(destination: String, overwrite: Bool, inputs: [String] = []) throws {
        try self.init(destination: destination, overwrite: overwrite, inputs: inputs, kind: .anonymous)
    }

    init(destination: String, overwrite: Bool, inputs: [String], kind: AtomicFile.Kind) throws {
        file = try AtomicFile(destination: destination, overwrite: overwrite, inputs: inputs, kind: kind)
        appender = FileAppender(descriptor: file.descriptor, destination: destination)
    }

    /// Writes `destination` through `body`: committed when `body` returns, discarded when it throws.
    /// Every output of the library and the tools is written this way.
    @discardableResult
    public static func write<Result>(to destination: String, overwrite: Bool, inputs: [String] = [],
                                     _ body: (OutputFile) throws -> Result) throws -> Result {
        try write(OutputFile(destination: destination, overwrite: overwrite, inputs: inputs), body)
    }

    /// Runs `body`, then commits `output`; discards it when either throws.
    static func write<Result>(_ output: OutputFile, _ body: (OutputFile) throws -> Result) throws -> Result {
        do {
            let result = try body(output)
            try output.commit()
            return result
        } catch {
            output.discard()
            throw error
        }
    }

    /// Appends bytes.
    public func write(_ bytes: [UInt8]) throws { try appender.write(bytes) }

    public func write(_ buffer: UnsafeRawBufferPointer) throws { try appender.write(buffer) }

    /// Copies `length` bytes at `offset` of `source` (copy_file_range between files, holes kept).
    /// Short runs are gathered and go out with a later write: read the file back only after `finishWriting()`.
    public func copy(from source: ByteSource, offset: UInt64, length: UInt64, buffer: inout [UInt8]) throws {
        try appender.copy(from: source, offset: offset, length: length, buffer: &buffer)
    }

    /// Writes out gathered bytes and extends the file over a trailing hole, so it has its full length
    /// (before reading it back).
    public func finishWriting() throws { try appender.finishWriting() }

    /// fsyncs and gives the file its name (see `init`), then makes the name durable.
    public func commit() throws {
        try appender.finishWriting()
        try file.commit()
    }

    /// Removes the temporary file; the destination is untouched. Does nothing after `commit`.
    public func discard() { file.discard() }

    /// Runs up to this long are gathered rather than copied with copy_file_range.
    static var gatherLimit: Int { FileAppender.gatherLimit }

    static func writeError(_ code: Int32, _ destination: String) -> KeepTrackError {
        if code == ENOSPC || code == EDQUOT { return .io("\(destination): no space left on the device") }
        if code == EFBIG { return .io("\(destination): file too large for this file system or limit") }
        return .io("\(destination): \(String(cString: strerror(code)))")
    }
}
