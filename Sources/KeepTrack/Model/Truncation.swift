/// A movie whose moov is whole but whose media data stops early (a copy or download cut short, a card
/// pulled): the last mdat claims more bytes than the file holds and samples lie in the missing part.
/// Opened with `allowingTruncation`, each track keeps its complete samples (the longest run from the
/// first in decode order whose bytes are all in the file); `salvage` writes them.
public struct Truncation: Sendable, Equatable {
    /// The mdat the file ends inside.
    public var mediaDataOffset: UInt64
    /// Where that mdat says it ends (nil for an mdat running "to the end of the file").
    public var declaredEnd: UInt64?
    public var fileSize: UInt64
    public var tracks: [TrackState]

    /// What one track keeps and loses.
    public struct TrackState: Sendable, Equatable {
        public var trackID: UInt32
        public var kind: TrackKind
        public var totalSamples: Int
        public var completeSamples: Int
        /// Media seconds at which the complete samples end (decode time of the first missing one).
        public var completeUntil: Double
        /// Bytes of the track's samples that are not in the file.
        public var missingBytes: UInt64
        /// Earliest presentation (media units from the first decode time, before edits) of a missing
        /// sample: where what can be shown of the track ends. Nil when nothing is missing.
        var firstMissingPresentation: Int64?
        /// Where the sample the file ends inside begins (its first bytes are in the file, not referenced
        /// by the complete samples); nil when the cut falls between this track's samples.
        var partialSampleOffset: UInt64?
        public var isCut: Bool { completeSamples < totalSamples }
    }

    /// Bytes the mdat claims beyond the end of the file (nil when it does not say).
    public var missingFileBytes: UInt64? { declaredEnd.map { $0 > fileSize ? $0 - fileSize : 0 } }

    public var cutTracks: [TrackState] { tracks.filter(\.isCut) }

    /// One line per cut track: "track 1 (video): 120 of 300 samples complete, to 4.000 s, 1,234 bytes missing".
    public var trackLines: [String] {
        cutTracks.map { state in
            "track \(state.trackID) (\(state.kind.rawValue)): \(state.completeSamples) of \(state.totalSamples) samples complete, "
                + "to \(Trim.format(seconds: state.completeUntil)) s, \(state.missingBytes) bytes missing"
        }
    }

    public var summary: String {
        let claim = declaredEnd.map { "claims bytes up to \($0)" } ?? "runs to the end of the file"
        return "mdat at byte \(mediaDataOffset) \(claim), the file ends at \(fileSize): truncated, "
            + "\(cutTracks.count) of \(tracks.count) track\(tracks.count == 1 ? "" : "s") cut short"
    }

    public var json: JSONValue {
        let trackValues: [JSONValue] = tracks.map { state in
            let pairs: [(String, JSONValue)] = [
                ("id", .int(Int64(state.trackID))), ("kind", .string(state.kind.rawValue)),
                ("samples", .int(Int64(state.totalSamples))), ("completeSamples", .int(Int64(state.completeSamples))),
                ("completeUntil", .double((state.completeUntil * 1_000_000).rounded() / 1_000_000)),
                ("missingBytes", .int(Int64(state.missingBytes))),
            ]
            return .object(pairs)
        }
        let declared: JSONValue = declaredEnd.map { .int(Int64($0)) } ?? .null
        let missing: JSONValue = missingFileBytes.map { .int(Int64($0)) } ?? .null
        let pairs: [(String, JSONValue)] = [
            ("mdatOffset", .int(Int64(mediaDataOffset))), ("declaredEnd", declared), ("fileSize", .int(Int64(fileSize))),
            ("missingBytes", missing), ("tracks", .array(trackValues)),
        ]
        return .object(pairs)
    }

    /// The file's last top-level box when it is an mdat the file may end inside: one claiming more
    /// bytes than remain, or one running to the end of the file (its size field 0).
    static func lastMediaData(_ boxes: [Box], source: ByteSource) -> (box: Box, declaredEnd: UInt64?)? {
        if let short = BoxParser.shortMediaData(boxes, source: source) {
            return (short.box, short.box.offset + short.declaredSize)
        }
        guard let last = boxes.last, last.type == "mdat", last.headerForm == .toEnd else { return nil }
        return (last, nil)
    }

