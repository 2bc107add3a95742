/// A movie file opened for reading: the box tree (with `mdat` left in the file), the tracks
/// and the movie-level metadata.
public struct Movie: Sendable {
    public let source: ByteSource
    /// The top-level boxes as read (set only here, so `moov` is always among them).
    public internal(set) var boxes: [Box]
    /// Where `moov` is in `boxes`.
    let moovIndex: Int
    public let fileType: FileTypeBox?
    /// The movie header; when the file has none (or its time scale is 0), one with the fallback
    /// time scale (see `tolerated`).
    public private(set) var header: MovieHeaderBox
    public internal(set) var tracks: [Track]
    /// Movie-level QuickTime metadata (`moov/meta` keys and values), in file order.
    public let metadata: [MetadataItem]
    /// What the file gets wrong that players accept and this reader accepts too; `lint` reports each.
    public private(set) var tolerated: [Tolerance] = []
    /// The `stsd`/`dref` entry counts read as the entries present (`tolerated` says so too); `fix` writes them.
    public private(set) var entryCountCorrections: [EntryCountCorrection] = []

    /// A departure from the format that is read anyway, with where it is.
    public struct Tolerance: Sendable, Equatable {
        public enum Kind: String, Sendable {
            /// The last mdat claims bytes past the end of the file; every sample lies inside it.
            case mediaDataPastEnd
            /// No mvhd, or its time scale is 0: movie time is read with `Movie.fallbackTimescale`.
            case movieTimescaleMissing
            /// An `stsd` or `dref` whose entry count is not the number of entries it holds.
            case entryCountWrong
            /// The last box is `free` or `skip` padding that claims bytes past the end of the file.
            case paddingPastEnd
            /// A fragment's `tfdt` leaves a gap after the samples before it (a fragment or segment missing?).
            case fragmentTimeGap
            /// A fragment's `tfdt` starts before the sample before it ends.
            case fragmentTimeOverlap
            /// A sample description no decoder can be opened with (`BrokenDecoderConfiguration`).
            case decoderConfigurationBroken
        }
        public var kind: Kind
        public var path: String
        public var offset: UInt64
        public var message: String

        /// `path at byte offset: message`.
        public var text: String { "\(path) at byte \(offset): \(message)" }
    }

    /// With the movie time scale unknown (mvhd says 0), an edit's duration cannot be read: read at the fallback scale,
    /// the 4.667 s edit of a 1000-unit movie lasted 0.097 s at 48000, and a remux kept 6 of 220 audio packets in view
    /// where ffprobe plays all. One presented edit is read as presenting the media from its start time to the end of
    /// its samples' presentation (what ffprobe plays), rewritten in the fallback scale; empty or several edits are refused.
    static func editsInFallbackScale(_ trak: Box, scale: UInt32, presentationEnd: UInt64, mediaTimescale: UInt32, path: String) throws -> Box {
        guard let elstBox = trak.find(["edts", "elst"]) else { return trak }
        var elst = try EditListBox(box: elstBox, path: path + "/edts/elst")
        guard !elst.entries.isEmpty else { return trak }
        func refuse(_ reason: String) -> KeepTrackError {
            .malformed(path: path + "/edts/elst", offset: elstBox.offset, reason: "the movie time scale is 0 (mvhd), so \(reason)")
        }
        guard elst.entries.count == 1, let edit = elst.entries.first, edit.mediaTime >= 0 else {
            throw refuse("the durations of its \(elst.entries.count) edits cannot be read")
        }
        // Where the samples' presentation ends (composition offsets included), from the edit's start time. A track
        // whose samples are all in fragments (none in moov) is read as before: its edit at the fallback scale.
        guard presentationEnd > 0, mediaTimescale > 0 else { return trak }
        guard presentationEnd > UInt64(edit.mediaTime) else { throw refuse("its edit starts at or after the end of the track's samples") }
        let presented = TimeScale.convert(presentationEnd - UInt64(edit.mediaTime), from: mediaTimescale, to: scale, rounding: .up)
        elst.entries[0].segmentDuration = presented
        if presented > UInt64(UInt32.max) { elst.header.version = 1 }
        var rewritten = trak
        try rewritten.modifyChildren { children in
            guard let edts = children.firstIndex(where: { $0.type == "edts" }) else { return }
            try children[edts].modifyChildren { boxes in
                guard let at = boxes.firstIndex(where: { $0.type == "elst" }) else { return }
                boxes[at] = Box(type: "elst", bytes: try elst.encoded())
            }
        }
        return rewritten
    }

