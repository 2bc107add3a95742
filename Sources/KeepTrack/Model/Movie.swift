/// A movie file opened for reading: the box tree (with `mdat` left in the file), the tracks
/// and the movie-level metadata.
public struct Movie: Sendable {
    public let source: ByteSource
    public var boxes: [Box]
    public let fileType: FileTypeBox?
    public let header: MovieHeaderBox
    public var tracks: [Track]
    /// Movie-level QuickTime metadata (`moov/meta` keys and values), in file order.
    public let metadata: [(key: String, value: String)]

    public static func open(path: String) throws -> Movie {
        try Movie(source: FileByteSource(path: path))
    }

    public init(source: ByteSource) throws {
        self.source = source
        boxes = try BoxParser.parseFile(source)
        fileType = try boxes.first { $0.type == "ftyp" }.map { try FileTypeBox(box: $0) }
        guard let moov = boxes.first(where: { $0.type == "moov" }) else {
            let types = boxes.prefix(8).map(\.type.description).joined(separator: ", ")
            throw KeepTrackError.malformed(path: "", offset: 0, reason: "no moov box: not a QuickTime or MP4 movie (top-level boxes: \(types))")
        }
        guard let mvhdBox = moov.first("mvhd") else {
            throw KeepTrackError.malformed(path: "moov", offset: moov.offset, reason: "movie has no mvhd")
        }
        let version = mvhdBox.payload.first ?? 0
        if mvhdBox.payload.count < (version == 1 ? 108 : 96) {
            throw KeepTrackError.malformed(path: "moov/mvhd", offset: mvhdBox.offset, reason: "is \(mvhdBox.payload.count) bytes, too short for version \(version)")
        }
        header = try MovieHeaderBox(box: mvhdBox, path: "moov/mvhd")
        var tracks: [Track] = []
        var seen: Set<UInt32> = []
        for (index, trak) in moov.all("trak").enumerated() {
            let track = try Track(box: trak, path: "moov/trak" + (index == 0 ? "" : "[\(index + 1)]"), movieTimescale: header.timescale)
            guard track.id != 0 else {
                throw KeepTrackError.malformed(path: track.path + "/tkhd", offset: trak.offset, reason: "track id 0 is not allowed")
            }
            guard seen.insert(track.id).inserted else {
                throw KeepTrackError.malformed(path: track.path + "/tkhd", offset: trak.offset, reason: "track id \(track.id) is used twice")
            }
            try track.sampleTable.validate(fileSize: source.size, path: track.path + "/mdia/minf/stbl", offset: trak.offset)
            tracks.append(track)
        }
        try Self.checkChunksDoNotOverlap(tracks)
        self.tracks = tracks
        metadata = Self.readMetadata(moov.first("meta"))
    }

    /// No byte of the file may belong to two chunks (of one track or of two): no writer produces that,
    /// and a copy would duplicate the bytes or a repair change two tracks at once. Linear in chunks.
    static func checkChunksDoNotOverlap(_ tracks: [Track]) throws {
        var extents: [(start: UInt64, end: UInt64, track: Int, chunk: Int)] = []
        for (index, track) in tracks.enumerated() {
            var iterator = track.sampleTable.makeChunkIterator()
            while let chunk = iterator.next() {
                if chunk.byteCount > 0 { extents.append((chunk.offset, chunk.offset + chunk.byteCount, index, chunk.index)) }
            }
        }
        extents.sort { $0.start < $1.start }
        for (previous, next) in zip(extents, extents.dropFirst()) where next.start < previous.end {
            let track = tracks[next.track], other = tracks[previous.track]
            let table = track.sampleTable
            let box: FourCC = table.usesLargeOffsets ? "co64" : "stco"
            throw KeepTrackError.malformed(
                path: track.path + "/mdia/minf/stbl/" + box.description, offset: table.boxOffsets[box] ?? track.box.offset,
                reason: "chunk \(next.chunk + 1) of track \(track.id) (bytes \(next.start)..<\(next.end)) overlaps chunk \(previous.chunk + 1) of track \(other.id) (bytes \(previous.start)..<\(previous.end))")
        }
    }

    public var moov: Box { boxes.first { $0.type == "moov" }! }

    /// QuickTime (`qt  ` brand, or no ftyp at all) or ISO/MP4.
    public var isQuickTime: Bool {
        guard let fileType else { return true }
        return fileType.majorBrand == "qt  "
    }

    /// moov before the first mdat: playback can start before the whole file arrives.
    public var isFastStart: Bool {
        guard let moovIndex = boxes.firstIndex(where: { $0.type == "moov" }) else { return false }
        guard let mdatIndex = boxes.firstIndex(where: { $0.type == "mdat" }) else { return true }
        return moovIndex < mdatIndex
    }

    /// Movie duration in seconds: mvhd's; when mvhd says "unknown" (all ones) or has no time
    /// scale, the longest track's; nil when no duration is known.
    public var duration: Double? {
        if !header.durationIsUnknown, header.timescale > 0 { return Double(header.duration) / Double(header.timescale) }
        return tracks.compactMap(\.duration).max()
    }

    public func track(id: UInt32) -> Track? { tracks.first { $0.id == id } }

    /// Tracks grouped by non-zero alternate group, in group order.
    public var alternateGroups: [(id: UInt16, tracks: [Track])] {
        let ids = Set(tracks.map(\.alternateGroup)).filter { $0 != 0 }.sorted()
        return ids.map { id in (id, tracks.filter { $0.alternateGroup == id }) }
    }

    /// Incoming references: for track `id`, which tracks name it and how ("fallback for 3").
    public func referrers(of id: UInt32) -> [(type: FourCC, from: UInt32)] {
        tracks.flatMap { track in
            track.references.filter { $0.trackIDs.contains(id) }.map { (type: $0.type, from: track.id) }
        }
    }

    /// Reads `meta` (handler `mdta`): `keys` gives names, each `ilst` item is keyed by 1-based key index.
    static func readMetadata(_ meta: Box?) -> [(key: String, value: String)] {
        guard let meta, let keysBox = meta.first("keys"), let keys = try? MetadataKeysBox(box: keysBox), let ilst = meta.first("ilst") else { return [] }
        var result: [(String, String)] = []
        for item in ilst.children {
            let index = Int(item.type.rawValue)
            guard index >= 1, index <= keys.keys.count else { continue }
            var name = keys.keys[index - 1].text
            if name.hasPrefix("com.apple.quicktime.") { name.removeFirst("com.apple.quicktime.".count) }
            guard let dataBox = item.first("data"), let data = try? MetadataDataBox(box: dataBox) else { continue }
            result.append((name, data.displayValue))
        }
        return result
    }
}
