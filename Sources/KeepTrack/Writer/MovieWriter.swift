/// Lays out a new movie from output tracks: `ftyp`, the kept top-level boxes, `moov` and one
/// `mdat`, with chunks interleaved by time. Everything in each `trak` is copied as given except the
/// layout boxes (`stsc`, `stco`/`co64`), which are rebuilt for the new chunk positions.
public struct MovieWriter {
    public struct Options: Sendable {
        /// moov before mdat (fast start), the default; false keeps it at the end.
        public var moovFirst = true
        /// Seconds of media per chunk.
        public var chunkDuration = 0.5
        /// Use co64 even when every offset fits 32 bits (tests of the 64-bit path).
        public var forceLargeOffsets = false
        public init() {}
    }

    public var fileType: Box?
    /// The source moov: every child but the `trak`s is copied in its place; tracks come from `tracks`.
    public var moovTemplate: Box
    /// Top-level boxes other than ftyp/moov/mdat and padding (free, skip, wide), kept before moov.
    /// Large ones (`Box.Content.external`) are copied from `topLevelSource`.
    public var otherTopLevel: [Box]
    /// The file `otherTopLevel` was read from: the movie's own file, never a track's data (which may be
    /// an encoder's output). nil when every kept box is held in memory.
    public var topLevelSource: ByteSource?
    /// Top-level boxes written after the media data (and after moov when it comes last): the segment
    /// index that ends an init segment, whose offsets count from its own end, where the segments follow.
    public var trailingTopLevel: [Box] = []
    /// The source's samples were read (partly) from movie fragments: the output has none, so `mvex` goes
    /// and `mvhd` gets the written tracks' duration. false keeps `mvex` (an init segment stays one).
    public var defragments = false
    public var tracks: [OutputTrack]
    public var options: Options
    /// What the output leaves out of the source and why, for the command to print (one sentence each).
    public var notes: [String] = []

    public init(fileType: Box?, moovTemplate: Box, otherTopLevel: [Box] = [], topLevelSource: ByteSource? = nil,
                tracks: [OutputTrack], options: Options = Options()) {
        self.fileType = fileType
        self.moovTemplate = moovTemplate
        self.otherTopLevel = otherTopLevel
        self.topLevelSource = topLevelSource
        self.tracks = tracks
        self.options = options
    }

    /// A writer that passes every track of `movie` through.
    public init(passingThrough movie: Movie, options: Options = Options()) {
        self.init(fileType: movie.boxes.first { $0.type == "ftyp" }, moovTemplate: movie.moov,
                  otherTopLevel: Self.keptTopLevel(movie.boxes), topLevelSource: movie.source,
                  tracks: movie.tracks.map { OutputTrack($0, in: movie) }, options: options)
        defragments = movie.fragmentCount > 0
        trailingTopLevel = Self.initSegmentIndex(movie)
        let kept = Set(trailingTopLevel.map(\.offset))
        notes = Self.droppedIndexNotes(movie.boxes.filter { !kept.contains($0.offset) }) + Self.sourceNotes(movie)
            + MediaDataAccount(movie: movie).droppedNotes
    }

    /// What any copy of `movie`'s samples says of its source: what its fragments' progressive copy leaves out or
    /// re-times (`Movie.fragmentNotes`), and each broken decoder configuration copied as it is.
    public static func sourceNotes(_ movie: Movie) -> [String] {
        movie.fragmentNotes + movie.tolerated.filter { $0.kind == .decoderConfigurationBroken }.map { "copied as it is, broken: \($0.text)" }
    }

    /// The `sidx` boxes that end an init segment (no fragments, no samples): they index the segments
    /// that follow the file, counting from their own end, so they stay valid as the output's last boxes.
    static func initSegmentIndex(_ movie: Movie) -> [Box] {
        guard movie.fragmentCount == 0, movie.moov.first("mvex") != nil,
              movie.tracks.allSatisfy({ $0.sampleTable.sampleCount == 0 }) else { return [] }
        return Array(movie.boxes.reversed().prefix { $0.type == "sidx" }.reversed())
    }

    static let layoutTypes: Set<FourCC> = ["ftyp", "moov", "mdat", "free", "skip", "wide"]
    /// Boxes of a fragmented layout that a progressive output has no use for: fragments (their
    /// samples move into moov's tables) and segment types. Fragment indexes: `fragmentIndexTypes`.
    /// Event messages and producer times are timed against fragments: dropped with `Movie.fragmentNotes`.
    static let fragmentLayoutTypes: Set<FourCC> = ["moof", "styp", "emsg", "prft"]

