/// Fragments whose `tfhd` base data offsets were left behind when a tool grew the file in front of
/// them: ffmpeg's `+global_sidx` (the sidx goes in after the offsets are written), taggers such as
/// mutagen (it moves every fragment but updates only the first `moof`) and AtomicParsley (none).
/// Read as recorded, such a file gives other bytes than its samples (ffmpeg decodes garbage);
/// counted from each fragment's own `moof` — what those writers recorded before the move — the runs
/// fill the `mdat` that follows it exactly. Found only on that evidence, repaired by rewriting the
/// 8-byte fields (and `mfra/tfra` entries that point where the moofs were), sizes unchanged.
public struct FragmentOffsetRepair: Sendable, Equatable {
    /// One field to overwrite; every patch keeps the file's size and layout.
    public struct Patch: Sendable, Equatable {
        /// `moof[2]/traf/tfhd` or `mfra/tfra[2]` (entry numbers in `description`).
        public let path: String
        /// File offset of the field.
        public let offset: UInt64
        public let old: [UInt8]
        public let new: [UInt8]
        public let description: String
    }

    public let patches: [Patch]
    /// Top-level `moof` boxes whose base data offsets are stale.
    public let staleFragments: Int
    public let fragments: Int
    /// How far each repaired base moves (bytes, each distinct value once).
    public let shifts: [Int64]

    public var baseOffsetPatches: Int { patches.filter { $0.path.hasSuffix("tfhd") }.count }
    public var randomAccessPatches: Int { patches.count - baseOffsetPatches }

    /// One sentence for reports: what is wrong and what a repair changes.
    public var summary: String {
        let moved = shifts.map { ($0 > 0 ? "+" : "−") + MediaDataAccount.Entry.grouped(UInt64($0.magnitude)) }.joined(separator: ", ")
        if staleFragments == 0 {
            return "the fragment index (mfra/tfra) points where the fragments were before a tool moved them: \(randomAccessPatches) entries to rewrite"
        }
        var text = "\(staleFragments) of \(fragments) fragments have stale tfhd base data offsets (off by \(moved) bytes): \(baseOffsetPatches) base offsets"
        if randomAccessPatches > 0 { text += " and \(randomAccessPatches) mfra/tfra entries" }
        return text + " to rewrite"
    }

    /// Why a reader refuses the file as it is: the first stale field, the evidence and the way out.
    public var refusal: KeepTrackError {
        let first = patches[0]
        return .malformed(path: first.path, offset: first.offset,
            reason: "base data offset \(Self.value(first.old)) is stale: \(summary). Counted from each moof, the samples fill the mdat that follows it exactly; read as recorded they are other bytes. "
                + "A tool grew the file in front of the fragments without updating them (ffmpeg's +global_sidx, mutagen, AtomicParsley); " + Self.wayOut)
    }

    /// How `refusal` ends: the repair exists (a program offers it its own way; the command line names `fix`).
    static let wayOut = "rewriting those fields repairs it (FragmentOffsetRepair)"

    /// True when `error` is the `refusal` of a file this type repairs.
    public static func isRefusal(_ error: KeepTrackError) -> Bool {
        if case .malformed(_, _, let reason) = error { return reason.hasSuffix(wayOut) }
        return false
    }

    /// `source` as it reads once repaired (nothing is written).
    public func repaired(_ source: ByteSource) throws -> PatchedByteSource {
        try PatchedByteSource(source, patches: patches.map { PatchedByteSource.Patch(offset: $0.offset, bytes: $0.new) })
    }

    /// Writes the patches into the file at `path` (each field checked against the file first, so a
    /// file changed since it was read is left alone), then fsyncs. Every prefix of the patches
    /// leaves a file no worse than before: each rewrites one fragment's own offset.
    public func applyInPlace(to path: String) throws {
        try InPlacePatching.write(patches.map { InPlacePatch(offset: $0.offset, old: $0.old, new: $0.new, what: $0.path) }, to: path)
    }