    /// The movie time scale used when mvhd is absent or says 0: the largest media time scale (so no
    /// track's media time rounds away), or 1000 when no track has one. Track durations then come
    /// from the samples, since tkhd's are in a scale nobody knows.
    public static func fallbackTimescale(mediaTimescales: [UInt32]) -> UInt32 {
        mediaTimescales.max().flatMap { $0 > 0 ? $0 : nil } ?? 1000
    }
    /// The movie has `mvex` or `moof` boxes: samples may follow moov in movie fragments.
    public let isFragmented: Bool
    /// Top-level `moof` boxes.
    public let fragmentCount: Int

    /// Set when the file ends inside its last mdat with samples in the missing part (opened with
    /// `allowingTruncation`); each track then holds only its complete samples.
    public private(set) var truncation: Truncation?

    /// `allowingTruncation`: read a file cut short inside its last mdat (inspect, lint, salvage);
    /// otherwise such a file is refused with a message naming `salvage`.
    public static func open(path: String, allowingTruncation: Bool = false) throws -> Movie {
        try Movie(source: FileByteSource(path: path), allowingTruncation: allowingTruncation)
    }

    /// `checkingFragmentOffsets`: refuse fragments whose base data offsets a tool left stale
    /// (`FragmentOffsetRepair`); false only to read a repaired view.
    public init(source: ByteSource, checkingFragmentOffsets: Bool = true, allowingTruncation: Bool = false) throws {
        self.source = source
        do {
            boxes = try BoxParser.parseFile(source)
        } catch KeepTrackError.malformed(let path, let offset, let reason) {
            // A JPEG motion photo is no box sequence: say where its movie is and what reads it.
            guard let photo = MotionPhoto.find(in: source) else { throw KeepTrackError.malformed(path: path, offset: offset, reason: reason) }
            throw KeepTrackError.malformed(path: path, offset: offset, reason: reason + "; the file is " + photo.hint)
        }
        fileType = try boxes.first { $0.type == "ftyp" }.map { try FileTypeBox(box: $0) }
        guard let moovIndex = boxes.firstIndex(where: { $0.type == "moov" }) else {
            let types = boxes.prefix(8).map(\.type.description).joined(separator: ", ")
            var reason = "no moov box: not a QuickTime or MP4 movie (top-level boxes: \(types))"
            if let padding = BoxParser.shortPadding(boxes, source: source) {
                // Padding read as what is there swallows whatever follows it: name it, as the size check did.
                throw KeepTrackError.malformed(path: padding.box.type.description, offset: padding.box.offset,
                    reason: "box claims \(padding.declaredSize) bytes but only \(padding.box.size) remain in the file, and no moov box comes before it (top-level boxes: \(types))")
            } else if let photo = MotionPhoto.find(in: source) {
                reason = "no moov box: the file is \(photo.hint) (top-level boxes: \(types))"
            } else if boxes.contains(where: { $0.type == "moof" }) {
                reason = "no moov box: a media segment (top-level boxes: \(types)); its tracks are described by its init segment: "
                    + "give it with --init INIT.mp4 before the segments (inspect, remux, extract, trim)"
            }
            throw KeepTrackError.malformed(path: "", offset: 0, reason: reason)
        }
        self.moovIndex = moovIndex
        if let second = boxes[(moovIndex + 1)...].first(where: { $0.type == "moov" }) {
            // A fragmented movie with its moov copied to the end read as two movies: remux's read-back saw 10 samples
            // where the source had 0 and exited 74. Which moov describes the file cannot be told; FFmpeg takes the first.
            throw KeepTrackError.malformed(path: "moov", offset: second.offset,
                reason: "is a second moov (the first at byte \(boxes[moovIndex].offset)): which one describes the movie cannot be told")
        }
        if let cmov = boxes[moovIndex].first("cmov") {
            throw KeepTrackError.malformed(path: "moov/cmov", offset: cmov.offset,
                reason: "compressed movie header (cmov) is not supported: the movie's boxes are compressed inside it (decompress it first, e.g. by saving a copy with a QuickTime-compatible tool)")
        }
        var tolerated: [Tolerance] = []
        let entryCountCorrections = Self.correctEntryCounts(&boxes[moovIndex], tolerated: &tolerated)
        let moov = boxes[moovIndex]
        let mvhdBox = moov.first("mvhd")
        if let mvhdBox {
            let version = mvhdBox.payload.first ?? 0
            if mvhdBox.payload.count < (version == 1 ? 108 : 96) {
                throw KeepTrackError.malformed(path: "moov/mvhd", offset: mvhdBox.offset, reason: "is \(mvhdBox.payload.count) bytes, too short for version \(version)")
            }
        }
        var header = try mvhdBox.map { try MovieHeaderBox(box: $0, path: "moov/mvhd") } ?? MovieHeaderBox()
        let timescaleKnown = mvhdBox != nil && header.timescale > 0
        if !timescaleKnown {
            let scales = try moov.all("trak").map { trak in
                try trak.find(["mdia", "mdhd"]).map { try MediaHeaderBox(box: $0).timescale } ?? 0
            }
            header.timescale = Self.fallbackTimescale(mediaTimescales: scales)
            tolerated.append(Tolerance(kind: .movieTimescaleMissing, path: mvhdBox == nil ? "moov" : "moov/mvhd", offset: mvhdBox?.offset ?? moov.offset,
                message: (mvhdBox == nil ? "movie has no mvhd" : "mvhd time scale is 0") + ": movie time read with a time scale of \(header.timescale) (the largest media time scale), durations from the samples, an edit presenting its media to the end"))
        }
        var tracks: [Track] = []
        var seen: Set<UInt32> = []
        let shortMediaData = BoxParser.shortMediaData(boxes, source: source)
        let lastMediaData = Truncation.lastMediaData(boxes, source: source)
        var cutTracks: [Int] = []
        for (index, sourceTrak) in moov.all("trak").enumerated() {
            var trak = sourceTrak
            var editsRewritten = false
            if !timescaleKnown, sourceTrak.find(["edts", "elst"]) != nil {
                let unedited = try Track(box: sourceTrak, path: "moov/trak" + (index == 0 ? "" : "[\(index + 1)]"), movieTimescale: header.timescale,
                                         movieTimescaleKnown: false)
                trak = try Self.editsInFallbackScale(sourceTrak, scale: header.timescale, presentationEnd: unedited.sampleTable.compositionEnd,
                                                     mediaTimescale: unedited.mediaHeader.timescale, path: unedited.path)
                // A rewritten elst is a new box, at no offset of the file.
                editsRewritten = trak.find(["edts", "elst"])?.offset == 0
            }
            var track = try Track(box: trak, path: "moov/trak" + (index == 0 ? "" : "[\(index + 1)]"), movieTimescale: header.timescale,
                                  movieTimescaleKnown: timescaleKnown)
            track.editsInFallbackScale = editsRewritten
            guard track.id != 0 else {
                throw KeepTrackError.malformed(path: track.path + "/tkhd", offset: trak.offset, reason: "track id 0 is not allowed")
            }
            guard seen.insert(track.id).inserted else {
                throw KeepTrackError.malformed(path: track.path + "/tkhd", offset: trak.offset, reason: "track id \(track.id) is used twice")
            }
            try Self.checkDataIsInThisFile(track)
            do {
                try track.sampleTable.validate(fileSize: source.size, path: track.path + "/mdia/minf/stbl", offset: trak.offset)
            } catch KeepTrackError.malformed(let path, let offset, let reason) where lastMediaData != nil {
                // The file may be cut short inside its last mdat: a truncation when every chunk past
                // the end lies inside what that mdat claims; anything else is a broken table.
                let (mdat, declaredEnd) = (lastMediaData!.box, lastMediaData!.declaredEnd)
                guard Truncation.explains(track.sampleTable, mdat: mdat, declaredEnd: declaredEnd, fileSize: source.size) else {
                    throw KeepTrackError.malformed(path: path, offset: offset, reason: reason)
                }
                cutTracks.append(tracks.count)
            }
            tracks.append(track)
        }
        isFragmented = moov.first("mvex") != nil || boxes.contains { $0.type == "moof" }
        if isFragmented, checkingFragmentOffsets, FragmentOffsetRepair.mayNeedRepair(boxes),
           let repair = try FragmentOffsetRepair.find(boxes: boxes, source: source), repair.staleFragments > 0 {
            throw repair.refusal
        }
        // A file cut inside its last mdat: fragments may have samples in the part the mdat claims.
        let claimedEnd = lastMediaData?.declaredEnd.map { max($0, source.size) } ?? source.size
        fragmentCount = isFragmented ? try FragmentReader.read(boxes: boxes, moov: moov, tracks: &tracks, fileSize: claimedEnd) : 0
        if claimedEnd > source.size {
            for index in tracks.indices where !cutTracks.contains(index) && tracks[index].fragments?.addsSamples == true {
                if (try? tracks[index].sampleTable.validate(fileSize: source.size, path: "", offset: 0)) == nil { cutTracks.append(index) }
            }
        }
        if let lastMediaData, !cutTracks.isEmpty {
            var states: [Truncation.TrackState] = []
            for index in tracks.indices {
                let (state, table) = Truncation.state(of: tracks[index], fileSize: source.size)
                states.append(state)
                tracks[index].sampleTable = table
            }
            let found = Truncation(mediaDataOffset: lastMediaData.box.offset, declaredEnd: lastMediaData.declaredEnd, fileSize: source.size, tracks: states)
            guard allowingTruncation else {
                throw KeepTrackError.malformed(path: "mdat", offset: found.mediaDataOffset,
                    reason: "the file is cut short: \(found.summary) (\(found.trackLines.joined(separator: "; "))); tracks have samples in the missing part. "
                        + "`keeptrack salvage FILE OUT` writes every complete sample to a new movie; `inspect` and `lint` show what is there")
            }
            truncation = found
        }
        try Self.checkChunksDoNotOverlap(tracks)
        Self.readFrameHeaderFacts(&tracks, source: source)
        if truncation == nil, let mdat = shortMediaData?.box, let declared = shortMediaData?.declaredSize {
            tolerated.append(Tolerance(kind: .mediaDataPastEnd, path: "mdat", offset: mdat.offset,
                message: "mdat at byte \(mdat.offset) claims \(declared) bytes, \(declared - mdat.size) past the end of the file; every sample lies inside the file"))
        }
        if let padding = BoxParser.shortPadding(boxes, source: source) {
            tolerated.append(Tolerance(kind: .paddingPastEnd, path: padding.box.type.description, offset: padding.box.offset,
                message: "the last box, padding, claims \(padding.declaredSize) bytes, \(padding.declaredSize - padding.box.size) past the end of the file; read as the \(padding.box.size) there"))
        }
        for track in tracks {
            for broken in track.brokenDecoderConfigurations + Self.firstSampleMismatches([track], source: source) {
                tolerated.append(Tolerance(kind: .decoderConfigurationBroken, path: broken.path, offset: broken.offset,
                    message: "track \(track.id): \(broken.reason): players cannot decode the track"))
            }
            guard let fragments = track.fragments else { continue }
            for (kind, jumps, what) in [(Tolerance.Kind.fragmentTimeGap, fragments.decodeTimeGaps, "gap"), (.fragmentTimeOverlap, fragments.decodeTimeOverlaps, "overlap")]
            where jumps.count > 0 {
                tolerated.append(Tolerance(kind: kind, path: jumps.largestPath, offset: jumps.largestOffset,
                    message: "track \(track.id): " + jumps.summary(what, timescale: track.mediaHeader.timescale, located: false)
                        + (kind == .fragmentTimeGap ? " (the longest here): a fragment or segment missing?" : " (the longest here)")))
            }
        }
        self.header = header
        self.tracks = tracks
        metadata = Self.readMetadata(moov.first("meta"))
        self.tolerated = tolerated
        self.entryCountCorrections = entryCountCorrections
        if mvhdBox == nil || !timescaleKnown { try installMovieHeader(mvhdBox) }
    }

