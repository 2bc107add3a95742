/// An account of every byte of every `mdat`: held by some sample, or not. Computed straight from the
/// tracks' chunk extents (every sample lies in a chunk, a chunk's samples are contiguous), not from
/// any writer's plan, so a misread sample table shows up here as media data nobody references —
/// the check that keeps a rewrite from silently leaving media out.
///
/// Padding does not cry wolf: unreferenced bytes are always counted, but a box only `warrants a
/// warning` when it has more than `paddingLimit` of them or when they are not all zero.
public struct MediaDataAccount: Sendable {
    /// Unreferenced bytes up to this many per mdat, all zero, are padding.
    public static let paddingLimit: UInt64 = 1024

    public struct Entry: Sendable, Equatable {
        /// Where the mdat box starts, and its payload.
        public var mdatOffset: UInt64
        public var payloadOffset: UInt64
        public var payloadSize: UInt64
        /// Payload bytes that no sample covers.
        public var unreferencedBytes: UInt64
        /// The first of them, for a reader who wants to look.
        public var firstUnreferencedByte: UInt64?
        /// Whether every unreferenced byte is zero; nil when there are too many to check cheaply.
        public var allZero: Bool?

        /// More than padding: some media data of this mdat is not part of any track.
        public var warrantsWarning: Bool {
            unreferencedBytes > MediaDataAccount.paddingLimit || (unreferencedBytes > 0 && allZero != true)
        }

        /// "mdat at 48: 61,234 bytes not referenced by any sample".
        public var sentence: String {
            var text = "mdat at \(mdatOffset): \(Self.grouped(unreferencedBytes)) of \(Self.grouped(payloadSize)) bytes not referenced by any sample"
            if let first = firstUnreferencedByte { text += " (the first at byte \(first))" }
            if !warrantsWarning { text += ", all zero: padding" }
            return text
        }

        static func grouped(_ value: UInt64) -> String {
            let digits = Array(String(value))
            var result = ""
            for (index, digit) in digits.enumerated() {
                if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
                result.append(digit)
            }
            return result
        }

        public var json: JSONValue {
            .object([("mdatOffset", .int(Int64(mdatOffset))), ("mdatPayloadBytes", .int(Int64(payloadSize))),
                     ("unreferencedBytes", .int(Int64(unreferencedBytes))),
                     ("firstUnreferencedByte", firstUnreferencedByte.map { .int(Int64($0)) } ?? .null),
                     ("allZero", allZero.map(JSONValue.bool) ?? .null), ("warning", .bool(warrantsWarning))])
        }
    }

    /// One entry per mdat (including those every sample accounts for).
    public var entries: [Entry]

    /// Entries with unreferenced bytes.
    public var unreferenced: [Entry] { entries.filter { $0.unreferencedBytes > 0 } }
    public var unreferencedBytes: UInt64 { entries.reduce(0) { $0 + $1.unreferencedBytes } }
    public var warrantsWarning: Bool { entries.contains(where: \.warrantsWarning) }

    public init(movie: Movie) {
        var extents: [(start: UInt64, end: UInt64)] = []
        for track in movie.tracks {
            var chunks = track.sampleTable.makeChunkIterator()
            while let chunk = chunks.next() {
                if chunk.byteCount > 0 { extents.append((chunk.offset, chunk.offset + chunk.byteCount)) }
            }
        }
        // A truncated file's last bytes begin a sample the file ends inside: media, just not complete.
        for state in movie.truncation?.tracks ?? [] {
            if let start = state.partialSampleOffset { extents.append((start, movie.source.size)) }
        }
        extents.sort { $0.start < $1.start }
        // Merged, so each mdat subtracts disjoint ranges.
        var merged: [(start: UInt64, end: UInt64)] = []
        for extent in extents {
            if let last = merged.last, extent.start <= last.end {
                merged[merged.count - 1].end = max(last.end, extent.end)
            } else {
                merged.append(extent)
            }
        }
        var entries: [Entry] = []
        var next = 0
        for box in movie.boxes where box.type == "mdat" {
            // Payload as far as the file goes (a last mdat may claim more than there is).
            let start = box.payloadOffset
            let end = min(start + box.payloadSize, max(movie.source.size, start))
            var gaps: [(UInt64, UInt64)] = []
            var position = start
            while next < merged.count, merged[next].end <= start { next += 1 }
            var index = next
            while index < merged.count, merged[index].start < end {
                if merged[index].start > position { gaps.append((position, merged[index].start)) }
                position = max(position, merged[index].end)
                index += 1
            }
            if position < end { gaps.append((position, end)) }
            let unreferenced = gaps.reduce(0) { $0 + $1.1 - $1.0 }
            var allZero: Bool?
            if unreferenced > 0, unreferenced <= Self.paddingLimit {
                allZero = gaps.allSatisfy { gap in
                    (try? movie.source.read(at: gap.0, count: Int(gap.1 - gap.0)).allSatisfy { $0 == 0 }) ?? false
                }
            }
            entries.append(Entry(mdatOffset: box.offset, payloadOffset: start, payloadSize: box.payloadSize,
                                 unreferencedBytes: unreferenced, firstUnreferencedByte: gaps.first?.0, allZero: allZero))
        }
        self.entries = entries
    }

    /// One sentence for every mdat whose unreferenced bytes are more than padding, or nil.
    public var warning: String? {
        let warned = entries.filter(\.warrantsWarning)
        guard let first = warned.first else { return nil }
        if warned.count == 1 { return first.sentence }
        let total = warned.reduce(0) { $0 + $1.unreferencedBytes }
        let start = first.firstUnreferencedByte.map { " at byte \($0)" } ?? ""
        return "\(Entry.grouped(total)) bytes in \(warned.count) mdats not referenced by any sample (the first: \(Entry.grouped(first.unreferencedBytes)) bytes\(start), in the mdat at \(first.mdatOffset))"
    }

    /// The lines `inspect` prints: each mdat with unreferenced bytes, or a summary when there are many.
    public var lines: [String] {
        let listed = unreferenced
        let prefix = "warning \(LintRule.unreferencedMediaData.id): "
        if listed.count > 3, let warning { return [prefix + warning] }
        return listed.map { ($0.warrantsWarning ? prefix : "") + $0.sentence }
    }

    /// The note of a command whose output carries only the samples, when it leaves more than padding out.
    public var droppedNotes: [String] {
        warning.map { ["\($0): not carried into the output"] } ?? []
    }
}
