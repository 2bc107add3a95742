/// Sample groups (`sbgp` + `sgpd`, ISO 14496-12 8.9) of a track, resolved to the description each
/// sample belongs to. A fragmented track has groups in its `stbl` (the moov samples, and descriptions
/// every fragment may use by index 1...0x10000) and in each `traf` (its samples; an index above
/// 0x10000 names an entry of that `traf`'s own `sgpd`). A progressive copy has one `sbgp` per
/// grouping and one `sgpd` per grouping type in `stbl`; ``SampleGroupMembership`` is what both say.
public struct SampleGroupMembership: Sendable, Equatable {
    /// An `sbgp`'s grouping: its type and, in version 1, its grouping type parameter.
    public struct Grouping: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var type: FourCC
        public var parameter: UInt32?
        public static func < (a: Grouping, b: Grouping) -> Bool {
            (a.type.description, a.parameter ?? 0, a.parameter == nil ? 0 : 1) < (b.type.description, b.parameter ?? 0, b.parameter == nil ? 0 : 1)
        }
        public var description: String { parameter.map { "\(type) (parameter \($0))" } ?? type.description }
    }

    /// Description entries of each grouping type: the stbl's first (their indexes unchanged), then
    /// those of the fragments that differ from every one before.
    public var descriptions: [FourCC: [[UInt8]]] = [:]
    /// Types whose descriptions grew past the stbl's `sgpd` (its box must be rewritten).
    public var grownTypes: Set<FourCC> = []
    /// Per grouping: (sample count, description index from 1, 0 = no group) pairs covering every sample.
    public var runs: [Grouping: [UInt32]] = [:]

    /// Consecutive samples in one group description (`entry`, its bytes) or in none (`entry` nil).
    public struct DescribedRun: Sendable, Equatable {
        public var count: UInt64
        public var entry: [UInt8]?
        public init(count: UInt64, entry: [UInt8]?) { self.count = count; self.entry = entry }
    }

    /// Per grouping, the runs of samples by description, adjacent equal ones merged, groupings that
    /// put no sample in a group left out: what the groups mean, whatever the indexes.
    public var meaning: [Grouping: [DescribedRun]] {
        var result: [Grouping: [DescribedRun]] = [:]
        for (grouping, pairs) in runs {
            let entries = descriptions[grouping.type] ?? []
            var merged: [DescribedRun] = []
            for index in stride(from: 0, to: pairs.count, by: 2) where pairs[index] > 0 {
                let number = Int(pairs[index + 1])
                let entry = number > 0 && number <= entries.count ? entries[number - 1] : nil
                if let last = merged.last, last.entry == entry { merged[merged.count - 1].count += UInt64(pairs[index]) } else { merged.append(DescribedRun(count: UInt64(pairs[index]), entry: entry)) }
            }
            if merged.contains(where: { $0.entry != nil }) { result[grouping] = merged }
        }
        return result
    }

    /// The first grouping in which `self` and `other` put a sample in a different group, described; nil when they agree.
    public func difference(from other: SampleGroupMembership) -> String? {
        let a = meaning, b = other.meaning
        for grouping in Set(a.keys).union(b.keys).sorted() {
            let left = a[grouping] ?? [], right = b[grouping] ?? []
            guard left == right else {
                var sample: UInt64 = 1
                for (x, y) in zip(left, right) {
                    if x.entry != y.entry { break }
                    if x.count != y.count { sample += min(x.count, y.count); break }
                    sample += x.count
                }
                return "sample group \(grouping): sample \(sample) belongs to a different group description"
            }
        }
        return nil
    }

    public static func == (a: SampleGroupMembership, b: SampleGroupMembership) -> Bool { a.difference(from: b) == nil }
}

/// The group boxes of one stretch of a track's samples: its `stbl`, or one `traf`.
struct SampleGroupSegment: Sendable {
    var sampleCount: Int
    /// A `traf` (its sbgp indexes above 0x10000 name its own sgpd entries).
    var isFragment: Bool
    var mappings: [(box: Box, path: String)]
    var descriptions: [(box: Box, path: String)]
}