    /// MP3 and DTS say their channels only in each frame, AC-3 in its `dac3` too (not always truly):
    /// read the first packet's header (a few bytes, once per such track). A header that does not
    /// parse leaves the entry's fields.
    static func readFrameHeaderFacts(_ tracks: inout [Track], source: ByteSource) {
        for index in tracks.indices {
            guard let codec = tracks[index].frameHeaderCodec else { continue }
            var samples = tracks[index].sampleTable.samples.makeIterator()
            guard let first = samples.next(), first.size >= 4 else { continue }
            let count = min(Int(first.size), AudioFrameFacts.frameHeaderBytes)
            guard let bytes = try? source.read(at: first.offset, count: count) else { continue }
            tracks[index].frameHeaderFacts = AudioFrameFacts.fromFrameHeader(bytes, codec: codec)
        }
    }

    /// Puts the fallback header in the model's moov, with the duration of the longest track, so
    /// that every written copy has a valid mvhd (the input file is never touched).
    mutating func installMovieHeader(_ original: Box?) throws {
        var mvhd = header
        let longest = tracks.compactMap(\.duration).max() ?? 0
        let scaled = (longest * Double(mvhd.timescale)).rounded()
        // Beyond what 64 bits hold (a lying sample table): say "unknown" rather than trap.
        mvhd.duration = scaled.isFinite && scaled >= 0 && scaled < 0x1p63 ? UInt64(scaled) : UInt64.max
        if mvhd.duration > UInt64(UInt32.max) { mvhd.header.version = 1 }
        if original == nil {
            // A track id of 0xFFFFFFFF leaves no next id: all ones means "search for a free one".
            let highest = tracks.map(\.id).max() ?? 0
            mvhd.nextTrackID = highest == .max ? .max : highest + 1
        }
        header = mvhd
        guard let index = boxes.firstIndex(where: { $0.type == "moov" }) else { return }
        var encoded = try mvhd.encoded()
        if let original, original.payload.count > encoded.count, original.payload.first == mvhd.header.version {
            encoded += original.payload.dropFirst(encoded.count) // bytes after the fields stay
        }
        let box = Box(type: "mvhd", content: .bytes(encoded), offset: original?.offset ?? 0)
        boxes[index].modifyChildren { children in
            if let position = children.firstIndex(where: { $0.type == "mvhd" }) { children[position] = box } else { children.insert(box, at: 0) }
        }
    }

