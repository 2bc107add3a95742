/// One fact compared for every track, shown as a row of the side-by-side table. Other options add
/// columns by appending to `ComparisonColumn.standard` (for example measured audio levels).
public struct ComparisonColumn: Sendable {
    public let name: String
    /// A difference in this column makes the files different (exit 1); otherwise it is only shown.
    public let decisive: Bool
    public let value: @Sendable (Track, Movie) throws -> String

    public init(name: String, decisive: Bool, value: @escaping @Sendable (Track, Movie) throws -> String) {
        self.name = name
        self.decisive = decisive
        self.value = value
    }

    public static let format = ComparisonColumn(name: "format", decisive: true) { track, _ in track.format?.description ?? "none" }
    public static let enabled = ComparisonColumn(name: "enabled", decisive: true) { track, _ in track.isEnabled ? "yes" : "no" }
    public static let alternateGroup = ComparisonColumn(name: "alternate group", decisive: true) { track, _ in String(track.alternateGroup) }
    public static let references = ComparisonColumn(name: "references", decisive: true) { track, _ in
        track.references.isEmpty ? "none" : track.references.map { "\($0.type)→\($0.trackIDs.map(String.init).joined(separator: ","))" }.joined(separator: " ")
    }
    public static let sampleCount = ComparisonColumn(name: "samples", decisive: true) { track, _ in String(track.sampleTable.sampleCount) }
    public static let bytes = ComparisonColumn(name: "bytes", decisive: true) { track, _ in String(track.sampleTable.totalBytes) }
    /// SHA-256 of the samples in decode order, for readers who keep digests (`compare --digest sha256`).
    /// Not decisive: the sample bytes themselves are compared (`MovieComparison`'s sample data check),
    /// which costs a read of both files; hashing costs several times more.
    public static let sampleSHA256 = ComparisonColumn(name: "sha256", decisive: false) { track, movie in
        SHA256.hex(try SampleDigest.sha256(of: track.sampleTable, in: movie.source))
    }

    /// The track facts; the sample bytes are compared apart from these (they need both files at once).
    public static let standard: [ComparisonColumn] = [format, enabled, alternateGroup, references, sampleCount, bytes]
    /// `standard` with the SHA-256 of each track's samples (reads every sample again, and hashes it).
    public static let withDigest: [ComparisonColumn] = standard + [sampleSHA256]
}

/// What comparing a pair of tracks' sample bytes found.
public enum SampleDataResult: Sendable, Equatable {
    case identical
    case different(SampleBytes.Difference)
    /// Not compared: the reason (the byte counts differ, or the comparison was not asked for).
    case notCompared(String)

    var text: String {
        switch self {
        case .identical: return "identical"
        case .different(let at): return "differ from sample \(at.sample + 1) (A byte \(at.offsetA), B byte \(at.offsetB))"
        case .notCompared(let reason): return "not compared (\(reason))"
        }
    }

    var isDifferent: Bool { if case .different = self { return true } else { return false } }

    var json: JSONValue {
        switch self {
        case .identical: return .object([("result", .string("identical"))])
        case .different(let at):
            return .object([("result", .string("different")), ("sample", .int(Int64(at.sample + 1))),
                            ("offsetA", .int(Int64(at.offsetA))), ("offsetB", .int(Int64(at.offsetB)))])
        case .notCompared(let reason): return .object([("result", .string("not compared")), ("reason", .string(reason))])
        }
    }
}

/// Two movies side by side, track by track (matched by id): the check that a rewrite kept every
/// sample, flag, alternate group and reference, and that would have caught "every track enabled".
public struct MovieComparison: Sendable {
    /// Boxes that only describe where samples are; a remux rewrites them, so they are not compared.
    public static let layoutBoxes: Set<FourCC> = ["stsc", "stco", "co64"]
    /// Top-level boxes compared besides moov (mdat is compared through the samples).
    static let comparedTopLevel: Set<FourCC> = ["ftyp"]

    public struct TrackRow: Sendable {
        public let id: UInt32
        /// One value per column; nil when the track is missing from that file.
        public let a: [String]?
        public let b: [String]?
        /// Paths inside the trak (e.g. `mdia/minf/stbl/stts`) whose bytes differ, layout boxes excluded.
        public let differingBoxes: [String]
        /// The samples' bytes compared directly; nil when the track is missing from one file.
        public let sampleData: SampleDataResult?
    }

