#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

#if canImport(Darwin)
private let systemLink = Darwin.link
#endif

/// The atomic-commit half of `OutputFile`: a temporary file in the destination's folder that becomes
/// the destination in one step or disappears. Where the file system supports it (Linux `O_TMPFILE`)
/// the temporary is anonymous (no name until `commit` links it in, so even `kill -9` leaves nothing —
/// except between the hidden link and the rename of a replacement, see `replace`);
/// elsewhere it is a hidden `.NAME.keeptrack-XXXXXX`, registered for the opt-in signal cleanup.
final class AtomicFile {
    let destination: String
    /// A path that reads the file being written: `/proc/self/fd/N` for an anonymous file.
    let temporaryPath: String
    let descriptor: Int32
    /// True when the file has no name until it is committed.
    let isAnonymous: Bool
    private(set) var finished = false
    private let overwrite: Bool
    private var registration = -1
    /// The destination's folder ("." for a bare name) and file name.
    private let folder: String
    private let name: String
    /// Runs between the hidden link of a replacement and its rename (tests kill the process there).
    var afterHiddenLink: (() -> Void)?
    /// A hidden link name of a replacement older than this (by its ctime, which the link sets) was left
    /// by a process killed in that moment; the next replacement of the same destination removes it.
    var abandonedLinkAge: TimeInterval = 60

    /// How the temporary is made: `anonymous` (O_TMPFILE, falling back to a named one where the file
    /// system refuses it) or `named` (only the fallback; lets tests cover it on any file system).
    enum Kind { case anonymous, named }

