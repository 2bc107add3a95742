/// What a fragmented track's `moof/traf/trun` boxes added to the samples of its `stbl`.
public struct TrackFragments: Sendable {
    /// Samples and chunks that `stbl` describes: the first ones of the track's table.
    public var stblSampleCount: Int
    public var stblChunkCount: Int
    /// Samples the fragments added after them.
    public var sampleCount: Int
    /// Track fragments (`traf`) naming this track.
    public var trackFragmentCount: Int
    /// The `trun` box offset of each fragment chunk (index: chunk − `stblChunkCount`), for messages.
    public var runOffsets: [UInt64]
    /// Where the `trun` of each fragment chunk is, compactly (a path string per run cost more than reading it).
    var runLocations: [RunLocation]
    /// The `trun` box path of each fragment chunk.
    public var runPaths: [String] { runLocations.map(\.path) }
    /// The `trun` box path of fragment chunk `index` (chunk − `stblChunkCount`).
    public func runPath(_ index: Int) -> String { runLocations[index].path }
    /// The track's `mvex/trex` defaults (zeros when the movie has none for it).
    public var defaults: TrackExtendsBox
    /// Why the track cannot be written into a progressive movie (its fragments are encrypted), or nil.
    public var encryption: String?
    /// Decode-time corrections that could not be represented exactly (a gap longer than a sample
    /// duration holds), one sentence each.
    public var timingNotes: [String]
    /// `tfdt`s starting later than the sample before them ends, by more than that sample lasts
    /// (a fragment or segment missing?): the sample before each was lengthened to reach it.
    public var decodeTimeGaps = DecodeTimeJumps()
    /// `tfdt`s starting before the sample before them ends (but not before it starts): that
    /// sample was shortened to end there.
    public var decodeTimeOverlaps = DecodeTimeJumps()
    /// Why the track cannot be carried exactly into a progressive movie besides encryption (a traf
    /// box keeptrack cannot merge into stbl), one sentence each; a writer refuses with the first.
    public var refusals: [String] = []
    /// traf boxes that describe nothing a progressive movie keeps, by kind: dropped with a note.
    var dropped: [String: (count: Int, path: String, offset: UInt64)] = [:]
    /// Sample group boxes of the track's fragments: the stretches of samples between them, in order
    /// (trafs without groups merged). Empty when no traf has sbgp or sgpd.
    var groupSegments: [SampleGroupSegment] = []
    /// Some traf has sample group boxes: the stbl's sbgp/sgpd must be rebuilt to cover its samples.
    public var hasFragmentGroups: Bool { groupSegments.contains { !$0.mappings.isEmpty || !$0.descriptions.isEmpty } }

    /// One sentence per kind of traf box left out of a progressive copy.
    public var droppedNotes: [String] {
        dropped.keys.sorted().map { kind in
            let (count, path, offset) = dropped[kind]!
            let what = count == 1 ? "\(path) at byte \(offset)" : "\(count) such boxes (the first \(path) at byte \(offset))"
            return "dropped \(kind) of track fragments: \(what)"
        }
    }

    /// Where decode times jumped and how the samples were timed to follow, one sentence per kind.
    public func decodeTimeNotes(timescale: UInt32) -> [String] {
        var notes = timingNotes
        if decodeTimeGaps.count > 0 {
            notes.append(decodeTimeGaps.summary("gap", timescale: timescale)
                + ": the sample before \(decodeTimeGaps.count == 1 ? "it lasts" : "each lasts") until the next starts (a fragment or segment missing?)")
        }
        if decodeTimeOverlaps.count > 0 {
            notes.append(decodeTimeOverlaps.summary("overlap", timescale: timescale)
                + ": the sample before \(decodeTimeOverlaps.count == 1 ? "it was" : "each was") shortened to end where the next starts")
        }
        return notes
    }

    /// The table no longer comes from `stbl` alone: a writer must rebuild the sample-table boxes.
    public var addsSamples: Bool { sampleCount > 0 }
}

/// Where fragment decode times jumped away from the end of the samples before them, in one track.
public struct DecodeTimeJumps: Sendable, Equatable {
    public var count = 0
    /// The longest jump in media units, and the `tfdt` it came from.
    public var largest: UInt64 = 0
    public var largestPath = ""
    public var largestOffset: UInt64 = 0

    mutating func add(_ units: UInt64, path: String, offset: UInt64) {
        count += 1
        if units > largest { (largest, largestPath, largestOffset) = (units, path, offset) }
    }

    /// "2 gaps in decode time, the longest 4.000 s (moof[3]/traf[1]/tfdt at byte 4567)".
    /// `located`: followed by where the longest is.
    func summary(_ kind: String, timescale: UInt32, located: Bool = true) -> String {
        let seconds = timescale > 0 ? String(format: "%.3f s", Double(largest) / Double(timescale)) : "\(largest) units"
        let text = "\(count) \(kind)\(count == 1 ? "" : "s") in decode time, the longest \(seconds)"
        return located ? text + " (\(largestPath) at byte \(largestOffset))" : text
    }
}

/// Reads every top-level `moof` (in file order) into the sample tables of the tracks it names.
enum FragmentReader {
    /// The runs of a file with neither per-sample records nor a sample size may claim no more samples
    /// than this together: such a run costs 28 bytes to claim any number of samples, each a table entry
    /// to hold — a per-run limit of 2^20 let 14–24 KB files claim 0.9–1.8 million (the fuzzer's
    /// timeouts), and a few hundred runs would claim billions.
    static let maximumSizelessSamples = 1 << 19