    public let nameA: String
    public let nameB: String
    public let columns: [ComparisonColumn]
    /// Tracks of A in A's order, then tracks only in B.
    public let rows: [TrackRow]
    /// Every track's enabled flag in file order: the list that shows which audio a player will pick.
    public let enabledA: [EnabledFlag]
    public let enabledB: [EnabledFlag]
    /// Movie-level boxes (ftyp, moov children other than trak) whose bytes differ.
    public let differingMovieBoxes: [String]
    /// Every decisive difference, one sentence each.
    public let differences: [String]

    public var isIdentical: Bool { differences.isEmpty }

    /// `sampleData`: compare every sample's bytes (a read of both files); false compares structure only.
    public init(_ a: Movie, _ b: Movie, nameA: String = "A", nameB: String = "B", columns: [ComparisonColumn] = ComparisonColumn.standard,
                sampleData: Bool = true) throws {
        self.nameA = nameA
        self.nameB = nameB
        self.columns = columns
        var rows: [TrackRow] = []
        var differences: [String] = []
        // A fragmented movie and its progressive copy: rebuilt tables are compared through their samples.
        let fragmented = a.fragmentCount > 0 || b.fragmentCount > 0
        // Every sample's facts read again by a reader of their own (SampleAccount), apart from the track model.
        let (accountA, accountB) = try inParallel({ try SampleAccount(source: a.source) }, { try SampleAccount(source: b.source) })
        // Column values (with --digest, sample hashes that read whole files) of both movies at once.
        let (allA, allB) = try inParallel({ try Self.values(of: a, columns: columns) }, { try Self.values(of: b, columns: columns) })
        for trackA in a.tracks {
            let valuesA = allA[trackA.id]!
            guard let trackB = b.track(id: trackA.id) else {
                rows.append(TrackRow(id: trackA.id, a: valuesA, b: nil, differingBoxes: [], sampleData: nil))
                differences.append("track \(trackA.id) (\(trackA.format?.description ?? "no format")) is missing from \(nameB)")
                continue
            }
            let valuesB = allB[trackB.id]!
            for (index, column) in columns.enumerated() where column.decisive && valuesA[index] != valuesB[index] {
                differences.append("track \(trackA.id): \(column.name) differs: \(valuesA[index]) in \(nameA), \(valuesB[index]) in \(nameB)")
            }
            let data = try Self.compareSampleData(trackA, a, trackB, b, asked: sampleData)
            if case .different(let at) = data {
                differences.append("track \(trackA.id): sample data differs from sample \(at.sample + 1) on (byte \(at.offsetA) of \(nameA), byte \(at.offsetB) of \(nameB))")
            }
            let boxes = fragmented ? try Self.differingDefragmentedBoxes(trackA, trackB)
                : Self.differingBoxes(trackA.box, trackB.box, path: "", ignoring: Self.layoutBoxes.union(FilePointers.pointerBoxes))
            if fragmented, let timing = Self.timingDifference(trackA, trackB) { differences.append(timing) }
            if !boxes.isEmpty { differences.append("track \(trackA.id): boxes differ: \(boxes.joined(separator: ", "))") }
            if let x = accountA.tracks[trackA.id], let y = accountB.tracks[trackB.id],
               let difference = SampleAccount.difference(x, y, nameA: nameA, nameB: nameB) {
                differences.append("track \(trackA.id), read independently: \(difference)")
            }
            if let pointers = Self.pointerDifference([trackA.box], a, [trackB.box], b, path: "moov/") {
                differences.append("track \(trackA.id): \(pointers)")
            }
            rows.append(TrackRow(id: trackA.id, a: valuesA, b: valuesB, differingBoxes: boxes, sampleData: data))
        }
        for trackB in b.tracks where a.track(id: trackB.id) == nil {
            rows.append(TrackRow(id: trackB.id, a: nil, b: allB[trackB.id], differingBoxes: [], sampleData: nil))
        }
        var movieBoxes: [String] = []
        let topA = a.boxes.filter { Self.comparedTopLevel.contains($0.type) }
        let topB = b.boxes.filter { Self.comparedTopLevel.contains($0.type) }
        movieBoxes += Self.differingChildren(topA, topB, path: "", ignoring: [])
        let moovA = fragmented ? try Self.defragmentedMovieBoxes(a) : a.moov.children.filter { $0.type != "trak" }
        let moovB = fragmented ? try Self.defragmentedMovieBoxes(b) : b.moov.children.filter { $0.type != "trak" }
        movieBoxes += Self.differingChildren(moovA, moovB, path: "moov/", ignoring: FilePointers.pointerBoxes)
        if !movieBoxes.isEmpty { differences.append("movie boxes differ: \(movieBoxes.joined(separator: ", "))") }
        if let pointers = Self.pointerDifference(moovA, a, moovB, b, path: "moov/") { differences.append("movie boxes: \(pointers)") }
        self.rows = rows
        self.differingMovieBoxes = movieBoxes
        self.differences = differences
        enabledA = a.tracks.map { EnabledFlag(trackID: $0.id, enabled: $0.isEnabled) }
        enabledB = b.tracks.map { EnabledFlag(trackID: $0.id, enabled: $0.isEnabled) }
    }

