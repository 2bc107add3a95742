/// One track of a repaired recording: the samples found for it, in data order, and the reference
/// track whose sample entry and header describe them; made into an `OutputTrack` for the writer.
public struct RecoveredTrack: Sendable {
    public let shape: RecordingReference.TrackShape
    public var offsets: [UInt64] = []
    public var sizes: [UInt32] = []
    public var syncs: [Bool] = []
    /// Where each run (one chunk) starts, as sample indexes.
    public var runStarts: [Int] = []

    public init(shape: RecordingReference.TrackShape, runs: [RecordingRepair.Run]) {
        self.shape = shape
        for run in runs {
            runStarts.append(sizes.count)
            var offset = run.offset
            for size in run.sizes {
                offsets.append(offset)
                offset += UInt64(size)
            }
            sizes += run.sizes
            syncs += run.syncs
        }
    }

    public var count: Int { sizes.count }

    /// Keeps the first `count` samples (a decoder refused the next).
    public mutating func keepFirst(_ count: Int) {
        offsets = Array(offsets.prefix(count)); sizes = Array(sizes.prefix(count)); syncs = Array(syncs.prefix(count))
        runStarts = runStarts.filter { $0 < count }
    }

    /// The track for the writer: the reference's trak (sample entry, header, references) with a sample
    /// table of these samples, each lasting the reference's usual duration. `presentationRanks`: each
    /// sample's place in presentation order (a video decoder's output order, with gaps where pictures
    /// were left out), for composition offsets;
    /// the edit starts at the first picture shown (or where the reference's audio edit starts: priming).
    /// `reorderDelay`: the decoder's delay in pictures, the least the decode times run ahead (a few pictures
    /// kept need not show all of it).
    public func outputTrack(source: ByteSource, movieTimescale: UInt32, presentationRanks: [Int]? = nil, reorderDelay: Int = 0) throws -> OutputTrack {
        let delta = UInt64(shape.sampleDelta)
        var compositionOffsets: [UInt32] = []
        var mediaTime: Int64 = shape.track.editList?.entries.first { $0.mediaTime >= 0 }?.mediaTime ?? 0
        if let ranks = presentationRanks, ranks.count == count, reorderDelay > 0 || ranks.enumerated().contains(where: { $0.offset != $0.element }) {
            // Ranks may skip places (pictures shown before a kept one that were left out): times stay absolute.
            let delay = max(ranks.enumerated().map { $0.offset - $0.element }.max() ?? 0, reorderDelay)
            for (index, rank) in ranks.enumerated() {
                let offset = UInt32(clamping: (rank + delay - index).multipliedReportingOverflow(by: Int(delta)).partialValue)
                if compositionOffsets.count >= 2, compositionOffsets[compositionOffsets.count - 1] == offset {
                    compositionOffsets[compositionOffsets.count - 2] += 1
                } else {
                    compositionOffsets += [1, offset]
                }
            }
            mediaTime = Int64(delay) * Int64(delta)
        } else if presentationRanks != nil {
            mediaTime = 0
        }
        var stsc: [UInt32] = []
        for (run, start) in runStarts.enumerated() {
            let end = run + 1 < runStarts.count ? runStarts[run + 1] : count
            if stsc.count >= 3, stsc[stsc.count - 2] == UInt32(end - start) { continue }
            stsc += [UInt32(run + 1), UInt32(end - start), 1]
        }
        let allSync = syncs.allSatisfy { $0 }
        var table = SampleTable(sampleCount: count, sizes: sizes, constantSize: 0, chunkOffsets: runStarts.map { offsets[$0] }, sampleToChunk: stsc,
                                timeToSample: count > 0 ? [UInt32(count), UInt32(delta)] : [], compositionOffsets: compositionOffsets,
                                syncSamples: allSync ? nil : syncs.enumerated().filter(\.element).map { UInt32($0.offset + 1) },
                                usesLargeOffsets: (offsets.last ?? 0) > UInt64(UInt32.max))
        table.firstDecodeTime = 0
        var edit = EditListBox.Entry()
        edit.mediaTime = mediaTime
        var edits = EditListBox()
        edits.entries = [edit]
        let timescale = shape.track.mediaHeader.timescale
        let timing = DefragmentedTiming(table: table, source: edits, mediaTimescale: timescale, movieTimescale: movieTimescale,
                                        stblMediaDuration: table.mediaDuration)
        var trak = shape.track.box
        // Only the sample description describes these samples; the reference's groups, dependencies and
        // sub-sample tables describe its own.
        trak.modifySampleTable { children in children.removeAll { $0.type != "stsd" } }
        return try OutputTrack(trak: trak, rebuilding: table, timing: timing, data: source, timescale: timescale)
    }
}