    /// Adds the fragments' samples to `tracks`; returns the number of `moof` boxes.
    static func read(boxes: [Box], moov: Box, tracks: inout [Track], fileSize: UInt64) throws -> Int {
        var defaults: [UInt32: TrackExtendsBox] = [:]
        if let mvex = moov.first("mvex") {
            for (index, trex) in mvex.all("trex").enumerated() {
                let view = try TrackExtendsBox(box: trex, path: "moov/mvex/trex" + (index == 0 ? "" : "[\(index + 1)]"))
                defaults[view.trackID] = view
            }
        }
        var indexByID: [UInt32: Int] = [:]
        for (index, track) in tracks.enumerated() { indexByID[track.id] = index }
        var builders: [FragmentTableBuilder?] = Array(repeating: nil, count: tracks.count)
        let layout = TopLevelLayout(boxes, fileSize: fileSize)
        var moofCount = 0
        var sizelessSamples = 0
        for moof in boxes where moof.type == "moof" {
            let moofIndex = moofCount
            moofCount += 1
            var previousTrafEnd: UInt64?
            var trafCounts = 0
            for traf in moof.children where traf.type == "traf" {
                let location = TrafLocation(moof: moofIndex, traf: trafCounts)
                trafCounts += 1
                guard let tfhdBox = traf.first("tfhd") else {
                    throw KeepTrackError.malformed(path: location.path, offset: traf.offset, reason: "track fragment has no tfhd")
                }
                let tfhd = try TrackFragmentHeaderBox(box: tfhdBox, lazyPath: location.path + "/tfhd")
                guard let index = indexByID[tfhd.trackID] else {
                    throw KeepTrackError.malformed(path: location.path + "/tfhd", offset: tfhdBox.offset,
                        reason: "names track \(tfhd.trackID), moov has tracks \(tracks.map { String($0.id) }.joined(separator: ", "))")
                }
                if builders[index] == nil {
                    builders[index] = try FragmentTableBuilder(track: tracks[index], defaults: defaults[tfhd.trackID])
                }
                previousTrafEnd = try builders[index]!.add(traf: traf, tfhd: tfhd, location: location, moof: moof,
                                                           previousTrafEnd: previousTrafEnd, fileSize: fileSize, layout: layout,
                                                           sizelessSamples: &sizelessSamples)
            }
        }
        if let damage = builders.lazy.compactMap({ $0?.firstDecodeTimeTooLarge }).first { throw damage }
        for index in tracks.indices {
            guard let builder = builders[index] else {
                // A track no fragment names keeps its stbl; a movie with mvex still records its defaults.
                if moov.first("mvex") != nil {
                    let table = tracks[index].sampleTable
                    tracks[index].fragments = TrackFragments(
                        stblSampleCount: table.sampleCount, stblChunkCount: table.chunkOffsets.count, sampleCount: 0,
                        trackFragmentCount: 0, runOffsets: [], runLocations: [], defaults: defaults[tracks[index].id] ?? TrackExtendsBox(),
                        encryption: nil, timingNotes: [])
                }
                continue
            }
            tracks[index].mergeFragments(table: builder.table(), summary: builder.summary)
        }
        return moofCount
    }
}

/// Where a `traf` is (`moof[3]/traf[2]`, 0-based positions among same-type siblings): built into a
/// path string only for a message.
struct TrafLocation: Sendable {
    var moof: Int
    var traf: Int
    var path: String { ParseContext.name("moof", index: moof) + "/" + ParseContext.name("traf", index: traf) }
}

/// Where a fragment chunk's `trun` is.
struct RunLocation: Sendable {
    var traf: TrafLocation
    var run: Int
    var path: String { traf.path + "/" + ParseContext.name("trun", index: run) }
}

/// Where the top-level boxes are, to tell whether a fragment's data lies in media data.
struct TopLevelLayout {
    /// Payload ranges of the `mdat` boxes, in file order.
    let mediaData: [Range<UInt64>]
    /// The top-level boxes, whose extents (a walk of each moof's subtree) are computed only for a message.
    let boxes: [Box]

    /// `fileSize` past the last box's end: the file is cut short inside its last mdat, which then
    /// reaches that far (what it claims).
    init(_ boxes: [Box], fileSize: UInt64? = nil) {
        var mediaData = boxes.filter { $0.type == "mdat" }.map { $0.payloadOffset..<$0.payloadOffset + $0.payloadSize }
        if let last = boxes.last, last.type == "mdat", let fileSize, let range = mediaData.last, fileSize > range.upperBound {
            mediaData[mediaData.count - 1] = range.lowerBound..<fileSize
        }
        self.mediaData = mediaData
        self.boxes = boxes
    }

    /// Why bytes `start..<end` are not fragment sample data (they do not lie inside one mdat), or nil.
    func notMediaData(_ start: UInt64, _ end: UInt64) -> String? {
        // Few mdats per file in practice; a binary search keeps many-fragment files linear.
        var low = 0, high = mediaData.count
        while low < high {
            let middle = (low + high) / 2
            if mediaData[middle].upperBound <= start { low = middle + 1 } else { high = middle }
        }
        if low < mediaData.count, mediaData[low].lowerBound <= start, end <= mediaData[low].upperBound { return nil }
        let inside = boxes.first { ($0.offset..<$0.offset + $0.size).contains(start) }.map { "in the \($0.type) at byte \($0.offset)" } ?? "outside every box"
        return "sample data at bytes \(start)..<\(end) is not inside an mdat (it starts \(inside))"
    }
}

/// Extends a track's `stbl` table with fragment samples, in the same compact form: each `trun`'s
/// contiguous data is one chunk, durations and composition offsets stay run-length coded.
struct FragmentTableBuilder {
    let base: SampleTable
    let track: Track
    var summary: TrackFragments
    /// The first tfdt whose decode time is past 2^62 (`add`), thrown once every fragment is read.
    var firstDecodeTimeTooLarge: KeepTrackError?
    var count: Int
    var sizes: [UInt32]
    var chunkOffsets: [UInt64]
    var sampleToChunk: [UInt32]
    var timeToSample: [UInt32]
    var compositionOffsets: [UInt32]
    var signedOffsets: Bool
    var syncSamples: [UInt32]?
    var dependencies: [UInt8]
    var firstDecodeTime: UInt64
    /// Decode time after the last sample.
    var endTime: UInt64
    /// A `tfdt` seen before the first sample of the track: where that sample starts.
    var pendingStart: UInt64?