    /// The two tracks' sample bytes, concatenated in decode order, compared byte for byte.
    static func compareSampleData(_ trackA: Track, _ a: Movie, _ trackB: Track, _ b: Movie, asked: Bool) throws -> SampleDataResult {
        guard asked else { return .notCompared("structure only") }
        let bytesA = trackA.sampleTable.totalBytes, bytesB = trackB.sampleTable.totalBytes
        guard bytesA == bytesB else { return .notCompared("\(bytesA) bytes in A, \(bytesB) in B") }
        guard let at = try SampleBytes.firstDifference(trackA.sampleTable, in: a.source, trackB.sampleTable, in: b.source) else {
            return .identical
        }
        return .different(at)
    }

    /// Boxes holding file offsets (saio, iloc) are equal when they point at the same bytes, wherever those are.
    static func pointerDifference(_ boxesA: [Box], _ a: Movie, _ boxesB: [Box], _ b: Movie, path: String) -> String? {
        do {
            return try FilePointers.difference(boxesA, in: a.source, boxesB, in: b.source, path: path)
        } catch {
            return "file offsets cannot be read: \(error)"
        }
    }

    /// Every column's value for every track, by track id (ids are unique: `Movie` checks).
    static func values(of movie: Movie, columns: [ComparisonColumn]) throws -> [UInt32: [String]] {
        var result: [UInt32: [String]] = [:]
        for track in movie.tracks { result[track.id] = try columns.map { try $0.value(track, movie) } }
        return result
    }

    /// Compares two box trees; returns the deepest paths whose bytes differ (a container is named
    /// itself only when its own fields — prefix or trailer — differ).
    public static func differingBoxes(_ a: Box, _ b: Box, path: String, ignoring: Set<FourCC>) -> [String] {
        switch (a.content, b.content) {
        case (.container(let left), .container(let right)):
            var result: [String] = []
            if left.prefix != right.prefix || left.trailer != right.trailer || a.type != b.type { result.append(path.isEmpty ? a.type.description : path) }
            return result + differingChildren(left.children, right.children, path: path.isEmpty ? "" : path + "/", ignoring: ignoring)
        case (.bytes(let left), .bytes(let right)):
            return left == right && a.type == b.type ? [] : [path.isEmpty ? a.type.description : path]
        case (.external(_, let left), .external(_, let right)):
            return left == right ? [] : [path]
        default:
            return [path.isEmpty ? a.type.description : path]
        }
    }