/// Resolves segments (the stbl first, then each traf in order) into a ``SampleGroupMembership``.
enum SampleGroupResolver {
    /// An sbgp index above this in a `traf` names an entry of the `traf`'s own sgpd (ISO 14496-12 8.9.4).
    static let fragmentLocalBase: UInt32 = 0x10000

    struct Descriptions {
        var entries: [[UInt8]]
        var defaultIndex: UInt32
        var view: SampleGroupDescriptionBox
        var path: String
        var offset: UInt64
    }

    static func malformed(_ path: String, _ offset: UInt64, _ reason: String) -> KeepTrackError {
        .malformed(path: path, offset: offset, reason: reason)
    }

    /// The entries of an sgpd, one byte array each. Version 0 gives no lengths: they are known for
    /// the common grouping types; otherwise only a single entry can be told apart.
    static func descriptions(_ box: Box, path: String) throws -> Descriptions {
        let view = try SampleGroupDescriptionBox(box: box, path: path)
        let bytes = view.entries
        let count = Int(view.entryCount)
        var entries: [[UInt8]] = []
        var position = 0
        func take(_ length: Int) throws -> [UInt8] {
            guard length >= 0, length <= bytes.count - position else {
                throw malformed(path, box.offset, "entry \(entries.count + 1) of \(count) needs \(length) bytes, \(bytes.count - position) left")
            }
            defer { position += length }
            return Array(bytes[position..<position + length])
        }
        guard count <= bytes.count + 1 else { throw malformed(path, box.offset, "claims \(count) entries in \(bytes.count) bytes") }
        if view.header.version >= 1 {
            for _ in 0..<count {
                var length = Int(view.defaultLength)
                if length == 0 {
                    let prefix = try take(4)
                    length = Int(prefix.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                }
                entries.append(try take(length))
            }
        } else if let length = versionZeroLengths[view.groupingType] {
            for _ in 0..<count { entries.append(try take(length)) }
        } else if count <= 1 {
            entries = count == 1 ? [bytes] : []
        } else {
            throw KeepTrackError.unsupported("\(path) at byte \(box.offset): a version 0 sample group description of type \(view.groupingType) with \(count) entries gives no entry lengths; keeptrack cannot tell them apart to carry them")
        }
        return Descriptions(entries: entries, defaultIndex: view.header.version >= 2 ? view.defaultDescriptionIndex : 0,
                            view: view, path: path, offset: box.offset)
    }

    /// Entry sizes of version 0 descriptions for grouping types whose entries have one size.
    static let versionZeroLengths: [FourCC: Int] = ["roll": 2, "prol": 2, "rap ": 1, "sync": 1, "tele": 1, "tscl": 20]

    /// Every sample's group in every grouping. `totalSamples`: samples after the last segment stay
    /// outside every explicit mapping (the stbl's defaults apply).
    static func resolve(_ segments: [SampleGroupSegment], totalSamples: Int) throws -> SampleGroupMembership {
        var membership = SampleGroupMembership()
        var global: [FourCC: Descriptions] = [:]
        var lookup: [FourCC: [[UInt8]: UInt32]] = [:]
        // The stbl's descriptions keep their numbers.
        if let stbl = segments.first, !stbl.isFragment {
            for (box, path) in stbl.descriptions {
                let descriptions = try Self.descriptions(box, path: path)
                let type = descriptions.view.groupingType
                guard global[type] == nil else { throw malformed(path, box.offset, "a second sample group description of type \(type)") }
                global[type] = descriptions
                membership.descriptions[type] = descriptions.entries
                for (index, entry) in descriptions.entries.enumerated().reversed() { lookup[type, default: [:]][entry] = UInt32(index + 1) }
            }
        }
        // Every grouping any segment maps, so earlier segments can be filled with their defaults.
        var groupings: [SampleGroupMembership.Grouping] = []
        var seen: Set<SampleGroupMembership.Grouping> = []
        var mappings: [[SampleGroupMembership.Grouping: (view: SampleToGroupBox, path: String, offset: UInt64)]] = []
        for segment in segments {
            var mapped: [SampleGroupMembership.Grouping: (view: SampleToGroupBox, path: String, offset: UInt64)] = [:]
            for (box, path) in segment.mappings {
                let view = try SampleToGroupBox(box: box, path: path)
                let grouping = SampleGroupMembership.Grouping(type: view.groupingType, parameter: view.header.version >= 1 ? view.groupingTypeParameter : nil)
                guard mapped[grouping] == nil else { throw malformed(path, box.offset, "a second sample-to-group box for grouping \(grouping)") }
                mapped[grouping] = (view, path, box.offset)
                if seen.insert(grouping).inserted { groupings.append(grouping) }
            }
            mappings.append(mapped)
        }
        var pairs: [SampleGroupMembership.Grouping: [UInt32]] = [:]
        func append(_ grouping: SampleGroupMembership.Grouping, _ count: UInt32, _ index: UInt32) {
            guard count > 0 else { return }
            var list = pairs[grouping, default: []]
            if list.count >= 2, list[list.count - 1] == index, list[list.count - 2] <= UInt32.max - count {
                list[list.count - 2] += count
            } else {
                list += [count, index]
            }
            pairs[grouping] = list
        }
        var covered = 0
        for (segment, mapped) in zip(segments, mappings) {
            var local: [FourCC: Descriptions] = [:]
            var localIndex: [FourCC: [UInt32]] = [:]
            if segment.isFragment {
                for (box, path) in segment.descriptions {
                    let descriptions = try Self.descriptions(box, path: path)
                    let type = descriptions.view.groupingType
                    guard local[type] == nil else { throw malformed(path, box.offset, "a second sample group description of type \(type) in one track fragment") }
                    if descriptions.defaultIndex != 0 {
                        throw KeepTrackError.unsupported("\(path) at byte \(box.offset): a track fragment's sample group description with a default index (\(descriptions.defaultIndex)) has no exact progressive equivalent; keeptrack does not carry it")
                    }
                    local[type] = descriptions
                    // Each fragment entry becomes the stbl entry with the same bytes, or a new one.
                    localIndex[type] = descriptions.entries.map { entry in
                        if let existing = lookup[type]?[entry] { return existing }
                        membership.descriptions[type, default: []].append(entry)
                        membership.grownTypes.insert(type)
                        let number = UInt32(membership.descriptions[type]!.count)
                        lookup[type, default: [:]][entry] = number
                        return number
                    }
                }
            }
            for grouping in groupings {
                let fallback = global[grouping.type]?.defaultIndex ?? 0
                guard let (view, path, offset) = mapped[grouping] else {
                    append(grouping, UInt32(segment.sampleCount), fallback)
                    continue
                }
                guard view.totalSamples <= UInt64(segment.sampleCount) else {
                    throw KeepTrackError.unsupported("\(path) at byte \(offset): maps \(view.totalSamples) samples, the \(segment.isFragment ? "track fragment" : "sample table") has \(segment.sampleCount); keeptrack cannot tell which samples it meant")
                }
                let globalCount = UInt32(global[grouping.type]?.entries.count ?? 0)
                for pair in stride(from: 0, to: view.pairs.count, by: 2) {
                    let count = view.pairs[pair], index = view.pairs[pair + 1]
                    var resolved: UInt32 = 0
                    if index == 0 {
                        resolved = 0
                    } else if segment.isFragment, index > fragmentLocalBase {
                        let number = Int(index - fragmentLocalBase)
                        guard let table = localIndex[grouping.type], number <= table.count else {
                            throw malformed(path, offset, "group description index \(index) names entry \(number) of this track fragment's \(grouping.type) descriptions, which has \(localIndex[grouping.type]?.count ?? 0)")
                        }
                        resolved = table[number - 1]
                    } else {
                        guard index <= globalCount else {
                            throw malformed(path, offset, "group description index \(index) is past the \(globalCount) \(grouping.type) descriptions of the sample table")
                        }
                        resolved = index
                    }
                    append(grouping, count, resolved)
                }
                append(grouping, UInt32(segment.sampleCount) - UInt32(view.totalSamples), fallback)
            }
            covered += segment.sampleCount
        }
        if covered < totalSamples {
            for grouping in groupings { append(grouping, UInt32(totalSamples - covered), global[grouping.type]?.defaultIndex ?? 0) }
        }
        membership.runs = pairs
        return membership
    }
}

extension SampleGroupMembership {
    /// The stbl group boxes of a progressive track with this membership: the source stbl's sgpd where
    /// it already holds every entry, a new one otherwise (version 1, or 2 keeping the source's default
    /// index), and one sbgp per grouping covering every sample.
    /// `stblDescriptions`: the source stbl's sgpd boxes by grouping type.
    func boxes(stblDescriptions: [FourCC: Box]) throws -> [Box] {
        var result: [Box] = []
        let types = Set(descriptions.keys).union(runs.keys.map(\.type)).sorted { $0.description < $1.description }
        for type in types {
            let entries = descriptions[type] ?? []
            if let kept = stblDescriptions[type], !grownTypes.contains(type) {
                result.append(kept)
            } else if !entries.isEmpty {
                var sgpd = SampleGroupDescriptionBox()
                let source = stblDescriptions[type].flatMap { try? SampleGroupDescriptionBox(box: $0) }
                sgpd.header = FullBoxHeader(version: max(1, min(source?.header.version ?? 1, 2)), flags: source?.header.flags ?? 0)
                if sgpd.header.version >= 2 { sgpd.defaultDescriptionIndex = source?.defaultDescriptionIndex ?? 0 }
                sgpd.groupingType = type
                let length = entries[0].count
                let uniform = length > 0 && entries.allSatisfy { $0.count == length }
                sgpd.defaultLength = uniform ? UInt32(length) : 0
                sgpd.entryCount = UInt32(entries.count)
                sgpd.entries = entries.flatMap { entry -> [UInt8] in
                    uniform ? entry : [UInt8(entry.count >> 24 & 0xFF), UInt8(entry.count >> 16 & 0xFF), UInt8(entry.count >> 8 & 0xFF), UInt8(entry.count & 0xFF)] + entry
                }
                result.append(Box(type: "sgpd", bytes: try sgpd.encoded()))
            }
            for grouping in runs.keys.filter({ $0.type == type }).sorted() {
                var sbgp = SampleToGroupBox()
                sbgp.groupingType = type
                if let parameter = grouping.parameter { sbgp.header.version = 1; sbgp.groupingTypeParameter = parameter }
                sbgp.pairs = runs[grouping] ?? []
                result.append(Box(type: "sbgp", bytes: try sbgp.encoded()))
            }
        }
        return result
    }
}

extension Track {
    /// Every sample's group in every grouping, from the `stbl` and (for a fragmented track) every `traf`.
    public func sampleGroups() throws -> SampleGroupMembership {
        var segments = [SampleGroupSegment(sampleCount: fragments?.stblSampleCount ?? sampleTable.sampleCount, isFragment: false,
                                           mappings: [], descriptions: [])]
        if let stbl = box.find(["mdia", "minf", "stbl"]) {
            let stblPath = path + "/mdia/minf/stbl/"
            segments[0].mappings = stbl.all("sbgp").enumerated().map { ($1, stblPath + "sbgp" + ($0 == 0 ? "" : "[\($0 + 1)]")) }
            segments[0].descriptions = stbl.all("sgpd").enumerated().map { ($1, stblPath + "sgpd" + ($0 == 0 ? "" : "[\($0 + 1)]")) }
        }
        segments += fragments?.groupSegments ?? []
        return try SampleGroupResolver.resolve(segments, totalSamples: sampleTable.sampleCount)
    }
}

extension Track {
    /// The trak with every traf's sample groups merged into its stbl (one sbgp per grouping covering
    /// every sample, one sgpd per type): for writers that cut or copy the stbl's groups of a
    /// fragmented track (trim). The trak itself when no traf has groups. Throws (65) when the
    /// fragments hold boxes keeptrack cannot carry (``TrackFragments/refusals``) or groups it cannot merge.
    public func trakWithFragmentGroupsMerged() throws -> Box {
        if let reason = fragments?.refusals.first { throw KeepTrackError.unsupported(reason) }
        guard fragments?.hasFragmentGroups == true else { return box }
        let groups = try sampleGroups()
        var trak = box
        let descriptions = OutputTrack.groupDescriptions(trak)
        try trak.modifySampleTable { try OutputTrack.replaceGroupBoxes(&$0, groups: groups, stblDescriptions: descriptions) }
        return trak
    }
}
