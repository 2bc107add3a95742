#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Opt-in for programs (the keeptrack executables do it first thing): on SIGINT, SIGTERM or SIGHUP
/// remove the named temporaries of unfinished outputs before dying, and let a write past the
/// file-size limit fail with EFBIG (exit 74) instead of killing the process with SIGXFSZ. A library
/// user keeps their own signal handling: nothing in the library installs a handler. Anonymous
/// (`O_TMPFILE`) temporaries need none; only the named fallback is left behind without it.
public enum OutputSignals {
    public static func installCleanupHandlers() { TemporaryFileRegistry.shared.installHandlers() }
}

/// Named temporary files to delete if the process is interrupted (only once `OutputSignals` installed
/// the handlers). The signal handler only calls async-signal-safe `unlink` on C strings prepared in advance.
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

    /// The slot holding `path` (for `unregister`), or -1 when all are taken (the file is then not
    /// removed on a signal, as without the handlers).
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

    /// The paths registered now (for tests).
    var registeredPaths: [String] {
        lock.lock()
        defer { lock.unlock() }
        return used.sorted().map { String(cString: Self.slots + $0 * Self.pathLength) }
    }

    func installHandlers() {
        lock.lock()
        defer { lock.unlock() }
        guard !installed else { return }
        installed = true
        // `slots` is a lazy global: made here, before any handler exists. Made by the first `register` instead, a signal
        // landing during that one-time initialisation ran the handler into the same initialisation on the same thread,
        // which waits for itself forever (a remux spun for 1 h 45 min in CrashSafetyTests, 2026-12-04, gdb: once_slow
        // in the handler under once_slow in register).
        _ = Self.slots
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