    init(track: Track, defaults: TrackExtendsBox?) throws {
        self.track = track
        let table = track.sampleTable
        base = table
        count = table.sampleCount
        sizes = table.sizes.isEmpty ? Array(repeating: table.constantSize, count: table.sampleCount) : table.sizes
        chunkOffsets = table.chunkOffsets
        sampleToChunk = table.sampleToChunk
        timeToSample = table.timeToSample
        compositionOffsets = table.compositionOffsets
        signedOffsets = table.compositionOffsetsSigned
        syncSamples = table.syncSamples
        firstDecodeTime = table.firstDecodeTime
        endTime = table.firstDecodeTime &+ table.mediaDuration
        dependencies = []
        if let sdtp = track.box.find(["mdia", "minf", "stbl", "sdtp"]), sdtp.payload.count > 4 {
            let flags = sdtp.payload.dropFirst(4).prefix(table.sampleCount)
            dependencies = Array(flags) + Array(repeating: 0, count: table.sampleCount - flags.count)
        }
        summary = TrackFragments(stblSampleCount: table.sampleCount, stblChunkCount: table.chunkOffsets.count, sampleCount: 0,
                                 trackFragmentCount: 0, runOffsets: [], runLocations: [], defaults: defaults ?? TrackExtendsBox(),
                                 encryption: nil, timingNotes: [])
        if let entry = track.sampleEntries.first(where: { Self.encryptedEntries.contains($0.type) }) {
            summary.encryption = "track \(track.id) is encrypted (sample entry \(entry.type))"
        }
    }

    static let encryptedEntries: Set<FourCC> = ["encv", "enca", "enct", "encs"]

    /// senc, saiz, saio or PIFF's sample encryption box (asked for every traf child).
    static func isAuxiliaryInformation(_ box: Box) -> Bool {
        switch box.type {
        case "senc", "saiz", "saio": return true
        case "uuid": return box.userType == piffSampleEncryption
        default: return false
        }
    }

    /// PIFF's sample encryption box, a `uuid` inside `traf`.
    static let piffSampleEncryption: [UInt8] = [0xA2, 0x39, 0x4F, 0x52, 0x5A, 0x9B, 0x4F, 0x14, 0xA2, 0x44, 0x6C, 0x42, 0x7C, 0x64, 0x8D, 0xF4]

