import Foundation

/// One input of a folder run: where it is and where it sits relative to the folder it was found in
/// (outputs mirror that tree under `--out-dir`).
public struct BatchFile: Sendable, Equatable {
    public let path: String
    public let relativePath: String

    public init(path: String, relativePath: String) {
        self.path = path
        self.relativePath = relativePath
    }

    /// Where this file's output goes under `folder`, mirroring the input tree.
    public func output(under folder: String) -> String {
        (folder.hasSuffix("/") ? folder : folder + "/") + relativePath
    }
}

/// What happened to one file of a run: a row of `--report`.
public struct BatchOutcome: Sendable {
    public var path: String
    public var findings: [LintFinding] = []
    /// What was done: `lint`, `fixed`, `patched`, `stripped`, `none` ...
    public var action: String
    /// One line for people: "2 changes", "nothing to fix", "clean".
    public var result: String
    public var error: String?
    /// The error itself when the operation threw (for a caller that words it for its own users).
    public var failure: KeepTrackError?
    public var exitCode: Int32
    /// What a written output leaves out of the source and why (`MovieWriter.notes`).
    public var notes: [String] = []

    public init(path: String, findings: [LintFinding] = [], action: String, result: String, error: String? = nil, exitCode: Int32) {
        self.path = path
        self.findings = findings
        self.action = action
        self.result = result
        self.error = error
        self.exitCode = exitCode
    }

    /// The outcome of a file whose operation threw.
    public init(path: String, action: String, failure: Error) {
        let error = failure as? KeepTrackError ?? .io("\(failure)")
        self.init(path: path, action: action, result: "failed", error: error.description, exitCode: error.exitCode)
        self.failure = error
    }

    public var json: JSONValue {
        .object([("path", .string(path)), ("findings", .array(findings.map(\.json))), ("action", .string(action)),
                 ("result", .string(result)), ("error", .optional(error)), ("exitCode", .int(Int64(exitCode))),
                 ("notes", .array(notes.map(JSONValue.string)))])
    }
}

public enum Batch {
    /// File name extensions taken from folders (given files are always taken).
    public static let movieExtensions: Set<String> = ["mov", "mp4", "m4v", "m4a", "qt", "3gp"]

    /// Expands folders into their movie files (sorted; hidden files such as `._IMG_0001.MOV` skipped).
    /// Without `recursive`, a folder contributes only the files directly inside it. Paths that do
    /// not exist stay in the list so that the run reports them.
    public static func collect(_ paths: [String], recursive: Bool) -> [BatchFile] {
        var files: [BatchFile] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                files.append(BatchFile(path: path, relativePath: (path as NSString).lastPathComponent))
                continue
            }
            let names: [String]
            if recursive {
                names = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String]) ?? []
            } else {
                names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            }
            let root = path.hasSuffix("/") ? path : path + "/"
            for name in names.sorted() {
                let components = name.split(separator: "/")
                guard let last = components.last, !components.contains(where: { $0.hasPrefix(".") }),
                      movieExtensions.contains((String(last) as NSString).pathExtension.lowercased()) else { continue }
                files.append(BatchFile(path: root + name, relativePath: name))
            }
        }
        return files
    }

    /// Runs `body` on every file with `jobs` threads; results come back in input order. One file's
    /// failure never stops the others: `body` turns errors into outcomes.
    public static func run(_ files: [BatchFile], jobs: Int, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil,
                           body: @escaping @Sendable (BatchFile) -> BatchOutcome) -> [BatchOutcome] {
        let state = BatchState(count: files.count)
        let workers = max(1, min(jobs, files.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = state.nextIndex() {
                let outcome = body(files[index])
                let done = state.store(outcome, at: index)
                progress?(done, files.count)
            }
        }
        return state.outcomes()
    }

    /// The worst exit status of a run (0 when every file was fine).
    public static func worstExitCode(_ outcomes: [BatchOutcome]) -> Int32 { outcomes.map(\.exitCode).max() ?? 0 }

    /// The `--report` document: a summary and one row per file.
    public static func report(_ outcomes: [BatchOutcome], command: String, seconds: Double) -> JSONValue {
        .object([("command", .string(command)), ("files", .int(Int64(outcomes.count))),
                 ("failed", .int(Int64(outcomes.filter { $0.error != nil }.count))),
                 ("exitCode", .int(Int64(worstExitCode(outcomes)))), ("seconds", .double((seconds * 1000).rounded() / 1000)),
                 ("rows", .array(outcomes.map(\.json)))])
    }
}

/// Work queue and results shared by the workers of `Batch.run`, guarded by one lock.
final class BatchState: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var done = 0
    private var results: [BatchOutcome?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func nextIndex() -> Int? {
        lock.withLock {
            guard next < results.count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func store(_ outcome: BatchOutcome, at index: Int) -> Int {
        lock.withLock {
            results[index] = outcome
            done += 1
            return done
        }
    }

    func outcomes() -> [BatchOutcome] { lock.withLock { results.compactMap { $0 } } }
}
