/// How samples are grouped into chunks and chunks ordered in `mdat`: interleaved by decode time,
/// about `chunkDuration` seconds per chunk for every track, so a player reading front to back finds
/// audio and video for the same moment close together.
public struct ChunkPlan: Sendable {
    public struct Chunk: Sendable, Equatable {
        public var track: Int
        public var firstSample: Int
        public var sampleCount: Int
        public var byteCount: UInt64
        public var descriptionIndex: UInt32
    }

    /// Chunks in file order.
    public var chunks: [Chunk]
    /// Total sample bytes.
    public var totalBytes: UInt64

    public init(tracks: [OutputTrack], chunkDuration: Double) {
        var iterators = tracks.map { $0.table.samples.makeIterator() }
        var pending: [Sample?] = iterators.indices.map { iterators[$0].next() }
        var chunks: [Chunk] = []
        var total: UInt64 = 0
        let scales = tracks.map { Double(max($0.timescale, 1)) }
        var windowEnd = chunkDuration
        while true {
            // The earliest pending sample decides where the next window ends (skips long gaps at once).
            var earliest = Double.infinity
            for index in pending.indices { if let sample = pending[index] { earliest = min(earliest, Double(sample.decodeTime) / scales[index]) } }
            guard earliest.isFinite else { break }
            if earliest >= windowEnd { windowEnd = (earliest / chunkDuration).rounded(.down) * chunkDuration + chunkDuration }
            for index in tracks.indices {
                var current: Chunk?
                while let sample = pending[index], Double(sample.decodeTime) / scales[index] < windowEnd {
                    if var open = current, open.descriptionIndex == sample.descriptionIndex {
                        open.sampleCount += 1
                        open.byteCount += UInt64(sample.size)
                        current = open
                    } else {
                        if let open = current { chunks.append(open) }
                        current = Chunk(track: index, firstSample: sample.index, sampleCount: 1, byteCount: UInt64(sample.size),
                                        descriptionIndex: sample.descriptionIndex)
                    }
                    total += UInt64(sample.size)
                    pending[index] = iterators[index].next()
                }
                if let open = current { chunks.append(open) }
            }
            windowEnd += chunkDuration
        }
        self.chunks = chunks
        totalBytes = total
    }
}