    /// Adds one `traf`; returns the end of its data (the base of a following `traf` that names none).
    /// `sizelessSamples`: the samples of 0 bytes claimed by the file's runs so far (FragmentReader.maximumSizelessSamples).
    mutating func add(traf: Box, tfhd: TrackFragmentHeaderBox, location: TrafLocation, moof: Box, previousTrafEnd: UInt64?, fileSize: UInt64,
                      layout: TopLevelLayout, sizelessSamples: inout Int) throws -> UInt64? {
        var path: String { location.path }
        summary.trackFragmentCount += 1
        let defaults = summary.defaults
        let firstSample = count
        var decodeTimeTooLarge: KeepTrackError?
        if summary.encryption == nil {
            let auxiliary = traf.children.filter { Self.isAuxiliaryInformation($0) }
            if let first = auxiliary.first {
                let encrypted = Self.encryptedEntries.contains(track.sampleEntries.first?.type ?? "    ")
                    || auxiliary.contains { $0.type == "senc" || $0.userType == Self.piffSampleEncryption }
                summary.encryption = encrypted
                    ? "track \(track.id)'s fragments carry sample encryption data (\(path)/\(first.type) at byte \(first.offset))"
                    : "track \(track.id)'s fragments carry auxiliary sample information located by file offset (\(path)/\(first.type) at byte \(first.offset))"
            }
        }
        let descriptionIndex = tfhd.sampleDescriptionIndex ?? defaults.defaultSampleDescriptionIndex
        if descriptionIndex == 0 || (!track.sampleEntries.isEmpty && Int(descriptionIndex) > track.sampleEntries.count) {
            throw KeepTrackError.malformed(path: path + "/tfhd", offset: traf.first("tfhd")?.offset ?? traf.offset,
                reason: "sample description index \(descriptionIndex) is outside 1...\(track.sampleEntries.count) (stsd of track \(track.id))")
        }
        if let tfdtBox = traf.first("tfdt") {
            let tfdt = try TrackFragmentDecodeTimeBox(box: tfdtBox, lazyPath: path + "/tfdt")
            // 2^62 units is 1.6 million years at 90 kHz: a decode time past it is damage, and sums of it would overflow.
            // Refused once every fragment is read, so the runs' own limits (samples claimed without data) come first.
            if tfdt.baseMediaDecodeTime >= 1 << 62 {
                decodeTimeTooLarge = .malformed(path: path + "/tfdt", offset: tfdtBox.offset,
                    reason: "decode time \(tfdt.baseMediaDecodeTime) is past 2^62 media units (track \(track.id))")
            }
            // Before the previous sample even starts: fragments out of order or repeated (segments given to --init in
            // another order, or twice). Read as they came, the samples' durations became 0 and the movie ran from the
            // last segment's time with no note (second damage sweep). A slight overlap is corrected as before.
            let runs = timeToSample.count / 2
            let lastStart = runs > 0 && endTime >= UInt64(timeToSample[runs * 2 - 1]) ? endTime - UInt64(timeToSample[runs * 2 - 1]) : endTime
            if count > 0, tfdt.baseMediaDecodeTime < lastStart, decodeTimeTooLarge == nil {
                decodeTimeTooLarge = .malformed(path: path + "/tfdt", offset: tfdtBox.offset,
                    reason: "decode time \(tfdt.baseMediaDecodeTime) is before the previous sample of track \(track.id) starts (\(lastStart)): "
                        + "the fragments are out of order or repeated (media segments given in another order, or twice?)")
            }
            // Kept, and said: a missing segment was read as one sample lasting through it, with no note.
            if count > 0, runs > 0, tfdt.baseMediaDecodeTime > endTime, tfdt.baseMediaDecodeTime - endTime > UInt64(timeToSample[runs * 2 - 1]) {
                summary.decodeTimeGaps.add(tfdt.baseMediaDecodeTime - endTime, path: path + "/tfdt", offset: tfdtBox.offset)
            } else if count > 0, tfdt.baseMediaDecodeTime < endTime, decodeTimeTooLarge == nil {
                summary.decodeTimeOverlaps.add(endTime - tfdt.baseMediaDecodeTime, path: path + "/tfdt", offset: tfdtBox.offset)
            }
            startNextSample(at: tfdt.baseMediaDecodeTime, path: path + "/tfdt")
        }
        let dataBase = tfhd.baseDataOffset ?? (tfhd.isDefaultBaseMoof ? moof.offset : (previousTrafEnd ?? moof.offset))
        var nextRunStart = dataBase
        var runIndex = 0
        for trunBox in traf.children where trunBox.type == "trun" {
            let runLocation = RunLocation(traf: location, run: runIndex)
            var runPath: String { runLocation.path }
            runIndex += 1
            let trun = try TrackRunBox(box: trunBox, lazyPath: runPath)
            func fail(_ reason: String) -> KeepTrackError { .malformed(path: runPath, offset: trunBox.offset, reason: reason) }
            let start: UInt64
            if let offset = trun.dataOffset {
                let (value, overflow) = Int64(bitPattern: dataBase).addingReportingOverflow(Int64(offset))
                guard !overflow, value >= 0 else { throw fail("data offset \(offset) from base \(dataBase) points before the start of the file") }
                start = UInt64(value)
            } else {
                start = nextRunStart
            }
            let samples = Int(trun.sampleCount)
            guard samples > 0 else { continue }
            let defaultSize = tfhd.defaultSampleSize ?? defaults.defaultSampleSize
            let defaultDuration = tfhd.defaultSampleDuration ?? defaults.defaultSampleDuration
            let defaultFlags = tfhd.defaultSampleFlags ?? defaults.defaultSampleFlags
            let hasSizes = trun.has(TrackRunBox.sampleSizePresent)
            if trun.entries.isEmpty, defaultSize == 0 {
                let earlier = sizelessSamples
                sizelessSamples += samples
                if sizelessSamples > FragmentReader.maximumSizelessSamples {
                    throw fail("claims \(samples) samples of 0 bytes" + (earlier > 0 ? " after \(earlier) in earlier runs" : "")
                        + ": more than the \(FragmentReader.maximumSizelessSamples) samples without data a file may claim")
                }
            }
            // Every byte of the run inside the file, checked before the table grows.
            var runBytes: UInt64 = 0
            if hasSizes {
                for entry in trun.entries { runBytes += UInt64(entry.size) }
            } else {
                runBytes = UInt64(defaultSize) * UInt64(samples)
            }
            let (end, overflow) = start.addingReportingOverflow(runBytes)
            guard !overflow, end <= fileSize else {
                throw fail("\(samples) samples of \(runBytes) bytes at \(start) run past the end of the file (\(fileSize) bytes)")
            }
            if runBytes > 0, let reason = layout.notMediaData(start, end) { throw fail(reason) }
            appendChunk(offset: start, samples: samples, descriptionIndex: descriptionIndex, runOffset: trunBox.offset, run: runLocation)
            let firstRunSample = count
            let hasDurations = trun.has(TrackRunBox.sampleDurationPresent)
            let hasFlags = trun.has(TrackRunBox.sampleFlagsPresent)
            let hasOffsets = trun.has(TrackRunBox.sampleCompositionOffsetPresent)
            if trun.entries.isEmpty {
                // No per-sample records: every sample takes the defaults (the first may have its own flags).
                var rest = samples
                if let first = trun.firstSampleFlags {
                    appendSample(size: defaultSize, duration: defaultDuration, compositionOffset: 0, flags: FragmentSampleFlags(rawValue: first))
                    rest -= 1
                }
                appendIdenticalSamples(rest, size: defaultSize, duration: defaultDuration, flags: FragmentSampleFlags(rawValue: defaultFlags))
            } else {
                for entry in trun.entries.prefix(samples) {
                    var flags = hasFlags ? entry.flags : defaultFlags
                    if count == firstRunSample, let first = trun.firstSampleFlags { flags = first }
                    appendSample(size: hasSizes ? entry.size : defaultSize, duration: hasDurations ? entry.duration : defaultDuration,
                                 compositionOffset: hasOffsets ? trun.compositionOffset(entry) : 0, flags: FragmentSampleFlags(rawValue: flags))
                }
            }
            nextRunStart = end
        }
        let emptyDuration = tfhd.defaultSampleDuration ?? defaults.defaultSampleDuration
        if runIndex == 0, tfhd.isDurationEmpty, emptyDuration > 0 {
            // An empty fragment: time passes without samples, so the sample before it lasts longer.
            startNextSample(at: endTime &+ UInt64(emptyDuration), path: path + "/tfhd")
        }
        account(children: traf, path: path, firstSample: firstSample)
        if firstDecodeTimeTooLarge == nil { firstDecodeTimeTooLarge = decodeTimeTooLarge }
        return nextRunStart
    }