    /// The movie at `path` read through its repair, when it needs one and the evidence holds; nil
    /// when the file needs none (or none explains it).
    public static func openRepaired(path: String) throws -> Repaired? {
        let source = try FileByteSource(path: path)
        guard let repair = try find(in: source) else { return nil }
        return Repaired(movie: try Movie(source: repair.repaired(source), checkingFragmentOffsets: false), repair: repair)
    }

    /// A movie read through its repair, and the repair.
    public struct Repaired {
        public let movie: Movie
        public let repair: FragmentOffsetRepair
    }

    /// The repair of a movie that opened (its fragments read right): only stale `mfra/tfra`
    /// entries, or nil. Free for movies without fragments or without `mfra`.
    public static func indexRepair(_ movie: Movie) -> FragmentOffsetRepair? {
        guard movie.fragmentCount > 0, movie.boxes.contains(where: { $0.type == "mfra" }),
              let repair = (try? find(boxes: movie.boxes, source: movie.source)) ?? nil, repair.staleFragments == 0 else { return nil }
        return repair
    }

    /// The repair `source` needs, or nil when its fragments are read right as recorded (or no
    /// recount explains them). Costs a scan of the tfhd boxes; only a file with a base data offset
    /// that is not its own moof's offset is read a second time.
    public static func find(in source: ByteSource) throws -> FragmentOffsetRepair? {
        try find(boxes: BoxParser.parseFile(source), source: source)
    }

    static func find(boxes: [Box], source: ByteSource) throws -> FragmentOffsetRepair? {
        let moofs = boxes.filter { $0.type == "moof" }
        guard !moofs.isEmpty else { return nil }
        let checkBases = mayNeedRepair(boxes)
        let following = checkBases ? followingMediaData(boxes) : [:]
        var patches: [Patch] = []
        var candidates: [UInt64: (recorded: UInt64, base: UInt64)] = [:]
        for (moofIndex, moof) in moofs.enumerated() where checkBases {
            // The pattern: every traf counts from one recorded base, and the base that puts the
            // earliest run at the start of the mdat right after this moof is another one.
            let trafs = moof.all("traf")
            let bases = trafs.map { $0.first("tfhd").flatMap(recordedBase) }
            guard let data = following[moof.offset], !bases.isEmpty, let recorded = bases[0],
                  bases.allSatisfy({ $0 == recorded }) else { continue }
            let earliest = trafs.map { firstRunOffset($0) }.min() ?? 0
            guard earliest <= data.lowerBound else { continue }
            let base = data.lowerBound - earliest
            guard base != recorded else { continue }
            candidates[moof.offset] = (recorded, base)
            for (trafIndex, traf) in trafs.enumerated() {
                let tfhd = traf.first("tfhd")!
                let path = TrafLocation(moof: moofIndex, traf: trafIndex).path + "/tfhd"
                patches.append(Patch(path: path, offset: tfhd.payloadOffset + 8, old: bigEndian(recorded, bytes: 8), new: bigEndian(base, bytes: 8),
                                     description: "\(path): base data offset \(recorded) → \(base)"))
            }
        }
        if !patches.isEmpty {
            let patched = try PatchedByteSource(source, patches: patches.map { PatchedByteSource.Patch(offset: $0.offset, bytes: $0.new) })
            guard let movie = try? Movie(source: patched, checkingFragmentOffsets: false), isExplained(movie, candidates, boxes: boxes, moofs: moofs) else { return nil }
        }
        let shifts = Set(candidates.map { Int64(bitPattern: $0.value.base &- $0.value.recorded) }).sorted()
        patches += randomAccessPatches(boxes: boxes, moofs: moofs)
        if patches.isEmpty { return nil }
        return FragmentOffsetRepair(patches: patches, staleFragments: candidates.count, fragments: moofs.count, shifts: shifts)
    }