    /// Indexes of fragments by file offset: in a progressive output they describe nothing, and their
    /// offsets would point at the wrong bytes. Dropped, with a note.
    static let fragmentIndexTypes: [FourCC: String] = [
        "sidx": "a segment index locates fragments by offset, and the progressive output has none",
        "ssix": "a subsegment index belongs to the dropped segment index",
        "mfra": "its tfra/mfro offsets locate fragments, and the progressive output has none",
    ]

    /// Top-level boxes worth keeping (udta, meta, uuid, unknown ones, ...), in file order.
    static func keptTopLevel(_ boxes: [Box]) -> [Box] {
        let fragmented = boxes.contains { $0.type == "moof" || ($0.type == "moov" && $0.first("mvex") != nil) }
        return boxes.filter { !layoutTypes.contains($0.type) && fragmentIndexTypes[$0.type] == nil
            && !(fragmented && fragmentLayoutTypes.contains($0.type)) }
    }

    /// One note per type of fragment index left out.
    static func droppedIndexNotes(_ boxes: [Box]) -> [String] {
        fragmentIndexTypes.keys.sorted { $0.description < $1.description }.compactMap { type in
            let dropped = boxes.filter { $0.type == type }
            guard let first = dropped.first, let reason = fragmentIndexTypes[type] else { return nil }
            let what = dropped.count == 1 ? "\(type) at byte \(first.offset)" : "\(dropped.count) \(type) boxes (the first at byte \(first.offset))"
            return "dropped \(what): \(reason)"
        }
    }

    public struct Summary: Sendable {
        public var bytesWritten: UInt64
        public var moovSize: UInt64
        public var mdatOffset: UInt64
        public var chunkCount: Int
        public var largeOffsets: Bool
        /// Size of the `free` box written before mdat to keep sample bytes at their source position
        /// modulo `copyAlignment` (0: none). See `alignmentPadding`.
        public var padding: UInt64 = 0
    }

    /// The moov and mdat header for a layout, computed before a byte is written.
    struct Layout {
        var moov: Box
        /// ftyp and the kept top-level boxes, with their file offsets (iloc) rewritten.
        var prefix: [Box]
        /// Size of the `free` box right before the mdat header (0: none).
        var padding: UInt64
        var mdatHeader: [UInt8]
        var dataStart: UInt64
        var largeOffsets: Bool
    }

    func makeLayout(plan: ChunkPlan, prefixSize: UInt64) throws -> Layout {
        let mdatLarge = plan.totalBytes + 8 > UInt64(UInt32.max)
        let mdatHeaderSize: UInt64 = mdatLarge ? 16 : 8
        // Offsets relative to the data start already beyond 32 bits need co64 before sizing moov.
        var large = try options.forceLargeOffsets || maxChunkOffset(plan: plan, dataStart: 0) > UInt64(UInt32.max)
        let shift = dominantShift(plan: plan)
        while true {
            // First pass with placeholder offsets to learn the moov size (it depends only on stco vs co64).
            let sizingMoov = try buildMoov(plan: plan, dataStart: 0, large: large)
            let unpadded = options.moovFirst ? prefixSize + sizingMoov.size + mdatHeaderSize : prefixSize + mdatHeaderSize
            let padding = shift.map { Self.padding(dataStart: unpadded, shift: $0) } ?? 0
            let dataStart = unpadded + padding
            if !large, try maxChunkOffset(plan: plan, dataStart: dataStart) > UInt64(UInt32.max) { large = true; continue }
            let built = try buildMoov(plan: plan, dataStart: dataStart, large: large)
            let (moov, prefix) = try placingPointers(moov: built, moovOffset: options.moovFirst ? prefixSize : dataStart + plan.totalBytes)
            var header = ByteWriter()
            if mdatLarge {
                header.u32(1); header.fourCC("mdat"); header.u64(plan.totalBytes + 16)
            } else {
                header.u32(UInt32(plan.totalBytes + 8)); header.fourCC("mdat")
            }
            return Layout(moov: moov, prefix: prefix, padding: padding, mdatHeader: header.bytes, dataStart: dataStart, largeOffsets: large)
        }
    }

    func maxChunkOffset(plan: ChunkPlan, dataStart: UInt64) throws -> UInt64 {
        var offset = dataStart
        var last = dataStart
        for chunk in plan.chunks { last = offset; offset += chunk.byteCount }
        return last
    }

    /// The moov with each track's stsc and stco/co64 rebuilt for chunks starting at `dataStart`.
    func buildMoov(plan: ChunkPlan, dataStart: UInt64) throws -> Box { try buildMoov(plan: plan, dataStart: dataStart, large: false) }