    /// Whether `table`'s chunks past the end of a `fileSize`-byte file are explained by the file being
    /// cut inside `mdat`: each starts inside it and ends within what it claims. A chunk elsewhere is
    /// a broken table, not a short file.
    static func explains(_ table: SampleTable, mdat: Box, declaredEnd: UInt64?, fileSize: UInt64) -> Bool {
        var iterator = table.makeChunkIterator()
        while let chunk = iterator.next() {
            let (end, overflow) = chunk.offset.addingReportingOverflow(chunk.byteCount)
            guard overflow || end > fileSize else { continue }
            if overflow || chunk.offset < mdat.offset { return false }
            if let declaredEnd, end > declaredEnd { return false }
        }
        return true
    }

    /// The complete samples of `track` in a file of `fileSize` bytes, and its table cut to them.
    static func state(of track: Track, fileSize: UInt64) -> (TrackState, SampleTable) {
        let table = track.sampleTable
        var complete = 0
        var stillComplete = true
        var missing: UInt64 = 0
        var completeEnd = table.firstDecodeTime
        var firstMissing: Int64?
        var partial: UInt64?
        for sample in table.samples {
            let end = sample.offset &+ UInt64(sample.size)
            if end > fileSize || end < sample.offset {
                missing &+= end < sample.offset ? UInt64(sample.size) : end - max(sample.offset, fileSize)
                // The complete samples end where the first missing one begins.
                if stillComplete { completeEnd = sample.decodeTime }
                if sample.offset < fileSize, end >= sample.offset { partial = sample.offset }
                stillComplete = false
                let shown = Int64(bitPattern: sample.decodeTime &- table.firstDecodeTime) &+ sample.compositionOffset
                firstMissing = min(firstMissing ?? shown, shown)
            } else if stillComplete {
                complete += 1
            }
        }
        if stillComplete { completeEnd = table.firstDecodeTime &+ table.mediaDuration }
        let scale = Double(max(track.mediaHeader.timescale, 1))
        let until = complete == 0 ? 0 : Double(completeEnd &- table.firstDecodeTime) / scale
        let state = TrackState(trackID: track.id, kind: track.kind, totalSamples: table.sampleCount, completeSamples: complete,
                               completeUntil: until, missingBytes: missing, firstMissingPresentation: firstMissing,
                               partialSampleOffset: partial)
        return (state, complete == table.sampleCount ? table : table.prefix(complete, sdtp: track.box.find(["mdia", "minf", "stbl", "sdtp"])))
    }
}

extension SampleTable {
    /// The first `count` samples in decode order, at their offsets in the file (a truncated file's
    /// complete samples); `sdtp`'s bytes for them ride along as dependencies.
    func prefix(_ count: Int, sdtp: Box?) -> SampleTable {
        var chunkOffsets: [UInt64] = [], stsc: [UInt32] = [], sizesOut: [UInt32] = []
        var previousChunk = -1, inChunk: UInt32 = 0, chunkDescription: UInt32 = 0
        func closeChunk() {
            guard inChunk > 0 else { return }
            if stsc.count >= 3, stsc[stsc.count - 2] == inChunk, stsc[stsc.count - 1] == chunkDescription { return }
            stsc += [UInt32(chunkOffsets.count), inChunk, chunkDescription]
        }
        for sample in samples.prefix(count) {
            if sample.chunk != previousChunk {
                closeChunk()
                chunkOffsets.append(sample.offset)
                inChunk = 0
                previousChunk = sample.chunk
                chunkDescription = sample.descriptionIndex
            }
            inChunk += 1
            if !sizes.isEmpty { sizesOut.append(sample.size) }
        }
        closeChunk()
        var table = SampleTable(sampleCount: count, sizes: sizesOut, constantSize: sizes.isEmpty ? constantSize : 0,
                                chunkOffsets: chunkOffsets, sampleToChunk: stsc,
                                timeToSample: Trim.slice(runs: timeToSample, range: 0..<count),
                                compositionOffsets: compositionOffsets.isEmpty ? [] : Trim.slice(runs: compositionOffsets, range: 0..<count),
                                compositionOffsetsSigned: compositionOffsetsSigned,
                                syncSamples: syncSamples?.filter { Int($0) <= count }, usesLargeOffsets: usesLargeOffsets)
        table.firstDecodeTime = firstDecodeTime
        table.boxOffsets = boxOffsets
        if dependencies.count == sampleCount {
            table.dependencies = Array(dependencies.prefix(count))
        } else if let sdtp, sdtp.payload.count >= 4 + sampleCount {
            table.dependencies = Array(sdtp.payload.dropFirst(4).prefix(count))
        }
        return table
    }
}