    init(destination: String, overwrite: Bool, inputs: [String], kind: Kind = .anonymous) throws {
        self.destination = destination
        self.overwrite = overwrite
        try Self.checkDestination(destination, overwrite: overwrite, inputs: inputs)
        let url = URL(fileURLWithPath: destination)
        let parent = url.deletingLastPathComponent().path
        folder = parent.isEmpty ? "." : parent
        name = url.lastPathComponent
        if kind == .anonymous, let anonymous = Self.openAnonymous(in: folder) {
            descriptor = anonymous
            isAnonymous = true
            temporaryPath = "/proc/self/fd/\(anonymous)"
            return
        }
        // No O_TMPFILE here (EOPNOTSUPP on some file systems, EISDIR/EINVAL on old kernels): a named temporary.
        var template = Array((folder + "/" + Self.hiddenPrefix(name) + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw KeepTrackError.cannotCreate("cannot create a file in \(folder): \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        isAnonymous = false
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // mkstemp makes 0600; a new file gets 0666 less the umask, like the anonymous one.
        fchmod(fd, Self.newFileMode)
        registration = TemporaryFileRegistry.shared.register(temporaryPath)
    }

    /// `.NAME.keeptrack-`: what every named temporary beside `NAME` starts with.
    static func hiddenPrefix(_ name: String) -> String { "." + name + ".keeptrack-" }

    /// `.NAME.keeptrack-link-`: the hidden name an anonymous replacement has between its link and its
    /// rename (mkstemp's six letters and digits never contain the dash).
    static func hiddenLinkPrefix(_ name: String) -> String { hiddenPrefix(name) + "link-" }

    /// Refuses a destination that is one of `inputs` (directly or through a link, even with
    /// `overwrite`), that exists without `overwrite`, or that is a folder.
    private static func checkDestination(_ destination: String, overwrite: Bool, inputs: [String]) throws {
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
    }

    /// An `O_TMPFILE` in `folder`, or nil where the system or file system has none.
    private static func openAnonymous(in folder: String) -> Int32? {
        #if os(Linux)
        // `O_TMPFILE` is `__O_TMPFILE | O_DIRECTORY`, which Swift's Glibc module does not export.
        // The kernel applies the umask to the mode, as for any new file.
        let fd = open(folder, 0o20000000 | O_DIRECTORY | O_RDWR | O_CLOEXEC, 0o666)
        return fd >= 0 ? fd : nil
        #else
        return nil
        #endif
    }

    /// 0666 less the process umask, worked out once. `umask(2)` can only be read by setting it, which
    /// races other threads creating files, so it is read from /proc (022 where there is none).
    static let newFileMode: mode_t = {
        var mask: mode_t = 0o022
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
           let value = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8) {
            mask = value
        }
        return 0o666 & ~mask
    }()

    deinit { discard() }

    /// fsyncs and gives the file its name: `destination`, never replacing an existing one unless
    /// `overwrite` (a file that appeared meanwhile is refused too), then makes the name durable.
    func commit() throws {
        guard !finished else { throw KeepTrackError.io("\(destination): the output was already committed or discarded") }
        guard fsync(descriptor) == 0 else { throw OutputFile.writeError(errno, destination) }
        var renamed = false
        defer {
            finished = true
            close(descriptor)
            if !isAnonymous && !renamed { unlink(temporaryPath) }
            TemporaryFileRegistry.shared.unregister(registration)
        }
        if overwrite {
            try replace()
            renamed = !isAnonymous
        } else {
            // link refuses an existing name: the no-clobber check and the commit are one step.
            try link(temporaryPath, to: destination)
        }
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY)
        if folderFD >= 0 { fsync(folderFD); close(folderFD) }
    }

    /// Links the finished file at `source` to `path` (which must not exist).
    private func link(_ source: String, to path: String) throws {
        #if os(Linux)
        // AT_FDCWD, AT_SYMLINK_FOLLOW: /proc/self/fd/N names the anonymous file itself.
        let linked = linkat(-100, source, -100, path, 0x400) == 0
        #else
        let linked = systemLink(source, path) == 0
        #endif
        guard linked else {
            let code = errno
            if code == EEXIST { throw KeepTrackError.outputExists(path) }
            throw KeepTrackError.cannotCreate("cannot create \(path): \(String(cString: strerror(code)))")
        }
    }

    /// Puts the finished file in place of `destination` in one step: a named temporary is renamed over
    /// it; an anonymous one, since linkat cannot replace a name, gets a hidden name first (registered
    /// for the signal cleanup for the moment it exists) which is then renamed.
    private func replace() throws {
        var named = temporaryPath
        var slot = -1
        defer { TemporaryFileRegistry.shared.unregister(slot) }
        if isAnonymous {
            var linked = false
            for _ in 0..<16 {
                named = folder + "/" + Self.hiddenLinkPrefix(name) + String(UInt32.random(in: 0...UInt32.max), radix: 36)
                slot = TemporaryFileRegistry.shared.register(named)
                do {
                    try link(temporaryPath, to: named)
                    linked = true
                    break
                } catch KeepTrackError.outputExists {
                    TemporaryFileRegistry.shared.unregister(slot)
                    slot = -1
                }
            }
            guard linked else { throw KeepTrackError.cannotCreate("cannot find a free temporary name beside \(destination)") }
            afterHiddenLink?()
        }
        guard rename(named, destination) == 0 else {
            let code = errno
            if isAnonymous { unlink(named) }
            throw KeepTrackError.cannotCreate("cannot move the finished file to \(destination): \(String(cString: strerror(code)))")
        }
        removeAbandonedLinks()
    }

    /// Removes hidden link names of earlier replacements of this destination that a SIGKILL between
    /// link and rename left behind: only `hiddenLinkPrefix` names, only once `abandonedLinkAge` has
    /// passed since they were linked (a replacement in flight holds its name for microseconds).
    private func removeAbandonedLinks() {
        let prefix = Self.hiddenLinkPrefix(name)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let now = Date().timeIntervalSince1970
        for entry in names where entry.hasPrefix(prefix) {
            let path = folder + "/" + entry
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            #if canImport(Darwin)
            let changed = info.st_ctimespec
            #else
            let changed = info.st_ctim
            #endif
            let linkedAt = Double(changed.tv_sec) + Double(changed.tv_nsec) / 1e9
            if now - linkedAt >= abandonedLinkAge { unlink(path) }
        }
    }

    /// Removes the temporary file; the destination is untouched. Does nothing once finished.
    func discard() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        if !isAnonymous { unlink(temporaryPath) }
        TemporaryFileRegistry.shared.unregister(registration)
    }
}
