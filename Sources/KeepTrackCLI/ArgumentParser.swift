/// A small table-driven argument parser: each command declares its options and positionals
/// once, and parsing, `--help` and error hints all come from that declaration.
public struct OptionSpec: Sendable {
    /// What an option's value must be; checked when the command line is parsed, so a bad value is a
    /// usage error (64) before the command starts.
    public enum ValueType: Sendable, Equatable {
        case text
        case integer(ClosedRange<Int>)
        case number(ClosedRange<Double>)
        case choice([String])
    }

    public let name: String
    public let short: Character?
    /// nil for a flag; the placeholder shown in help (`N`, `FILE`) for an option with a value.
    public let valueName: String?
    public let help: String
    /// nil for a flag.
    public let type: ValueType?

    public static func flag(_ key: OptionKey<Bool>, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: key.name, short: short, valueName: nil, help: help, type: nil)
    }

    /// An option whose value is any text.
    public static func value(_ key: OptionKey<String>, short: Character? = nil, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: key.name, short: short, valueName: valueName, help: help, type: .text)
    }

    /// An option whose value is one of `choices`.
    public static func value(_ key: OptionKey<String>, short: Character? = nil, _ valueName: String, _ help: String, choices: [String]) -> OptionSpec {
        OptionSpec(name: key.name, short: short, valueName: valueName, help: help, type: .choice(choices))
    }

    /// An option whose value is a whole number in `range`.
    public static func value(_ key: OptionKey<Int>, short: Character? = nil, _ valueName: String, _ help: String, range: ClosedRange<Int>) -> OptionSpec {
        OptionSpec(name: key.name, short: short, valueName: valueName, help: help, type: .integer(range))
    }

    /// An option whose value is a number in `range`.
    public static func value(_ key: OptionKey<Double>, short: Character? = nil, _ valueName: String, _ help: String, range: ClosedRange<Double>) -> OptionSpec {
        OptionSpec(name: key.name, short: short, valueName: valueName, help: help, type: .number(range))
    }

    /// `value` checked against `type`: the usage error names the option and what it takes.
    func check(_ value: String) throws {
        switch type {
        case .integer(let range)?:
            guard let number = Int(value), range.contains(number) else {
                throw KeepTrackCLIError.usage("--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
            }
        case .number(let range)?:
            guard let number = Double(value), range.contains(number) else {
                throw KeepTrackCLIError.usage("--\(name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
            }
        case .choice(let choices)?:
            guard choices.contains(value) else {
                throw KeepTrackCLIError.usage("--\(name) takes one of \(choices.joined(separator: ", ")), not '\(value)'"
                    + ArgumentParser.hint(for: value, among: choices, prefix: ""))
            }
        case .text?, nil:
            break
        }
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
        let all = options + [OptionSpec.flag(.help, short: "h", "Show this help.")]
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

/// The parsed command line of one command, read through `OptionKey`s: a misspelt option name does not
/// compile, and a key's type says what it reads. Reading a key the command's table does not list stops
/// the program at its first use; `ArgumentParserTests.testEveryOptionACommandReadsIsInItsTable` checks
/// every command's reads in its source against its table, so such a read fails the suite instead.
public struct Invocation: Sendable {
    public var positionals: [String] = []
    public var flags: Set<String> = []
    public var values: [String: [String]] = [:]
    /// The command's options by name (empty for an invocation built by hand).
    var declared: [String: OptionSpec] = [:]

    func checkDeclared(_ name: String, flag: Bool) {
        guard !declared.isEmpty else { return }
        guard let option = declared[name] else { preconditionFailure("'--\(name)' is not an option of this command (a typo in its name?)") }
        precondition((option.valueName == nil) == flag, "'--\(name)' is \(flag ? "an option with a value" : "a flag"), read as \(flag ? "a flag" : "a value")")
    }

    public func flag(_ key: OptionKey<Bool>) -> Bool { checkDeclared(key.name, flag: true); return flags.contains(key.name) }
    public func value(_ key: OptionKey<String>) -> String? { text(key.name) }
    public func allValues(_ key: OptionKey<String>) -> [String] { checkDeclared(key.name, flag: false); return values[key.name] ?? [] }
    /// The value of an option declared with an integer range (already checked against it when parsed).
    public func value(_ key: OptionKey<Int>) -> Int? { text(key.name).flatMap { Int($0) } }
    /// The value of an option declared with a number range (already checked against it when parsed).
    public func value(_ key: OptionKey<Double>) -> Double? { text(key.name).flatMap { Double($0) } }

    /// The value of a number option, narrowed to `range` where one use of the option takes less than its
    /// declaration allows (`fixture scene:NAME --duration`).
    public func value(_ key: OptionKey<Double>, in range: ClosedRange<Double>) throws -> Double? {
        guard let number = value(key) else { return nil }
        guard range.contains(number) else {
            throw KeepTrackCLIError.usage("--\(key.name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text(key.name) ?? "")'")
        }
        return number
    }

    func text(_ name: String) -> String? { checkDeclared(name, flag: false); return values[name]?.last }
}

public enum KeepTrackCLIError: Error {
    case usage(String)
    case help
}

public enum ArgumentParser {
    public static func parse(_ arguments: [String], for command: CommandSpec) throws -> Invocation {
        var invocation = Invocation()
        invocation.declared = Dictionary(command.options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        var optionsEnded = false
        func find(long: String) throws -> OptionSpec {
            if let option = command.options.first(where: { $0.name == long }) { return option }
            throw KeepTrackCLIError.usage("unknown option '--\(long)' for '\(command.name)'" + hint(for: long, among: command.options.map(\.name)))
        }
        func find(short letter: Character, in argument: String) throws -> OptionSpec {
            if let option = command.options.first(where: { $0.short == letter }) { return option }
            let shorts = command.options.compactMap(\.short).map { "-\($0)" }
            throw KeepTrackCLIError.usage("unknown option '-\(letter)'\(argument.count > 2 ? " in '\(argument)'" : "") for '\(command.name)'"
                + (shorts.isEmpty ? "" : " (its short options: \(shorts.joined(separator: ", ")))"))
        }
        /// An argument that is one of this command's options (so never taken as another option's value).
        func isOption(_ argument: String) -> Bool {
            if argument.hasPrefix("--") { return true }
            guard argument.count >= 2, argument.hasPrefix("-"), let letter = argument.dropFirst().first else { return false }
            return letter == "h" || command.options.contains { $0.short == letter }
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
                // Short options group (`-rj 2`, `-rj2`): flags first; a value option takes the rest
                // of the group, or the next argument.
                var letters = Array(argument.dropFirst())[...]
                option = try find(short: letters.removeFirst(), in: argument)
                while option.valueName == nil, let next = letters.first {
                    invocation.flags.insert(option.name)
                    letters.removeFirst()
                    option = try find(short: next, in: argument)
                }
                if option.valueName != nil, !letters.isEmpty { inlineValue = String(letters) }
            }
            if option.valueName == nil {
                if inlineValue != nil { throw KeepTrackCLIError.usage("--\(option.name) takes no value") }
                invocation.flags.insert(option.name)
            } else {
                var value = inlineValue
                if value == nil {
                    guard index < arguments.count else { throw KeepTrackCLIError.usage("--\(option.name) needs a value (\(option.valueName!))") }
                    // A value never swallows the option after it (`--out-dir --force`).
                    if isOption(arguments[index]) {
                        throw KeepTrackCLIError.usage("--\(option.name) needs a value (\(option.valueName!)), not the option '\(arguments[index])'")
                    }
                    value = arguments[index]
                    index += 1
                }
                try option.check(value!)
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
    static func hint(for word: String, among names: [String], prefix: String = "--") -> String {
        let scored = names.map { ($0, distance(word, $0)) }.filter { $0.1 <= max(2, word.count / 3) }.sorted { $0.1 < $1.1 }
        guard let best = scored.first else { return "" }
        return "; did you mean '\(prefix)\(best.0)'?"
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
