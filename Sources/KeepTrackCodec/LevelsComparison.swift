import Foundation
import KeepTrack

/// Source/output pairs compared by what a player plays: the enabled-audio RMS of A and B side by
/// side with the difference, and an echo-risk warning when B plays more tracks of one alternate
/// group at once than A. A correct passthrough differs by well under 0.1 dB.
public struct LevelsComparison: Sendable {
    public struct Row: Sendable {
        public var a: MovieLevels
        public var b: MovieLevels

        public init(a: MovieLevels, b: MovieLevels) {
            self.a = a
            self.b = b
        }
        /// B − A enabled-mix RMS in dB; nil when either side has no decodable enabled audio.
        public var differenceDB: Double? {
            guard let left = a.enabledMix?.rmsDBFS, let right = b.enabledMix?.rmsDBFS else { return nil }
            if left == -.infinity && right == -.infinity { return 0 }
            return right - left
        }
        /// B plays more tracks of one group at once than A: players mix them (echo).
        public var echoRisk: Bool { b.maximumEnabledPerGroup > a.maximumEnabledPerGroup }

        /// Same within `tolerance` dB and no echo risk.
        public func matches(tolerance: Double) -> Bool {
            guard let difference = differenceDB else { return false }
            return abs(difference) <= tolerance && !echoRisk
        }
    }

    public var rows: [Row]
    /// dB within which enabled-mix RMS counts as the same.
    public var tolerance: Double

    public init(rows: [Row], tolerance: Double = 0.1) {
        self.rows = rows
        self.tolerance = tolerance
    }

    /// Two files to compare: A (the reference) and B.
    public struct Pair: Sendable, Equatable {
        public var a: String
        public var b: String
        public init(_ a: String, _ b: String) { self.a = a; self.b = b }
    }

    /// Measures each (A, B) pair.
    public static func compare(pairs: [Pair], tolerance: Double = 0.1) throws -> LevelsComparison {
        LevelsComparison(rows: try pairs.map { Row(a: try LevelsAnalyzer.measure(path: $0.a), b: try LevelsAnalyzer.measure(path: $0.b)) },
                         tolerance: tolerance)
    }

    /// Pairs from a list file: two paths per line separated by a tab (or whitespace when neither has spaces); `#` comments.
    public static func readPairs(listFile: String) throws -> [Pair] {
        guard let text = try? String(contentsOfFile: listFile, encoding: .utf8) else {
            throw KeepTrackError.missingInput("\(listFile): cannot read the list of pairs")
        }
        var pairs: [Pair] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.contains("\t") ? line.split(separator: "\t").map(String.init) : line.split(separator: " ").map(String.init)
            guard parts.count == 2 else { throw KeepTrackError.usage("\(listFile):\(number + 1): expected two paths (A and B), found \(parts.count)") }
            pairs.append(Pair(parts[0], parts[1]))
        }
        return pairs
    }

    public var allMatch: Bool { rows.allSatisfy { $0.matches(tolerance: tolerance) } }

    public var text: String {
        var table = [["A", "B", "A RMS dBFS", "B RMS dBFS", "B−A dB", "A plays", "B plays", "verdict"]]
        for row in rows {
            let difference = row.differenceDB.map { String(format: "%+.2f", $0) } ?? "?"
            let verdict = row.echoRisk ? "ECHO RISK: B mixes \(row.b.maximumEnabledPerGroup) tracks of a group"
                : row.matches(tolerance: tolerance) ? "same" : row.differenceDB == nil ? "cannot measure" : "DIFFERENT"
            table.append([row.a.name, row.b.name, AudioLevels.format(row.a.enabledMix?.rmsDBFS ?? .nan).replacingOccurrences(of: "-inf", with: row.a.enabledMix == nil ? "?" : "-inf"),
                          AudioLevels.format(row.b.enabledMix?.rmsDBFS ?? .nan).replacingOccurrences(of: "-inf", with: row.b.enabledMix == nil ? "?" : "-inf"),
                          difference, Self.plays(row.a), Self.plays(row.b), verdict])
        }
        var lines = TextTable.render(table)
        lines.append("")
        lines.append("RMS of the enabled audio (what a simple player plays); same = within \(String(format: "%.2f", tolerance)) dB and no extra track of a group enabled.")
        return lines.joined(separator: "\n")
    }

    static func plays(_ levels: MovieLevels) -> String {
        levels.mixedTrackIDs.isEmpty ? "none" : levels.mixedTrackIDs.map(String.init).joined(separator: "+")
    }

    public var json: JSONValue {
        .object([
            ("toleranceDB", .double(tolerance)),
            ("allMatch", .bool(allMatch)),
            ("pairs", .array(rows.map { row in
                .object([("a", .string(row.a.name)), ("b", .string(row.b.name)),
                         ("aRmsDBFS", row.a.enabledMix.map { $0.rmsDBFS.isFinite ? .double(($0.rmsDBFS * 100).rounded() / 100) : .null } ?? .null),
                         ("bRmsDBFS", row.b.enabledMix.map { $0.rmsDBFS.isFinite ? .double(($0.rmsDBFS * 100).rounded() / 100) : .null } ?? .null),
                         ("differenceDB", row.differenceDB.map { .double(($0 * 100).rounded() / 100) } ?? .null),
                         ("aPlays", .array(row.a.mixedTrackIDs.map { .int(Int64($0)) })), ("bPlays", .array(row.b.mixedTrackIDs.map { .int(Int64($0)) })),
                         ("echoRisk", .bool(row.echoRisk)), ("same", .bool(row.matches(tolerance: tolerance)))])
            })),
        ])
    }
}