    /// A track whose samples are described as being in another file (a `dref` entry without the
    /// self-contained flag) cannot be read from this one: refuse, naming the file it points to.
    static func checkDataIsInThisFile(_ track: Track) throws {
        guard track.sampleTable.sampleCount > 0, let dref = track.box.find(["mdia", "minf", "dinf", "dref"]) else { return }
        let entries = dref.children
        let triples = track.sampleTable.sampleToChunk
        var used = Set(stride(from: 2, to: triples.count, by: 3).map { Int(triples[$0]) })
        if used.isEmpty { used = [1] }
        for description in used.sorted() where description >= 1 && description <= track.sampleEntries.count {
            let entry = track.sampleEntries[description - 1]
            guard entry.payload.count >= 8 else { continue }
            let reference = Int(entry.payload[6]) << 8 | Int(entry.payload[7])
            guard reference >= 1, reference <= entries.count else { continue }
            let dataEntry = entries[reference - 1]
            guard let view = try? DataEntryBox(box: dataEntry), !view.isSelfContained else { continue }
            let path = track.path + "/mdia/minf/dinf/dref/" + dataEntry.type.description
            let named = view.locationText(type: dataEntry.type).map { "'\($0)'" } ?? "a file it does not name"
            throw KeepTrackError.malformed(path: path, offset: dataEntry.offset,
                reason: "track \(track.id)'s media data is in another file, \(named) (data reference \(reference) is not self-contained): external data references are not supported")
        }
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
            var path = track.path + "/mdia/minf/stbl/" + box.description, offset = table.boxOffsets[box] ?? track.box.offset
            if let fragments = track.fragments, next.chunk >= fragments.stblChunkCount {
                (path, offset) = (fragments.runPath(next.chunk - fragments.stblChunkCount), fragments.runOffsets[next.chunk - fragments.stblChunkCount])
            }
            throw KeepTrackError.malformed(
                path: path, offset: offset,
                reason: "chunk \(next.chunk + 1) of track \(track.id) (bytes \(next.start)..<\(next.end)) overlaps chunk \(previous.chunk + 1) of track \(other.id) (bytes \(previous.start)..<\(previous.end))")
        }
    }

    public var moov: Box { boxes[moovIndex] }

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
        // A fragmented movie's mvhd describes only the moov samples: the longest track says more.
        if tracks.contains(where: { $0.fragments?.addsSamples == true }) { return tracks.compactMap(\.duration).max() }
        if !header.durationIsUnknown, header.timescale > 0 { return Double(header.duration) / Double(header.timescale) }
        return tracks.compactMap(\.duration).max()
    }

    public func track(id: UInt32) -> Track? { tracks.first { $0.id == id } }

    /// Tracks grouped by non-zero alternate group, in group order.
    public var alternateGroups: [AlternateGroup] {
        let ids = Set(tracks.map(\.alternateGroup)).filter { $0 != 0 }.sorted()
        return ids.map { id in AlternateGroup(id: id, tracks: tracks.filter { $0.alternateGroup == id }) }
    }

    /// Incoming references: for track `id`, which tracks name it and how ("fallback for 3").
    public func referrers(of id: UInt32) -> [IncomingReference] {
        tracks.flatMap { track in
            track.references.filter { $0.trackIDs.contains(id) }.map { IncomingReference(type: $0.type, from: track.id) }
        }
    }

    /// Reads `meta` (handler `mdta`): `keys` gives names, each `ilst` item is keyed by 1-based key index.
    static func readMetadata(_ meta: Box?) -> [MetadataItem] {
        guard let meta, let keysBox = meta.first("keys"), let keys = try? MetadataKeysBox(box: keysBox), let ilst = meta.first("ilst") else { return [] }
        var result: [MetadataItem] = []
        for item in ilst.children {
            let index = Int(item.type.rawValue)
            guard index >= 1, index <= keys.keys.count else { continue }
            var name = keys.keys[index - 1].text
            if name.hasPrefix("com.apple.quicktime.") { name.removeFirst("com.apple.quicktime.".count) }
            guard let dataBox = item.first("data"), let data = try? MetadataDataBox(box: dataBox) else { continue }
            result.append(MetadataItem(key: name, value: data.displayValue))
        }
        return result
    }
}

/// One QuickTime metadata value (`meta/keys` + `ilst`), its key without `com.apple.quicktime.`.
public struct MetadataItem: Sendable, Equatable {
    public var key: String
    public var value: String
    public init(key: String, value: String) { self.key = key; self.value = value }
}

/// A reference that names a track, seen from that track: `from` names it with a `type` reference.
public struct IncomingReference: Sendable, Equatable {
    public var type: FourCC
    public var from: UInt32
    public init(type: FourCC, from: UInt32) { self.type = type; self.from = from }
}

/// The tracks sharing one non-zero alternate group (players present one of them).
public struct AlternateGroup: Sendable {
    public var id: UInt16
    public var tracks: [Track]
}