    /// `tfxd` and `tfrf` (Smooth Streaming's fragment time and the times of the next fragments).
    static let smoothTimingTypes: [[UInt8]: String] = [
        [0x6D, 0x1D, 0x9B, 0x05, 0x42, 0xD5, 0x44, 0xE6, 0x80, 0xE2, 0x14, 0x1D, 0xAF, 0xF7, 0x57, 0xB2]: "Smooth Streaming fragment times (uuid tfxd)",
        [0xD4, 0x80, 0x7E, 0xF2, 0xCA, 0x39, 0x46, 0x95, 0x8E, 0x54, 0x26, 0xCB, 0x9E, 0x46, 0xA7, 0x9F]: "Smooth Streaming next-fragment times (uuid tfrf)",
    ]

    /// Every traf child besides the run boxes (and padding): sample groups and sdtp are carried,
    /// sub-sample information refused, boxes that only describe the fragment dropped with a note.
    mutating func account(children traf: Box, path makePath: @autoclosure () -> String, firstSample: Int) {
        var path: String { makePath() }
        let added = count - firstSample
        var segment = SampleGroupSegment(sampleCount: added, isFragment: true, mappings: [], descriptions: [])
        var seen = BoxParser.SiblingCounter()
        for child in traf.children {
            let index = seen.next(child.type)
            var childPath: String { path + "/" + ParseContext.name(child.type, index: index) }
            switch child.type {
            case "tfhd", "tfdt", "trun", "senc", "saiz", "saio", "free", "skip":
                continue
            case "sbgp":
                segment.mappings.append((child, childPath))
            case "sgpd":
                segment.descriptions.append((child, childPath))
            case "sdtp":
                carryDependencies(child, path: childPath, firstSample: firstSample)
            case "subs":
                summary.refusals.append("\(childPath) at byte \(child.offset): sub-sample information of a track fragment is not merged into the sample table by keeptrack")
            case "uuid" where child.userType == Self.piffSampleEncryption:
                continue
            case "uuid":
                let kind = child.userType.flatMap { Self.smoothTimingTypes[$0] } ?? "uuid boxes of unknown meaning"
                drop(kind, childPath, child.offset)
            case "meta", "udta":
                drop("metadata (\(child.type)) that describes one fragment", childPath, child.offset)
            default:
                drop("\(child.type) boxes (unknown to keeptrack)", childPath, child.offset)
            }
        }
        if segment.mappings.isEmpty, segment.descriptions.isEmpty, let last = summary.groupSegments.last,
           last.mappings.isEmpty, last.descriptions.isEmpty {
            summary.groupSegments[summary.groupSegments.count - 1].sampleCount += added
        } else {
            summary.groupSegments.append(segment)
        }
    }

    mutating func drop(_ kind: String, _ path: String, _ offset: UInt64) {
        if let existing = summary.dropped[kind] {
            summary.dropped[kind] = (existing.count + 1, existing.path, existing.offset)
        } else {
            summary.dropped[kind] = (1, path, offset)
        }
    }

    /// A traf's own sdtp: one dependency byte per sample of the fragment (ISO 14496-12 8.6.4),
    /// agreeing with any dependencies its trun sample flags gave.
    mutating func carryDependencies(_ sdtp: Box, path: String, firstSample: Int) {
        let added = count - firstSample
        let bytes = Array(sdtp.payload.dropFirst(4))
        guard bytes.count >= added else {
            summary.refusals.append("\(path) at byte \(sdtp.offset): \(bytes.count) dependency bytes for the \(added) samples of its track fragment")
            return
        }
        if dependencies.isEmpty {
            guard bytes.prefix(added).contains(where: { $0 != 0 }) else { return }
            dependencies = Array(repeating: 0, count: count)
        }
        // Field by field (2 bits each): what one says and the other leaves 0 is added; a field both set differently is refused.
        for index in 0..<added {
            let fromFlags = dependencies[firstSample + index], fromBox = bytes[index]
            var merged: UInt8 = 0
            for shift in stride(from: 0, to: 8, by: 2) {
                let a = fromFlags >> shift & 3, b = fromBox >> shift & 3
                if a != 0, b != 0, a != b {
                    summary.refusals.append("\(path) at byte \(sdtp.offset): sample \(index + 1) of the track fragment has dependencies 0x\(String(fromBox, radix: 16)) in sdtp and 0x\(String(fromFlags, radix: 16)) in its trun sample flags")
                    return
                }
                merged |= (a != 0 ? a : b) << shift
            }
            dependencies[firstSample + index] = merged
        }
    }

    /// The next sample decodes at `time`: the last sample's duration absorbs the difference.
    mutating func startNextSample(at time: UInt64, path makePath: @autoclosure () -> String) {
        var path: String { makePath() }
        guard count > 0 else { pendingStart = time; return }
        guard time != endTime else { return }
        let runs = timeToSample.count / 2
        guard runs > 0 else { return }
        let last = Int64(timeToSample[runs * 2 - 1])
        // Decode times come from the file: any two may be far apart (no wrapping arithmetic on them).
        var delta: Int64
        if time < endTime {
            let back = endTime - time
            delta = back > UInt64(last) ? -1 : last - Int64(back)
        } else {
            let gap = time - endTime
            delta = gap > UInt64(UInt32.max) ? Int64(UInt32.max) + 1 : last + Int64(gap)
        }
        if delta < 0 { delta = 0 }
        if delta > Int64(UInt32.max) {
            summary.timingNotes.append("\(path): decode time \(time) leaves a gap longer than one sample duration can hold")
            delta = Int64(UInt32.max)
        }
        if timeToSample[runs * 2 - 2] <= 1 {
            timeToSample[runs * 2 - 1] = UInt32(delta)
        } else {
            timeToSample[runs * 2 - 2] -= 1
            timeToSample += [1, UInt32(delta)]
        }
        endTime = endTime &- UInt64(last) &+ UInt64(delta)
    }

