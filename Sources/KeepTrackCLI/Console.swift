import Foundation

/// Where commands write. Tests capture it; the executable writes to stdout and stderr.
public final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private let writeOut: (String) -> Void
    private let writeError: (String) -> Void
    /// True when stderr is a terminal (progress bars draw only then).
    public let isTerminal: Bool

    public init(out: @escaping (String) -> Void, error: @escaping (String) -> Void, isTerminal: Bool = false) {
        writeOut = out
        writeError = error
        self.isTerminal = isTerminal
    }

    public static func standard() -> Console {
        Console(out: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
                error: { text in FileHandle.standardError.write(Data(text.utf8)) },
                isTerminal: isatty(2) == 1)
    }

    /// A console that collects what is written to it in memory (tests, the demo).
    public static func capturing() -> Capture {
        let box = CaptureBox()
        return Capture(console: Console(out: { box.append(out: $0) }, error: { box.append(error: $0) }), box: box)
    }

    /// A capturing console and what it has collected so far.
    public struct Capture: Sendable {
        public let console: Console
        fileprivate let box: CaptureBox
        public var output: Output { box.read() }
    }

    /// What a capturing console collected: standard output and standard error.
    public struct Output: Equatable, Sendable {
        public var out: String
        public var error: String
    }

    public func print(_ text: String = "") { lock.withLock { writeOut(text + "\n") } }
    public func write(_ text: String) { lock.withLock { writeOut(text) } }
    public func error(_ text: String) { lock.withLock { writeError("keeptrack: " + text + "\n") } }
    public func note(_ text: String) { lock.withLock { writeError(text + "\n") } }
    public func progress(_ text: String) { lock.withLock { writeError(text) } }
}

final class CaptureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var out = ""
    private var error = ""
    func append(out text: String) { lock.withLock { out += text } }
    func append(error text: String) { lock.withLock { error += text } }
    func read() -> Console.Output { lock.withLock { Console.Output(out: out, error: error) } }
}