    /// The evidence, for every fragment repaired: re-based, its runs tile the mdat after its moof
    /// exactly; as recorded, they tile no mdat (so the recorded offsets were not another valid layout).
    static func isExplained(_ movie: Movie, _ candidates: [UInt64: (recorded: UInt64, base: UInt64)], boxes: [Box], moofs: [Box]) -> Bool {
        let mediaData = boxes.filter { $0.type == "mdat" }.map { $0.payloadOffset..<$0.payloadOffset + $0.payloadSize }
        let following = followingMediaData(boxes)
        let extents = runExtents(movie, moofOffsets: moofs.map(\.offset))
        for (moof, candidate) in candidates {
            let runs = extents[moof] ?? []
            guard let data = following[moof], tiles(runs, data) else { return false }
            let back = candidate.base &- candidate.recorded
            let asRecorded = runs.map { ($0.lowerBound &- back)..<($0.upperBound &- back) }
            if mediaData.contains(where: { tiles(asRecorded, $0) }) { return false }
        }
        return true
    }

    /// The payload of the mdat that comes right after each moof (boxes such as free may sit between).
    static func followingMediaData(_ boxes: [Box]) -> [UInt64: Range<UInt64>] {
        let topLevel = boxes.filter { $0.type == "moof" || $0.type == "mdat" }
        var result: [UInt64: Range<UInt64>] = [:]
        for (index, box) in topLevel.enumerated() where box.type == "moof" && index + 1 < topLevel.count && topLevel[index + 1].type == "mdat" {
            let mdat = topLevel[index + 1]
            result[box.offset] = mdat.payloadOffset..<mdat.payloadOffset + mdat.payloadSize
        }
        return result
    }

    /// Where each fragment's runs are (by moof offset), from the movie's fragment chunks.
    static func runExtents(_ movie: Movie, moofOffsets: [UInt64]) -> [UInt64: [Range<UInt64>]] {
        var result: [UInt64: [Range<UInt64>]] = [:]
        for track in movie.tracks {
            guard let fragments = track.fragments else { continue }
            var chunks = track.sampleTable.makeChunkIterator()
            while let chunk = chunks.next() {
                let run = chunk.index - fragments.stblChunkCount
                guard run >= 0, run < fragments.runLocations.count, chunk.byteCount > 0 else { continue }
                result[moofOffsets[fragments.runLocations[run].traf.moof], default: []].append(chunk.offset..<chunk.offset + chunk.byteCount)
            }
        }
        return result
    }

