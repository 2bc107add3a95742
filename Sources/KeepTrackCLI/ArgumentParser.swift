/// A small table-driven argument parser: each command declares its options and positionals
/// once, and parsing, `--help` and error hints all come from that declaration.
public struct OptionSpec: Sendable {
    public let name: String
    public let short: Character?
    /// nil for a flag; the placeholder shown in help (`N`, `FILE`) for an option with a value.
    public let valueName: String?
    public let help: String

    public static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help)
    }

    public static func value(_ name: String, short: Character? = nil, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: valueName, help: help)
    }
}

public struct CommandSpec: Sendable {
    public let name: String
    public let summary: String
    /// Positional part of the usage line, e.g. `IN OUT` or `FILE...`.
    public let arguments: String
    public let minimumPositionals: Int
    public let maximumPositionals: Int?
    public let options: [OptionSpec]
    /// Longer help text after the option list.
    public let discussion: String
    public let run: @Sendable (Invocation, Console) throws -> Int32

    public init(name: String, summary: String, arguments: String, positionals: ClosedRange<Int>? = nil, minimumPositionals: Int = 0,
                maximumPositionals: Int? = nil, options: [OptionSpec], discussion: String = "",
                run: @escaping @Sendable (Invocation, Console) throws -> Int32) {
        self.name = name
        self.summary = summary
        self.arguments = arguments
        self.minimumPositionals = positionals?.lowerBound ?? minimumPositionals
        self.maximumPositionals = positionals.map { $0.upperBound } ?? maximumPositionals
        self.options = options
        self.discussion = discussion
        self.run = run
    }

    public var usage: String {
        let optionPart = options.isEmpty ? "" : " [options]"
        return "keeptrack \(name)\(arguments.isEmpty ? "" : " " + arguments)\(optionPart)"
    }

    public var help: String {
        var lines = ["\(summary)", "", "Usage: \(usage)"]
        let all = options + [OptionSpec.flag("help", short: "h", "Show this help.")]
        lines.append("")
        lines.append("Options:")
        let labels = all.map { option -> String in
            var label = option.short.map { "-\($0), " } ?? "    "
            label += "--\(option.name)"
            if let value = option.valueName { label += " \(value)" }
            return label
        }
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (label, option) in zip(labels, all) { lines.append("  " + label.rightPadded(to: width) + option.help) }
        if !discussion.isEmpty {
            lines.append("")
            lines.append(discussion)
        }
        return lines.joined(separator: "\n")
    }
}

/// The parsed command line of one command.
public struct Invocation: Sendable {
    public var positionals: [String] = []
    public var flags: Set<String> = []
    public var values: [String: [String]] = [:]

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func allValues(_ name: String) -> [String] { values[name] ?? [] }

    public func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw KeepTrackCLIError.usage("--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    public func number(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), range.contains(number) else {
            throw KeepTrackCLIError.usage("--\(name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }
}

public enum KeepTrackCLIError: Error {
    case usage(String)
    case help
}

public enum ArgumentParser {
    public static func parse(_ arguments: [String], for command: CommandSpec) throws -> Invocation {
        var invocation = Invocation()
        var index = 0
        var optionsEnded = false
        func find(long: String) throws -> OptionSpec {
            if let option = command.options.first(where: { $0.name == long }) { return option }
            throw KeepTrackCLIError.usage("unknown option '--\(long)' for '\(command.name)'" + hint(for: long, among: command.options.map(\.name)))
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                invocation.positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "--help" || argument == "-h" { throw KeepTrackCLIError.help }
            var option: OptionSpec
            var inlineValue: String?
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                option = try find(long: name)
            } else {
                let letters = Array(argument.dropFirst())
                guard letters.count == 1, let match = command.options.first(where: { $0.short == letters[0] }) else {
                    throw KeepTrackCLIError.usage("unknown option '\(argument)' for '\(command.name)'")
                }
                option = match
            }
            if option.valueName == nil {
                if inlineValue != nil { throw KeepTrackCLIError.usage("--\(option.name) takes no value") }
                invocation.flags.insert(option.name)
            } else {
                var value = inlineValue
                if value == nil {
                    guard index < arguments.count else { throw KeepTrackCLIError.usage("--\(option.name) needs a value (\(option.valueName!))") }
                    value = arguments[index]
                    index += 1
                }
                invocation.values[option.name, default: []].append(value!)
            }
        }
        let count = invocation.positionals.count
        if count < command.minimumPositionals {
            throw KeepTrackCLIError.usage("'\(command.name)' needs \(command.arguments.isEmpty ? "more arguments" : command.arguments)")
        }
        if let maximum = command.maximumPositionals, count > maximum {
            throw KeepTrackCLIError.usage("'\(command.name)' takes at most \(maximum) argument\(maximum == 1 ? "" : "s") (\(command.arguments)), got \(count)")
        }
        return invocation
    }

    /// "did you mean" for a mistyped name.
    static func hint(for word: String, among names: [String]) -> String {
        let scored = names.map { ($0, distance(word, $0)) }.filter { $0.1 <= max(2, word.count / 3) }.sorted { $0.1 < $1.1 }
        guard let best = scored.first else { return "" }
        return "; did you mean '--\(best.0)'?"
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