    func buildMoov(plan: ChunkPlan, dataStart: UInt64, large: Bool) throws -> Box {
        var offsets = Array(repeating: [UInt64](), count: tracks.count)
        var stscs = Array(repeating: [UInt32](), count: tracks.count)
        var position = dataStart
        for chunk in plan.chunks {
            offsets[chunk.track].append(position)
            position += chunk.byteCount
            let number = UInt32(offsets[chunk.track].count)
            let count = UInt32(chunk.sampleCount)
            let entries = stscs[chunk.track].count
            // A new stsc run only where samples-per-chunk or description changes.
            if entries >= 3, stscs[chunk.track][entries - 2] == count, stscs[chunk.track][entries - 1] == chunk.descriptionIndex { continue }
            stscs[chunk.track].append(contentsOf: [number, count, chunk.descriptionIndex])
        }
        var traks: [Box] = []
        for (index, track) in tracks.enumerated() {
            traks.append(try rebuildLayout(of: track.trak, offsets: offsets[index], stsc: stscs[index], large: large))
        }
        var moov = moovTemplate
        // A moov that ran to the end of the file (size 0) does not once media data may follow it: its real size.
        if moov.headerForm == .toEnd { moov.headerForm = .compact }
        var inserted = false
        let writtenIDs = Set(traks.compactMap(Self.trackID))
        try moov.modifyChildren { children in
            var result: [Box] = []
            for child in children {
                // mvex announces fragments; a defragmented output has none. Its mvhd describes the tracks written.
                if defragments, child.type == "mvex" { continue }
                if defragments, child.type == "mvhd" { result.append(try Self.movieHeader(child, lastingAsLongAs: traks)); continue }
                if child.type == "mvex" { result.append(try Self.movieExtends(child, keeping: writtenIDs)); continue }
                if child.type == "trak" {
                    if !inserted { result.append(contentsOf: traks); inserted = true }
                } else {
                    result.append(child)
                }
            }
            if !inserted { result.append(contentsOf: traks) }
            children = result
        }
        return moov
    }

    /// `mvhd` with the duration of the longest track (a fragmented source's says 0 or covers only moov's samples).
    /// A track whose duration is unknown (all ones: no samples anywhere) says nothing; when no track knows
    /// its duration, the source's mvhd stays as it is.
    static func movieHeader(_ mvhd: Box, lastingAsLongAs traks: [Box]) throws -> Box {
        let known = traks.compactMap { $0.first("tkhd").flatMap { try? TrackHeaderBox(box: $0) } }
            .filter { !$0.durationIsUnknown }.map(\.duration)
        guard let longest = known.max() else { return mvhd }
        return try mvhd.reencoded(MovieHeaderBox.self) { view in
            if longest > UInt64(UInt32.max) { view.header.version = 1 }
            view.duration = longest
        }
    }

    static func trackID(_ trak: Box) -> UInt32? { trak.first("tkhd").flatMap { try? TrackHeaderBox(box: $0) }?.trackID }

    /// `trailingTopLevel` less a segment index of a track not written (an extracted track of an init segment).
    var trailingBoxes: [Box] {
        let ids = Set(tracks.compactMap { Self.trackID($0.trak) })
        return trailingTopLevel.filter { box in
            guard box.type == "sidx", let payload = try? box.serialized(source: topLevelSource).dropFirst(Int(box.headerSize)), payload.count >= 8 else { return true }
            let reference = payload.dropFirst(4).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return ids.contains(reference)
        }
    }

    /// `mvex` with the `trex` of the written tracks only (an extracted track of an init segment keeps its own).
    static func movieExtends(_ mvex: Box, keeping ids: Set<UInt32>) throws -> Box {
        var mvex = mvex
        try mvex.modifyChildren { children in
            children.removeAll { $0.type == "trex" && (try? TrackExtendsBox(box: $0)).map { !ids.contains($0.trackID) } ?? false }
        }
        return mvex
    }

    func rebuildLayout(of trak: Box, offsets: [UInt64], stsc: [UInt32], large: Bool) throws -> Box {
        var trak = trak
        let found = try trak.modifySampleTable { try Self.replaceLayoutBoxes(&$0, offsets: offsets, stsc: stsc, large: large) }
        guard found else { throw KeepTrackError.malformed(path: "trak", offset: trak.offset, reason: "track has no mdia/minf/stbl") }
        return trak
    }

