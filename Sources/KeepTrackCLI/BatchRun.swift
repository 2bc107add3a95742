import Foundation
import KeepTrack

/// The folder-run machinery shared by `lint`, `fix`, `strip-spatial` and (from `keeptrack-media`) `transcode`:
/// options, parallel run, progress, per-file lines, summary and `--report`.
public enum BatchRun {
    public static let options: [OptionSpec] = [
        .flag(.recursive, short: "r", "Descend into sub-folders of folder arguments (default: only files directly inside)."),
        .value(.jobs, short: "j", "N", "Files processed at the same time (default: the number of cores).", range: 1...256),
        .value(.report, "FILE", "Write a JSON report: one row per file (path, findings, action, result, error)."),
    ]

    public static let discussion = """
    Folders: files ending .mov .mp4 .m4v .m4a .qt .3gp are taken (hidden files skipped); one bad file never stops the
    others. A terminal shows a progress bar (files done, rate, time left); otherwise plain progress lines.
    """

    /// `--shard K/N`, for commands whose runs are long enough to spread over machines.
    public static let shardOption = OptionSpec.value(.shard, "K/N", "Take only the K-th of N shares of the files (1 <= K <= N), chosen by each file's path below the folder given, the same on every machine: N workers with K = 1...N cover the files once, with no coordinator.")

    /// One of `count` stable shares of a folder's files (`index` from 1).
    public struct Shard: Sendable, Equatable {
        public var index: Int
        public var count: Int

        public init(_ text: String) throws {
            let parts = text.split(separator: "/")
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index) else {
                throw KeepTrackCLIError.usage("--shard takes K/N with 1 <= K <= N, like 2/8; not '\(text)'")
            }
            self.index = index
            self.count = count
        }

        /// FNV-1a (64-bit) of the path below the folder given: the same share on every machine and every run.
        public func contains(_ file: BatchFile) -> Bool {
            let hash = file.relativePath.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
            return Int(hash % UInt64(count)) == index - 1
        }
    }

    /// Runs `body` over the files named by `paths` (those of `shard` only, when given); prints each outcome, a
    /// summary for several files, writes `--report`, and returns the worst exit status.
    public static func run(_ invocation: Invocation, console: Console, command: String, paths: [String], shard: Shard? = nil,
                           printOutcome: (BatchOutcome, Console) -> Void = printOutcome,
                           body: @escaping @Sendable (BatchFile) -> BatchOutcome) throws -> (outcomes: [BatchOutcome], code: Int32) {
        let found = Batch.collect(paths, recursive: invocation.flag(.recursive))
        guard !found.isEmpty else { throw KeepTrackError.missingInput("no movie files in \(paths.joined(separator: ", "))") }
        let files = shard.map { shard in found.filter(shard.contains) } ?? found
        if let shard, files.isEmpty { console.note("shard \(shard.index)/\(shard.count) holds none of the \(found.count) files") }
        let jobs = invocation.value(.jobs) ?? ProcessInfo.processInfo.activeProcessorCount
        let start = Date()
        let progress = files.count > 1 ? ProgressDisplay(console: console, total: files.count, start: start) : nil
        var report: (@Sendable (Int, Int) -> Void)?
        if let progress { report = { done, _ in progress.update(done: done) } }
        let outcomes = Batch.run(files, jobs: jobs, progress: report, body: body)
        progress?.finish()
        let seconds = Date().timeIntervalSince(start)
        for outcome in outcomes { printOutcome(outcome, console) }
        if files.count > 1 { console.note(summary(outcomes, seconds: seconds)) }
        if let reportPath = invocation.value(.report) {
            let text = Batch.report(outcomes, command: command, seconds: seconds).rendered() + "\n"
            try OutputFile.write(to: reportPath, overwrite: invocation.flag(.force)) { try $0.write(Array(text.utf8)) }
        }
        return (outcomes, Batch.worstExitCode(outcomes))
    }

    public static func printOutcome(_ outcome: BatchOutcome, _ console: Console) {
        if let error = outcome.error {
            console.error("\(outcome.path): \(outcome.failure?.commandLineDescription ?? error)")
        } else {
            console.print("\(outcome.path): \(outcome.result)")
        }
        for note in outcome.notes { console.note("\(outcome.path): note: \(note)") }
    }

    static func summary(_ outcomes: [BatchOutcome], seconds: Double) -> String {
        var counts: [String: Int] = [:]
        for outcome in outcomes { counts[outcome.error == nil ? outcome.action : "failed", default: 0] += 1 }
        let parts = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let rate = seconds > 0 ? Double(outcomes.count) / seconds : 0
        return "\(outcomes.count) files: \(parts) in \(String(format: "%.1f", seconds)) s (\(Int(rate)) files/s); exit \(Batch.worstExitCode(outcomes))"
    }
}

/// Progress on stderr: a redrawn bar on a terminal, a plain line every tenth otherwise.
public final class ProgressDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let console: Console
    private let total: Int
    private let start: Date
    /// What is counted ("files", "frames") and an optional phase shown first ("encoding").
    private let unit: String
    private let label: String?
    private var lastDraw = Date.distantPast
    private var lastTenth = 0

    public init(console: Console, total: Int, start: Date, unit: String = "files", label: String? = nil) {
        self.console = console
        self.total = total
        self.start = start
        self.unit = unit
        self.label = label
    }

    public func update(done: Int) {
        lock.withLock {
            let now = Date()
            if console.isTerminal {
                guard now.timeIntervalSince(lastDraw) >= 0.1 || done == total else { return }
                lastDraw = now
                console.progress("\r" + line(done: done, now: now, bar: true) + "\u{1B}[K")
            } else {
                let tenth = done * 10 / total
                guard tenth > lastTenth else { return }
                lastTenth = tenth
                console.note(line(done: done, now: now, bar: false))
            }
        }
    }

    public func finish() {
        if console.isTerminal { console.progress("\n") }
    }

    func line(done: Int, now: Date, bar: Bool) -> String {
        let elapsed = now.timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let left = rate > 0 ? Double(total - done) / rate : 0
        let time = String(format: "%d:%02d", Int(left) / 60, Int(left) % 60)
        let counts = "\(done)/\(total) \(unit), \(Int(rate.rounded())) \(unit)/s, \(time) left"
        let prefix = label.map { $0 + " " } ?? ""
        guard bar else { return prefix + "progress: " + counts }
        let width = 30
        let filled = total > 0 ? min(done, total) * width / total : width
        return prefix + "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " + counts
    }
}