    /// The runs cover `data` exactly: from its first byte to its last, no gap, no overlap.
    static func tiles(_ runs: [Range<UInt64>], _ data: Range<UInt64>) -> Bool {
        guard !runs.isEmpty else { return false }
        var end = data.lowerBound
        for run in runs.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            guard run.lowerBound == end else { return false }
            end = run.upperBound
        }
        return end == data.upperBound
    }

    /// The data offset of a traf's first trun (0 when it records none: the run starts at the base).
    static func firstRunOffset(_ traf: Box) -> UInt64 {
        guard let trun = traf.first("trun") else { return 0 }
        let payload = trun.payload
        guard payload.count >= 12, payload[3] & UInt8(TrackRunBox.dataOffsetPresent) != 0 else { return 0 }
        let value = Int32(bitPattern: UInt32(truncatingIfNeeded: Self.value(Array(payload[8..<12]))))
        return value < 0 ? 0 : UInt64(value)
    }

    /// `mfra/tfra` entries that point at no moof, when each of the track's entries finds its moof:
    /// the one whose `tfdt` for the track is the entry's time (first sample of the fragment), or,
    /// without times, the moofs holding the track in order under one shift.
    static func randomAccessPatches(boxes: [Box], moofs: [Box]) -> [Patch] {
        guard let mfra = boxes.first(where: { $0.type == "mfra" }) else { return [] }
        let moofOffsets = Set(moofs.map(\.offset))
        // Each index's entries with the moof each one resolves to (nil: not yet).
        var tables: [(index: Int, box: Box, tfra: TrackFragmentRandomAccessBox, targets: [UInt64?])] = []
        var resolved: [UInt64: UInt64] = [:]
        for (index, tfraBox) in mfra.all("tfra").enumerated() {
            guard let tfra = try? TrackFragmentRandomAccessBox(box: tfraBox), !tfra.entries.isEmpty,
                  tfra.entries.contains(where: { !moofOffsets.contains($0.moofOffset) }) else { continue }
            var holding: [UInt64] = [], byTime: [UInt64: UInt64] = [:]
            for moof in moofs {
                guard let traf = moof.all("traf").first(where: { $0.first("tfhd").map { trackID(of: $0) == tfra.trackID } == true }) else { continue }
                holding.append(moof.offset)
                if let time = traf.first("tfdt").flatMap(decodeTime) { byTime[time] = moof.offset }
            }
            var targets: [UInt64?] = tfra.entries.map { entry in
                moofOffsets.contains(entry.moofOffset) ? entry.moofOffset : entry.sampleNumber == 1 ? byTime[entry.time] : nil
            }
            if targets.contains(where: { $0 == nil }), holding.count == tfra.entries.count {
                let shift = Int64(bitPattern: holding[0] &- tfra.entries[0].moofOffset)
                if zip(holding, tfra.entries).allSatisfy({ Int64(bitPattern: $0 &- $1.moofOffset) == shift }) { targets = holding }
            }
            for (entry, target) in zip(tfra.entries, targets) where target != nil && entry.moofOffset != target { resolved[entry.moofOffset] = target }
            tables.append((index, tfraBox, tfra, targets))
        }
        // An old offset one index resolved names the same moof in the others (video entries carry
        // presentation times, which no tfdt holds).
        var patches: [Patch] = []
        for (index, tfraBox, tfra, found) in tables {
            let targets = zip(tfra.entries, found).map { $1 ?? resolved[$0.moofOffset] }
            let width = tfra.header.version == 1 ? 8 : 4
            guard targets.allSatisfy({ $0 != nil && (width == 8 || $0! <= UInt64(UInt32.max)) }) else { continue }
            let recordSize = width * 2 + Int(tfra.lengthSizes >> 4 & 3) + Int(tfra.lengthSizes >> 2 & 3) + Int(tfra.lengthSizes & 3) + 3
            let path = "mfra/" + ParseContext.name("tfra", index: index)
            for (number, (entry, target)) in zip(tfra.entries, targets.map { $0! }).enumerated() where entry.moofOffset != target {
                let offset = tfraBox.payloadOffset + 16 + UInt64(number * recordSize + width)
                patches.append(Patch(path: path, offset: offset, old: bigEndian(entry.moofOffset, bytes: width), new: bigEndian(target, bytes: width),
                                     description: "\(path) entry \(number + 1): moof offset \(entry.moofOffset) → \(target)"))
            }
        }
        return patches
    }

    static func trackID(of tfhd: Box) -> UInt32? {
        let payload = tfhd.payload
        return payload.count >= 8 ? UInt32(truncatingIfNeeded: value(Array(payload[4..<8]))) : nil
    }

    /// A `tfdt`'s base media decode time (version 0: 32 bits, 1: 64 bits).
    static func decodeTime(_ tfdt: Box) -> UInt64? {
        let payload = tfdt.payload
        let width = payload.first == 1 ? 8 : 4
        return payload.count >= 4 + width ? value(Array(payload[4..<4 + width])) : nil
    }

    /// Whether some traf records a base data offset other than its moof's: only then can a file
    /// need a repair (read straight from the tfhd payload: this runs on every fragmented open).
    static func mayNeedRepair(_ boxes: [Box]) -> Bool {
        boxes.contains { moof in
            moof.type == "moof" && moof.children.contains { traf in
                traf.type == "traf" && traf.first("tfhd").flatMap(recordedBase).map { $0 != moof.offset } == true
            }
        }
    }

    /// The base data offset a tfhd records, read from its payload, or nil when it records none.
    static func recordedBase(_ tfhd: Box) -> UInt64? {
        let payload = tfhd.payload
        guard payload.count >= 16, payload[3] & UInt8(TrackFragmentHeaderBox.baseDataOffsetPresent) != 0 else { return nil }
        return value(Array(payload[8..<16]))
    }

    static func value(_ bytes: [UInt8]) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }

    static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(bytes - 1 - $0))) }
    }
}