    static func replaceLayoutBoxes(_ children: inout [Box], offsets: [UInt64], stsc: [UInt32], large: Bool) throws {
        var stscView = SampleToChunkBox()
        stscView.triples = stsc
        let stscBox = Box(type: "stsc", bytes: try stscView.encoded())
        let offsetBox: Box
        if large {
            offsetBox = Box(type: "co64", bytes: try ChunkLargeOffsetBox(offsets: offsets).encoded())
        } else {
            var view = ChunkOffsetBox()
            view.offsets = offsets.map { UInt32($0) }
            offsetBox = Box(type: "stco", bytes: try view.encoded())
        }
        var placedStsc = false
        var placedOffsets = false
        var result: [Box] = []
        for child in children {
            switch child.type {
            case "stsc":
                if !placedStsc { result.append(stscBox); placedStsc = true }
            case "stco", "co64":
                if !placedOffsets { result.append(offsetBox); placedOffsets = true }
            default:
                result.append(child)
            }
        }
        if !placedStsc { result.append(stscBox) }
        if !placedOffsets { result.append(offsetBox) }
        children = result
    }

    /// Writes the movie into `output` (which the caller commits or discards).
    public func write(to output: OutputFile) throws -> Summary {
        if let refusal = tracks.lazy.compactMap(\.refusal).first { throw KeepTrackError.unsupported(refusal) }
        let plan = ChunkPlan(tracks: tracks, chunkDuration: options.chunkDuration)
        let layout = try makeLayout(plan: plan, prefixSize: prefixSize)
        try writePrefix(layout.prefix, to: output)
        let moovBytes = try layout.moov.serialized()
        if options.moovFirst { try output.write(moovBytes) }
        if layout.padding > 0 { try output.write(Self.freeBox(size: layout.padding)) }
        try output.write(layout.mdatHeader)
        let mdatOffset = output.position - UInt64(layout.mdatHeader.count)
        guard output.position == layout.dataStart else {
            throw KeepTrackError.io("internal layout error: data starts at \(output.position), planned \(layout.dataStart)")
        }
        try copySamples(plan: plan, to: output)
        if !options.moovFirst { try output.write(moovBytes) }
        try writePrefix(trailingBoxes, to: output)
        return Summary(bytesWritten: output.position, moovSize: UInt64(moovBytes.count), mdatOffset: mdatOffset,
                       chunkCount: plan.chunks.count, largeOffsets: layout.largeOffsets, padding: layout.padding)
    }

    /// The page-cache copy of a run (`copy_file_range`: splice into ext4's buffered write) costs about 1.5×
    /// as much CPU when the run's destination offset differs from its source offset by other than a multiple
    /// of 64 KiB (measured on Linux 6.18, ext4: 0.61–0.73 s vs 0.42–0.54 s per GiB; probably smaller
    /// destination folios). Sample bytes keep their source position modulo this where a `free`
    /// box before mdat can arrange it.
    static let copyAlignment: UInt64 = 64 << 10
    /// Padding is added only when it aligns at least this many times its largest size (≤ 0.1 % of the bytes).
    static let alignedBytesPerPaddingByte: UInt64 = 1024

