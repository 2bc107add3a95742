#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A child program whose standard output and error come back on pipes, started with `posix_spawn`.
/// Foundation's `Process` took 30–45 ms here between its pipes and the child's `exec` (it prepares a close
/// for every possible descriptor); this takes under a millisecond, which counts when FFmpeg 9's whole job on a
/// short clip is a few hundred. The child's other descriptors are closed, its signals set to their defaults.
public final class SpawnedProcess: @unchecked Sendable {
    public let pid: pid_t
    /// Read ends of the child's standard output and standard error (owned: closed on `deinit`).
    public let output: Int32, errors: Int32
    private let lock = NSLock()
    /// Held while one thread waits, so a second waiter gets the status the first recorded.
    private let waiting = NSLock()
    private var status: Int32?

    /// Starts `executable` with `arguments` (standard input /dev/null); `outputPipeBytes` asks Linux for a larger
    /// output pipe (`F_SETPIPE_SZ`) so big writes cross in few steps; `inheritable` keeps our pipe ends open across
    /// an exec of this process.
    public init(executable: String, arguments: [String], outputPipeBytes: Int32 = 0, inheritable: Bool = false) throws {
        func pipeEnds() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw KeepTrackError.io("cannot make a pipe to \(executable): \(String(cString: strerror(errno)))") }
            // Not inherited by anything else this process starts (the child gets them through dup2).
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            return (ends[0], ends[1])
        }
        let out = try pipeEnds()
        let err: (read: Int32, write: Int32)
        do { err = try pipeEnds() } catch { close(out.read); close(out.write); throw error }
        defer { close(out.write); close(err.write) }
        #if os(Linux)
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ, which Swift's Glibc module does not export
        if outputPipeBytes > 0 { _ = fcntl(out.write, setPipeSize, outputPipeBytes) }
        #endif

        var actions = Actions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out.write, 1)
        posix_spawn_file_actions_adddup2(&actions, err.write, 2)
        // Nothing of ours leaks into the child, CLOEXEC or not: one close_range in the child (glibc 2.34's
        // posix_spawn_file_actions_addclosefrom_np, a GNU extension Swift's Glibc module does not export).
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        var attributes = Attributes()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var everySignal = sigset_t(), none = sigset_t()
        sigfillset(&everySignal)
        sigemptyset(&none)
        // Our SIGINT/SIGTERM handlers (temporary file cleanup) and ignored SIGPIPE/SIGXFSZ are not the child's.
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = (argv + [nil]).withUnsafeBufferPointer { pointers in
            posix_spawn(&pid, executable, &actions, &attributes, UnsafeMutablePointer(mutating: pointers.baseAddress!), Self.environment)
        }
        guard spawned == 0 else {
            close(out.read)
            close(err.read)
            throw KeepTrackError.io("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        output = out.read
        errors = err.read
        // Kept across this process's own exec (keeptrack handing over to keeptrack-media, StereoPrestart).
        if inheritable { for end in [output, errors] { _ = fcntl(end, F_SETFD, 0) } }
    }

    /// A child this process started before an `exec` (its pid and pipe ends handed over in the environment):
    /// it stays this process's child across the exec, so it can be waited for and stopped as if started here.
    /// `endedWith`: the exit status of one already reaped (`wait` returns it; `terminate` leaves the pid alone).
    public init(adopting pid: pid_t, output: Int32, errors: Int32, endedWith status: Int32? = nil) {
        self.pid = pid
        self.output = output
        self.errors = errors
        self.status = status
        for end in [output, errors] { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    }

    // Darwin imports the spawn types as optional opaque pointers, glibc as structs: `Actions()` makes either.
    #if canImport(Darwin)
    private static var environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? { _NSGetEnviron().pointee }
    private typealias Actions = posix_spawn_file_actions_t?
    private typealias Attributes = posix_spawnattr_t?
    #else
    private static var environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? { environ }
    private typealias Actions = posix_spawn_file_actions_t
    private typealias Attributes = posix_spawnattr_t
    #endif
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<Actions>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    deinit {
        close(output)
        close(errors)
    }

    /// Asks the child to stop (SIGTERM) unless it has been waited for.
    public func terminate() {
        lock.withLock { if status == nil { _ = kill(pid, SIGTERM) } }
    }

    /// A `waitpid` status as a shell says it: the exit status, or 128 + the signal that ended the process.
    public static func exitStatus(raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }

    /// Waits for the child to end: its exit status, or 128 + the signal that ended it (as a shell says it).
    /// `lock` is not held while waiting, so `terminate` from another thread still reaches the child.
    @discardableResult
    public func wait() -> Int32 {
        waiting.lock()
        defer { waiting.unlock() }
        if let known = lock.withLock({ status }) { return known }
        var raw: Int32 = 0
        var result: Int32 = 128
        while true {
            if waitpid(pid, &raw, 0) == pid {
                result = Self.exitStatus(raw: raw)
                break
            }
            guard errno == EINTR else { break }
        }
        lock.withLock { status = result }
        return result
    }
}
