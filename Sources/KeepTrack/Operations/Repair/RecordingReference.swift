/// What a healthy recording of the same device and settings says about a broken one: each track's
/// sample entry and timing, how its samples are recognised, and the order in which its writer
/// interleaves chunks (which track's chunk follows which). `repair` finds samples with it.
public struct RecordingReference: Sendable {
    public enum SampleSyntax: Sendable, Equatable {
        /// Length-prefixed NAL units (avcC/hvcC say the length size): self-delimiting.
        case avc(lengthSize: Int), hevc(lengthSize: Int)
        /// Raw AAC frames: no length; the decoder finds where one ends.
        case aac
        /// Samples of one constant size made of [size, key] items (Apple's timed metadata, mebx), each
        /// with the items (size, key) of the reference's first sample.
        case keyedMetadata(size: Int, items: [[Int]])
        /// Neither self-delimiting nor decodable here (APAC, variable-size metadata): located by the chunk pattern only.
        case opaque
    }

    public struct TrackShape: Sendable {
        public var track: Track
        public var syntax: SampleSyntax
        /// The most common sample duration, in the media time scale.
        public var sampleDelta: UInt32
        public var smallestSample: UInt32
        public var largestSample: UInt32
        /// The most samples one of its chunks holds.
        public var largestChunk: Int
        public var id: UInt32 { track.id }
    }

    public let movie: Movie
    public var tracks: [TrackShape]
    /// Track id pairs (a, b): somewhere a chunk of b directly follows a chunk of a.
    public var followers: Set<[UInt32]>
    /// The track of the reference's first chunk.
    public var firstTrack: UInt32?

    public init(movie: Movie) throws {
        self.movie = movie
        var shapes: [TrackShape] = []
        var chunks: [(offset: UInt64, track: UInt32)] = []
        for track in movie.tracks where track.sampleTable.sampleCount > 0 {
            let table = track.sampleTable
            let sizes = table.sizes.isEmpty ? [table.constantSize] : table.sizes
            var largestChunk = 0
            var iterator = table.makeChunkIterator()
            while let chunk = iterator.next() {
                largestChunk = max(largestChunk, chunk.sampleCount)
                chunks.append((chunk.offset, track.id))
            }
            shapes.append(TrackShape(track: track, syntax: Self.syntax(of: track, sizes: sizes, source: movie.source), sampleDelta: Self.commonDelta(table.timeToSample),
                                     smallestSample: sizes.min() ?? 0, largestSample: sizes.max() ?? 0, largestChunk: largestChunk))
        }
        guard !shapes.isEmpty else { throw KeepTrackError.unsupported("the reference has no samples to learn the recording's layout from") }
        tracks = shapes
        chunks.sort { $0.offset < $1.offset }
        firstTrack = chunks.first?.track
        followers = Set(zip(chunks, chunks.dropFirst()).map { [$0.track, $1.track] })
    }

    public func shape(_ id: UInt32) -> TrackShape? { tracks.first { $0.id == id } }

    /// True when a chunk of `next` may follow one of `previous` (any track may open the data).
    public func mayFollow(_ previous: UInt32?, _ next: UInt32) -> Bool {
        guard let previous else { return true }
        return followers.contains([previous, next])
    }

    static func syntax(of track: Track, sizes: [UInt32], source: ByteSource) -> SampleSyntax {
        let entry = track.sampleEntries.first
        if let avcC = entry?.first("avcC")?.payload, avcC.count > 4 { return .avc(lengthSize: Int(avcC[4] & 3) + 1) }
        if let hvcC = entry?.first("hvcC")?.payload, hvcC.count > 21 { return .hevc(lengthSize: Int(hvcC[21] & 3) + 1) }
        if track.format == "mp4a", track.mp4aObjectType == 0x40 || track.mp4aObjectType == 0x67 { return .aac }
        if track.format == "mebx", Set(sizes).count == 1, let size = sizes.first, size >= 8, let first = track.sampleTable.samples.first(where: { _ in true }),
           let bytes = try? source.read(at: first.offset, count: Int(size)), let items = keyedItems(bytes) {
            return .keyedMetadata(size: Int(size), items: items)
        }
        return .opaque
    }

    /// The (size, key) of each [32-bit size ≥ 8, 32-bit key 1...255] item filling `bytes` exactly; nil when they do not.
    public static func keyedItems(_ bytes: [UInt8]) -> [[Int]]? {
        var items: [[Int]] = []
        var at = 0
        while at < bytes.count {
            guard at + 8 <= bytes.count else { return nil }
            let itemSize = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            let key = bytes[(at + 4)..<(at + 8)].reduce(0) { $0 << 8 | Int($1) }
            guard itemSize >= 8, at + itemSize <= bytes.count, (1...255).contains(key) else { return nil }
            items.append([itemSize, key])
            at += itemSize
        }
        return items
    }

    static func commonDelta(_ pairs: [UInt32]) -> UInt32 {
        var counts: [UInt32: UInt64] = [:]
        for run in stride(from: 0, to: pairs.count - 1, by: 2) { counts[pairs[run + 1], default: 0] += UInt64(pairs[run]) }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? 1
    }
}