    mutating func appendChunk(offset: UInt64, samples: Int, descriptionIndex: UInt32, runOffset: UInt64, run: RunLocation) {
        chunkOffsets.append(offset)
        let number = UInt32(chunkOffsets.count)
        let entries = sampleToChunk.count
        if !(entries >= 3 && sampleToChunk[entries - 2] == UInt32(samples) && sampleToChunk[entries - 1] == descriptionIndex) {
            sampleToChunk += [number, UInt32(samples), descriptionIndex]
        }
        summary.runOffsets.append(runOffset)
        summary.runLocations.append(run)
    }

    mutating func appendSample(size: UInt32, duration: UInt32, compositionOffset: Int64, flags: FragmentSampleFlags) {
        if count == 0, let start = pendingStart {
            firstDecodeTime = start
            endTime = start
        }
        sizes.append(size)
        let runs = timeToSample.count / 2
        if runs > 0, timeToSample[runs * 2 - 1] == duration {
            timeToSample[runs * 2 - 2] += 1
        } else {
            timeToSample += [1, duration]
        }
        if compositionOffset != 0 || !compositionOffsets.isEmpty {
            if compositionOffsets.isEmpty, count > 0 { compositionOffsets = [UInt32(count), 0] }
            if compositionOffset < 0 { signedOffsets = true }
            let bits = UInt32(truncatingIfNeeded: compositionOffset)
            let pairs = compositionOffsets.count / 2
            if pairs > 0, compositionOffsets[pairs * 2 - 1] == bits {
                compositionOffsets[pairs * 2 - 2] += 1
            } else {
                compositionOffsets += [1, bits]
            }
        }
        if !flags.isSync, syncSamples == nil { syncSamples = count == 0 ? [] : Array(1...UInt32(count)) }
        if flags.isSync, syncSamples != nil { syncSamples!.append(UInt32(count + 1)) }
        // The list starts at the first sample that says something, padded with "unknown" for those before.
        let dependency = flags.dependencyByte
        if dependency != 0, dependencies.isEmpty { dependencies = Array(repeating: 0, count: count) }
        if dependency != 0 || !dependencies.isEmpty { dependencies.append(dependency) }
        count += 1
        summary.sampleCount += 1
        endTime &+= UInt64(duration)
    }

    /// `n` samples alike, as `n` calls of `appendSample` would add them, in time that does not grow with
    /// `n`: a run without sample records may claim 2^19 samples in 28 bytes (the fuzzer's favourite).
    mutating func appendIdenticalSamples(_ n: Int, size: UInt32, duration: UInt32, flags: FragmentSampleFlags) {
        guard n > 0 else { return }
        appendSample(size: size, duration: duration, compositionOffset: 0, flags: flags)
        let rest = n - 1
        guard rest > 0 else { return }
        // After one such sample each choice appendSample makes is settled; the rest take the same branches:
        // the time-to-sample run and composition run (offset 0) it joined grow, sync numbers follow on.
        sizes.append(contentsOf: repeatElement(size, count: rest))
        timeToSample[timeToSample.count - 2] += UInt32(rest)
        if !compositionOffsets.isEmpty { compositionOffsets[compositionOffsets.count - 2] += UInt32(rest) }
        if flags.isSync, syncSamples != nil { syncSamples!.append(contentsOf: UInt32(count + 1)...UInt32(count + rest)) }
        if !dependencies.isEmpty { dependencies.append(contentsOf: repeatElement(flags.dependencyByte, count: rest)) }
        count += rest
        summary.sampleCount += rest
        endTime &+= UInt64(duration) &* UInt64(rest)
    }

    func table() -> SampleTable {
        let constant = sizes.first.map { first in sizes.allSatisfy { $0 == first } } ?? false
        var table = SampleTable(sampleCount: count, sizes: constant ? [] : sizes, constantSize: constant ? sizes[0] : 0,
                                chunkOffsets: chunkOffsets, sampleToChunk: sampleToChunk, timeToSample: timeToSample,
                                compositionOffsets: compositionOffsets, compositionOffsetsSigned: signedOffsets,
                                syncSamples: syncSamples, usesLargeOffsets: base.usesLargeOffsets)
        table.boxOffsets = base.boxOffsets
        table.dependencies = dependencies
        table.firstDecodeTime = firstDecodeTime
        return table
    }
}

/// The durations and edits a fragmented track has once its samples sit in one progressive table
/// whose media timeline starts at 0: `tkhd`, `mdhd` and `mvhd` of a fragmented movie describe only
/// the moov samples (0 with `empty_moov`, or all ones), and its first `tfdt` may start later than 0.
public struct DefragmentedTiming: Sendable, Equatable {
    /// Media duration (mdhd), in the media time scale.
    public var mediaDuration: UInt64
    /// Presented duration (tkhd), in the movie time scale.
    public var trackDuration: UInt64
    /// The edit list to write; nil when the track needs none.
    public var edits: [EditListBox.Entry]?

    /// `media` scaled from one time scale to another, rounded to nearest (saturating: TimeScale).
    static func scale(_ value: UInt64, from: UInt32, to: UInt32) -> UInt64 {
        TimeScale.convert(value, from: from, to: to, rounding: .nearest)
    }

