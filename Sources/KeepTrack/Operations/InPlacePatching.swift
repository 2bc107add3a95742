#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes overwritten inside an existing file (`--in-place`): sizes and layout never change.
struct InPlacePatch: Sendable, Equatable {
    let offset: UInt64
    let old: [UInt8]
    let new: [UInt8]
    /// What the bytes are, for the message when they changed since the file was read ("tkhd flags").
    let what: String
}

enum InPlacePatching {
    /// Checks every patch site against the bytes the plan was made from (a file changed since it was
    /// read is left alone entirely), writes them in order with pwrite, then fsyncs.
    /// `pause` (milliseconds after each patch but the last) lets a crash-safety test kill in between.
    static func write(_ patches: [InPlacePatch], to path: String, pauseBetweenPatches pause: UInt32 = 0) throws {
        guard !patches.isEmpty else { return }
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw KeepTrackError.cannotCreate("\(path): cannot open for writing: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        for patch in patches {
            var current = [UInt8](repeating: 0, count: patch.old.count)
            let count = current.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(patch.offset)) }
            guard count == patch.old.count, current == patch.old else {
                throw KeepTrackError.io("\(path): \(patch.what) at byte \(patch.offset) changed since the file was read; nothing written")
            }
        }
        for (index, patch) in patches.enumerated() {
            let count = patch.new.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(patch.offset)) }
            guard count == patch.new.count else { throw KeepTrackError.io("\(path): pwrite at byte \(patch.offset): \(String(cString: strerror(errno)))") }
            if pause > 0 && index < patches.count - 1 { usleep(pause * 1000) }
        }
        guard fsync(descriptor) == 0 else { throw KeepTrackError.io("\(path): fsync: \(String(cString: strerror(errno)))") }
    }
}