    /// The offset shift (output position relative to the data start minus source offset, modulo
    /// `copyAlignment`) shared by the most bytes of the runs copied by `copy_file_range`, or nil when those
    /// bytes are too few to be worth a `free` box.
    func dominantShift(plan: ChunkPlan) -> UInt64? {
        // Without a file to copy from, or with fewer bytes than any winner needs, no walk over the samples.
        let needed = Self.alignedBytesPerPaddingByte * Self.copyAlignment
        guard plan.totalBytes >= needed, tracks.contains(where: { $0.data is FileByteSource }) else { return nil }
        var bytesByShift: [UInt64: UInt64] = [:]
        forEachRun(plan: plan) { track, start, length, position in
            guard length > UInt64(OutputFile.gatherLimit), tracks[track].data is FileByteSource else { return }
            let shift = (position &- start) % Self.copyAlignment
            bytesByShift[shift, default: 0] += length
        }
        guard let best = bytesByShift.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }),
              best.value >= needed else { return nil }
        return best.key
    }

    /// Bytes of `free` (0, or at least 8: a box header) that bring `shift` to 0 once data starts at `dataStart`.
    static func padding(dataStart: UInt64, shift: UInt64) -> UInt64 {
        let padding = (copyAlignment - (dataStart &+ shift) % copyAlignment) % copyAlignment
        return padding == 0 || padding >= 8 ? padding : padding + copyAlignment
    }

    /// A `free` box of `size` bytes (zeros after the header).
    static func freeBox(size: UInt64) -> [UInt8] {
        var header = ByteWriter()
        header.u32(UInt32(size)); header.fourCC("free")
        return header.bytes + [UInt8](repeating: 0, count: Int(size) - 8)
    }

    /// Bytes of ftyp and the kept top-level boxes, which come before moov and mdat.
    var prefixSize: UInt64 { prefixBoxes.reduce(0) { $0 + $1.size } }

    /// ftyp and the kept boxes as written: a box that ran to the end of the file (size 0) gets its
    /// real size, since moov and mdat now follow it.
    var prefixBoxes: [Box] {
        ([fileType].compactMap { $0 } + otherTopLevel).map { box in
            var box = box
            if box.headerForm == .toEnd { box.headerForm = .compact }
            return box
        }
    }

    /// Writes ftyp and the kept top-level boxes; a box left in the file is copied from `topLevelSource`
    /// range by range, never loaded whole.
    func writePrefix(_ boxes: [Box], to output: OutputFile) throws {
        var buffer: [UInt8] = []
        for box in boxes {
            guard case .external(let offset, let length) = box.content else {
                try output.write(box.serialized())
                continue
            }
            guard let topLevelSource else {
                throw KeepTrackError.unsupported("top-level box \(box.type) at \(box.offset) holds \(length) bytes that stay in a file the writer was not given")
            }
            var header = ByteWriter()
            box.writeHeader(to: &header)
            try output.write(header.bytes)
            try output.copy(from: topLevelSource, offset: offset, length: length, buffer: &buffer)
        }
    }

    /// `moov` (to be written at `moovOffset`) and the prefix boxes with every other absolute file offset
    /// (`saio`, `iloc`) moved to where the bytes it points at are written; the sizes do not change.
    func placingPointers(moov: Box, moovOffset: UInt64) throws -> (moov: Box, prefix: [Box]) {
        let prefix = prefixBoxes
        guard FilePointers.containsPointers(moov) || prefix.contains(where: FilePointers.containsPointers) else { return (moov, prefix) }
        var placement = FilePointers.Placement()
        placement.add(prefix, at: 0)
        placement.add([moov], at: moovOffset)
        placement.sort()
        return (try FilePointers.relocate(moov, path: "moov", placement: placement),
                try prefix.map { try FilePointers.relocate($0, path: $0.type.description, placement: placement) })
    }

    /// Sample byte ranges in output order, merged where adjacent in the same source: `body(track, source
    /// offset, length, position relative to the data start)`. Empty samples are skipped.
    func forEachRun(plan: ChunkPlan, _ body: (Int, UInt64, UInt64, UInt64) throws -> Void) rethrows {
        var iterators = tracks.map { $0.table.samples.makeIterator() }
        var pendingTrack = -1
        var pendingStart: UInt64 = 0
        var pendingLength: UInt64 = 0
        var position: UInt64 = 0
        for chunk in plan.chunks {
            for _ in 0..<chunk.sampleCount {
                guard let sample = iterators[chunk.track].next() else { break }
                if sample.size == 0 { continue }
                let sameSource = pendingTrack >= 0 && tracks[pendingTrack].data === tracks[chunk.track].data
                if sameSource, pendingLength > 0, pendingStart + pendingLength == sample.offset {
                    pendingLength += UInt64(sample.size)
                } else {
                    if pendingLength > 0 { try body(pendingTrack, pendingStart, pendingLength, position - pendingLength) }
                    pendingTrack = chunk.track
                    pendingStart = sample.offset
                    pendingLength = UInt64(sample.size)
                }
                position += UInt64(sample.size)
            }
        }
        if pendingLength > 0 { try body(pendingTrack, pendingStart, pendingLength, position - pendingLength) }
    }

    /// Copies sample bytes chunk by chunk, merging byte ranges that are adjacent in the source
    /// so contiguous runs go out in one `copy_file_range`.
    func copySamples(plan: ChunkPlan, to output: OutputFile) throws {
        // Made by copyData only when copy_file_range cannot be used: 4 MiB is 1,024 pages to fault in and zero.
        var buffer: [UInt8] = []
        let start = output.position
        try forEachRun(plan: plan) { track, offset, length, position in
            guard output.position == start + position else {
                throw KeepTrackError.io("internal layout error: run at \(output.position - start), planned \(position)")
            }
            try output.copy(from: tracks[track].data, offset: offset, length: length, buffer: &buffer)
        }
        guard output.position - start == plan.totalBytes else {
            throw KeepTrackError.io("internal layout error: \(output.position - start) sample bytes written, planned \(plan.totalBytes)")
        }
    }
}