    /// A track's timing from its whole table. Edits keep their meaning: media times move with the
    /// timeline (by the first decode time), an edit that ran to "the end" (the only non-empty edit,
    /// whose duration described the moov samples or was 0) runs to the end of every sample, and a
    /// first decode time later than 0 becomes an empty edit in front, lasting until the first frame shown.
    /// `stblMediaDuration`: what the moov samples alone last (an edit no longer than that described only them).
    public init(table: SampleTable, source: EditListBox?, mediaTimescale: UInt32, movieTimescale: UInt32, stblMediaDuration: UInt64) {
        let start = table.firstDecodeTime
        mediaDuration = table.mediaDuration
        // Where presentation ends, on the timeline starting at 0: composition offsets reach past the last decode time.
        let presentationEnd = max(table.compositionEnd, start) - start
        let toMovie = { (media: UInt64) in Self.scale(media, from: mediaTimescale, to: movieTimescale) }
        // The first frame shown (B-frames: later than the first decode time), and a wait that ends there:
        // ffmpeg shows an edit's first frame where the edit starts, so an empty edit that ended at the first
        // decode time showed it early. Whole movie ticks (rounded down), and the media time moved back to the
        // same instant, keep that frame at its own time, to the media tick. `from`: where the wait starts.
        let firstShown = max(table.compositionStart, start)
        func wait(from mediaTime: UInt64) -> (entry: EditListBox.Entry, showsFrom: UInt64) {
            let (empty, waited) = EditListBox.Entry.wait(media: firstShown - mediaTime, mediaTimescale: mediaTimescale, movieTimescale: movieTimescale)
            return (empty, max(start, min(firstShown, mediaTime &+ waited)))
        }
        var edits: [EditListBox.Entry] = []
        if let source, !source.entries.isEmpty {
            let presented = source.entries.filter { $0.mediaTime >= 0 }
            for var entry in source.entries {
                if entry.mediaTime >= 0 {
                    var mediaTime = UInt64(entry.mediaTime)
                    if mediaTime < firstShown {
                        // The edit starts before the first frame shown (before the first sample, or within the
                        // first composition offset: VLC's mp4frag): that part shows nothing.
                        let (empty, showsFrom) = wait(from: mediaTime)
                        edits.append(empty)
                        entry.segmentDuration = entry.segmentDuration > empty.segmentDuration ? entry.segmentDuration - empty.segmentDuration : 0
                        mediaTime = showsFrom
                    }
                    entry.mediaTime = Int64(mediaTime - start)
                    let remaining = toMovie(presentationEnd > mediaTime - start ? presentationEnd - (mediaTime - start) : 0)
                    let describedOnlyMoov = entry.segmentDuration <= toMovie(stblMediaDuration)
                    if presented.count == 1, entry.segmentDuration == 0 || entry.segmentDuration > remaining || describedOnlyMoov {
                        entry.segmentDuration = remaining
                    }
                }
                edits.append(entry)
            }
        } else if start > 0 {
            // No edit list: each sample shows at its composition time, so the wait lasts until the first frame
            // shown and the edit runs to the end of the last one (the media duration fell short by the
            // composition offset: B-frames lost the last frames).
            let (empty, showsFrom) = wait(from: 0)
            let editStart = showsFrom - start
            var whole = EditListBox.Entry()
            whole.mediaTime = Int64(clamping: editStart)
            whole.segmentDuration = toMovie(max(presentationEnd, mediaDuration) - min(editStart, max(presentationEnd, mediaDuration)))
            edits = [empty, whole]
        }
        self.edits = edits.isEmpty ? nil : edits
        trackDuration = edits.isEmpty ? toMovie(mediaDuration) : edits.reduce(0) { $0 &+ $1.segmentDuration }
    }
}

extension EditListBox.Entry {
    /// An empty edit of whole movie ticks (rounded down) for a wait of `media` media units, and how many media
    /// units it lasts (at most `media`): an edit that starts that much later in media time shows the frame
    /// that waited at its own time, to the media tick. ffmpeg shows an edit's first frame where the edit
    /// starts, so a late first frame (B-frames) must wait in an empty edit, not inside the presented one.
    public static func wait(media: UInt64, mediaTimescale: UInt32, movieTimescale: UInt32) -> (entry: Self, media: UInt64) {
        var empty = Self()
        empty.mediaTime = -1
        empty.segmentDuration = TimeScale.convert(media, from: mediaTimescale, to: movieTimescale, rounding: .down)
        return (empty, min(media, TimeScale.convert(empty.segmentDuration, from: movieTimescale, to: mediaTimescale, rounding: .down)))
    }
}

extension SampleTable {
    /// The latest decode time + composition offset + duration of any sample (the end of presentation
    /// before edits), on the table's own timeline; the last sample lasts the last time-to-sample delta.
    ///
    /// It walks the time-to-sample and composition-offset runs together, not the samples: within a stretch
    /// where both stay the same each sample ends later than the one before, so the stretch's last sample is
    /// its latest end (a fragmented file may claim 2^19 samples in a few bytes). A stretch whose sums
    /// would wrap is walked sample by sample, with the same wrapping arithmetic as the sample iterator.
    public var compositionEnd: UInt64 {
        guard sampleCount > 0 else { return 0 }
        var stts = RunCursor(pairs: timeToSample), ctts = RunCursor(pairs: compositionOffsets)
        var decode = firstDecodeTime
        var end: Int64 = 0
        var index = 0
        while index < sampleCount - 1 {
            let delta = stts.value(), offset = Int64(Int32(bitPattern: ctts.value()))
            let count = min(stts.left, ctts.left, sampleCount - 1 - index)
            let first = Int64(bitPattern: decode)
            let (span, o1) = Int64(count - 1).multipliedReportingOverflow(by: Int64(delta))
            let (last, o2) = first.addingReportingOverflow(span)
            let (_, o3) = first.addingReportingOverflow(offset)
            let (lastOffset, o4) = last.addingReportingOverflow(offset)
            let (lastEnd, o5) = lastOffset.addingReportingOverflow(Int64(delta))
            // Every sum between the first and the last sample's lies between theirs (delta >= 0).
            if !(o1 || o2 || o3 || o4 || o5) {
                end = max(end, lastEnd)
            } else {
                var time = decode
                for _ in 0..<count {
                    end = max(end, Int64(bitPattern: time) &+ offset &+ Int64(delta))
                    time &+= UInt64(delta)
                }
            }
            decode &+= UInt64(count) &* UInt64(delta)
            index += count
            stts.consume(count)
            ctts.consume(count)
        }
        let lastDelta = timeToSample.count >= 2 ? Int64(timeToSample[timeToSample.count - 1]) : 0
        end = max(end, Int64(bitPattern: decode) &+ Int64(Int32(bitPattern: ctts.value())) &+ lastDelta)
        return UInt64(max(end, 0))
    }