    /// Pairs children by type and occurrence (the second `trak` with the second `trak`).
    static func differingChildren(_ left: [Box], _ right: [Box], path: String, ignoring: Set<FourCC>) -> [String] {
        func keyed(_ boxes: [Box]) -> [(key: String, box: Box)] {
            var seen: [FourCC: Int] = [:]
            return boxes.compactMap { box in
                guard !ignoring.contains(box.type) else { return nil }
                let count = (seen[box.type] ?? 0) + 1
                seen[box.type] = count
                return (count == 1 ? box.type.description : "\(box.type)[\(count)]", box)
            }
        }
        let keyedLeft = keyed(left)
        let keyedRight = keyed(right)
        // Looked up by key, not searched: a stbl of 100,000 free boxes made the search quadratic (a remux took 35 s).
        let rightByKey = Dictionary(keyedRight.map { ($0.key, $0.box) }, uniquingKeysWith: { first, _ in first })
        let leftKeys = Set(keyedLeft.map(\.key))
        var result: [String] = []
        for (key, box) in keyedLeft {
            if let other = rightByKey[key] {
                result += differingBoxes(box, other, path: path + key, ignoring: ignoring)
            } else {
                result.append(path + key + " (only in A)")
            }
        }
        for (key, _) in keyedRight where !leftKeys.contains(key) { result.append(path + key + " (only in B)") }
        return result
    }

    // MARK: Reports

    public var text: String {
        var lines = ["A: \(nameA)", "B: \(nameB)", ""]
        let labels = columns.map(\.name) + ["boxes that differ", "sample data"]
        let labelWidth = (labels.map(\.count).max() ?? 0) + 4
        for row in rows {
            let values = (row.a ?? []) + (row.b ?? [])
            let valueWidth = max(12, (values.map(\.count).max() ?? 0) + 2)
            let presence = row.a == nil ? " (only in B)" : row.b == nil ? " (only in A)" : ""
            lines.append("Track \(row.id)\(presence)".rightPadded(to: labelWidth) + "A".rightPadded(to: valueWidth) + "B")
            for (index, column) in columns.enumerated() {
                let left = row.a?[index] ?? "—"
                let right = row.b?[index] ?? "—"
                let mark = row.a != nil && row.b != nil && left != right ? "  ≠" : ""
                lines.append(("  " + column.name).rightPadded(to: labelWidth) + left.rightPadded(to: valueWidth) + right + mark)
            }
            if let data = row.sampleData {
                lines.append("  sample data".rightPadded(to: labelWidth) + data.text + (data.isDifferent ? "  ≠" : ""))
            }
            if row.a != nil && row.b != nil {
                lines.append("  boxes that differ".rightPadded(to: labelWidth) + (row.differingBoxes.isEmpty ? "none" : row.differingBoxes.joined(separator: ", ")))
            }
            lines.append("")
        }
        func flags(_ list: [EnabledFlag]) -> String {
            list.map { "\($0.trackID) \($0.enabled ? "on" : "off")" }.joined(separator: ", ")
        }
        lines.append("Enabled flags in file order")
        lines.append("  A: " + flags(enabledA))
        lines.append("  B: " + flags(enabledB))
        lines.append("")
        if !differingMovieBoxes.isEmpty { lines.append("Movie boxes that differ: " + differingMovieBoxes.joined(separator: ", ")) }
        if isIdentical {
            lines.append("Identical: every track of A is in B with the same samples, flags, alternate group, references and boxes.")
        } else {
            lines.append("Different (\(differences.count)):")
            lines += differences.map { "  - " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    public var json: JSONValue {
        func values(_ list: [String]?) -> JSONValue {
            guard let list else { return .null }
            return .object(zip(columns, list).map { ($0.name, .string($1)) })
        }
        func flags(_ list: [EnabledFlag]) -> JSONValue {
            .array(list.map { .object([("id", .int(Int64($0.trackID))), ("enabled", .bool($0.enabled))]) })
        }
        return .object([
            ("a", .string(nameA)),
            ("b", .string(nameB)),
            ("identical", .bool(isIdentical)),
            ("tracks", .array(rows.map { row in
                .object([("id", .int(Int64(row.id))), ("a", values(row.a)), ("b", values(row.b)),
                         ("differingBoxes", .array(row.differingBoxes.map(JSONValue.string))),
                         ("sampleData", row.sampleData?.json ?? .null)])
            })),
            ("enabledFlags", .object([("a", flags(enabledA)), ("b", flags(enabledB))])),
            ("differingMovieBoxes", .array(differingMovieBoxes.map(JSONValue.string))),
            ("differences", .array(differences.map(JSONValue.string))),
        ])
    }
}