    /// The earliest decode time + composition offset of any sample (where presentation starts before
    /// edits), on the table's own timeline, with the sample iterator's wrapping arithmetic; 0 for an empty
    /// table and for a start before 0 (signed offsets). Like `compositionEnd` it walks runs: within a stretch
    /// where the time-to-sample delta and the offset stay the same, the stretch's first sample starts first.
    public var compositionStart: UInt64 {
        guard sampleCount > 0 else { return 0 }
        var stts = RunCursor(pairs: timeToSample), ctts = RunCursor(pairs: compositionOffsets)
        var decode = firstDecodeTime
        var start = Int64.max
        var index = 0
        while index < sampleCount {
            let count = min(stts.left, ctts.left, sampleCount - index)
            let first = Int64(bitPattern: decode) &+ Int64(Int32(bitPattern: ctts.value()))
            let (span, o1) = Int64(count - 1).multipliedReportingOverflow(by: Int64(stts.value()))
            // A stretch whose times wrap past the largest Int64 has a sample just past it, below 0.
            if o1 || first.addingReportingOverflow(span).overflow { return 0 }
            start = min(start, first)
            decode &+= UInt64(count) &* UInt64(stts.value())
            index += count
            stts.consume(count)
            ctts.consume(count)
        }
        return UInt64(max(start, 0))
    }

    /// A run-length table (count, value pairs) read as the sample iterator reads it: runs of 0 samples
    /// are skipped, and past the last run its value holds for every further sample (0 for no runs).
    struct RunCursor {
        let pairs: [UInt32]
        var run = 0
        var remaining: Int

        init(pairs: [UInt32]) {
            self.pairs = pairs
            remaining = pairs.isEmpty ? 0 : Int(pairs[0])
            settle()
        }

        mutating func settle() {
            while remaining == 0, run * 2 + 2 < pairs.count {
                run += 1
                remaining = Int(pairs[run * 2])
            }
        }

        /// Samples left at the current value (unbounded on the last run's extension).
        var left: Int { remaining > 0 ? remaining : Int.max }
        func value() -> UInt32 { pairs.isEmpty ? 0 : pairs[run * 2 + 1] }

        mutating func consume(_ count: Int) {
            guard remaining > 0 else { return }
            remaining -= count
            settle()
        }
    }
}

extension Track {
    /// The sample table with the fragments' samples, and the timing they give, set together: the
    /// timing walks every sample, so it is worked out once here, not on each duration asked for.
    mutating func mergeFragments(table: SampleTable, summary: TrackFragments) {
        sampleTable = table
        fragments = summary
        defragmentedTiming = timingFromEverySample()
    }

    func timingFromEverySample() -> DefragmentedTiming? {
        guard let fragments, fragments.addsSamples else { return nil }
        var stblDuration: UInt64 = 0
        var iterator = sampleTable.samples.makeIterator()
        if fragments.stblSampleCount > 0 {
            // Decode time of the first fragment sample, less the start: what the moov samples last.
            for _ in 0..<fragments.stblSampleCount { _ = iterator.next() }
            stblDuration = (iterator.next()?.decodeTime ?? sampleTable.firstDecodeTime) - sampleTable.firstDecodeTime
        }
        return DefragmentedTiming(table: sampleTable, source: editList, mediaTimescale: mediaHeader.timescale, movieTimescale: movieTimescale,
                                  stblMediaDuration: stblDuration)
    }
}

extension Movie {
    /// What a progressive copy of this fragmented movie leaves out besides the fragment indexes
    /// (sidx, mfra: see `MovieWriter.droppedIndexNotes`), one sentence per kind: top-level event
    /// messages and producer times, moof boxes other than mfhd and traf, and each track's traf
    /// boxes that describe only their fragment.
    public var fragmentNotes: [String] {
        guard isFragmented else { return [] }
        var notes: [String] = []
        for (type, reason) in Self.fragmentTimedTypes.sorted(by: { $0.key.description < $1.key.description }) {
            let found = boxes.filter { $0.type == type }
            guard let first = found.first else { continue }
            let what = found.count == 1 ? "\(type) at byte \(first.offset)" : "\(found.count) \(type) boxes (the first at byte \(first.offset))"
            notes.append("dropped \(what): \(reason)")
        }
        var extra: [FourCC: (count: Int, offset: UInt64)] = [:]
        for moof in boxes where moof.type == "moof" {
            for child in moof.children where child.type != "mfhd" && child.type != "traf" {
                extra[child.type] = (extra[child.type].map { $0.count + 1 } ?? 1, extra[child.type]?.offset ?? child.offset)
            }
        }
        for type in extra.keys.sorted(by: { $0.description < $1.description }) {
            let (count, offset) = extra[type]!
            notes.append("dropped \(count == 1 ? "moof/\(type) at byte \(offset)" : "\(count) moof/\(type) boxes (the first at byte \(offset))"): it describes a movie fragment, and the progressive output has none")
        }
        for track in tracks {
            notes += (track.fragments?.droppedNotes ?? []).map { "track \(track.id): " + $0 }
            notes += (track.fragments?.decodeTimeNotes(timescale: track.mediaHeader.timescale) ?? []).map { "track \(track.id): " + $0 }
        }
        return notes
    }

    /// Top-level boxes timed against the fragments or segments of a fragmented movie.
    static let fragmentTimedTypes: [FourCC: String] = [
        "emsg": "an event message is timed against the segment it arrived in, and the progressive output has no segments",
        "prft": "a producer reference time names a fragment's decode time, and the progressive output has no fragments",
    ]
}
