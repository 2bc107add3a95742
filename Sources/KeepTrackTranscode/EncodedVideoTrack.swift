import KeepTrack

/// One encoded video frame as an encoder hands it out, in decode order.
public struct EncodedVideoSample: Sendable, Equatable {
    public var size: UInt32
    /// Media time scale units; may be negative (encoders with B-frames start decoding before time 0).
    public var decodeTime: Int64
    public var presentationTime: Int64
    public var isSync: Bool

    public init(size: UInt32, decodeTime: Int64, presentationTime: Int64, isSync: Bool) {
        self.size = size
        self.decodeTime = decodeTime
        self.presentationTime = presentationTime
        self.isSync = isSync
    }
}

/// Builds the `trak` of a re-encoded video track from the source video track it replaces: the same track
/// id, flags, alternate group, handler and track-level metadata; a new size, a new edit list presenting the
/// same frames at the same times, and a new sample table (stsd/stts/ctts/stss/stsz; the writer fills
/// stsc/stco). The picture's geometry follows `geometry`.
public struct EncodedVideoTrack {
    /// How the new picture relates to the source's.
    public enum Geometry: Sendable, Equatable {
        /// A new picture, upright (reframe's crop): identity matrix, `tapt` dropped, square pixels.
        case upright
        /// The source's picture, perhaps scaled (transcode): its matrix (rotation stays a matrix), and the
        /// track and aperture sizes (`tapt`) scaled with the picture.
        case keepSource
    }

    public var geometry: Geometry = .upright
    public var source: Track
    /// The new sample entry (`avc1`/`hvc1` with its configuration, colour and pixel aspect boxes).
    public var sampleEntry: Box
    public var width: Int
    public var height: Int
    public var samples: [EncodedVideoSample]
    /// Duration of the last sample in decode order (media time scale units).
    public var lastSampleDuration: UInt32

    public init(source: Track, sampleEntry: Box, width: Int, height: Int, samples: [EncodedVideoSample], lastSampleDuration: UInt32) {
        self.source = source
        self.sampleEntry = sampleEntry
        self.width = width
        self.height = height
        self.samples = samples
        self.lastSampleDuration = lastSampleDuration
    }

    /// Sample entry `format` with its configuration boxes (`avcC`, `hvcC`; DNxHR's `ACLR`/`ADHR`; none for ProRes),
    /// an `nclx` colour box (or `colourBox` as it is) and `carried` boxes (HDR mastering and light levels, the source's pixel aspect and clean aperture);
    /// `squarePixels` adds a 1:1 pixel aspect box. Throws for a size that does not fit the entry's 16-bit fields or
    /// a colour box that cannot be encoded.
    public static func sampleEntry(format: FourCC, configuration: [Box], width: Int, height: Int,
                                   colour: ColourInformationBox?, colourBox: Box? = nil, carried: [Box] = [], squarePixels: Bool = true,
                                   compressorName: String) throws -> Box {
        guard let entryWidth = UInt16(exactly: width), let entryHeight = UInt16(exactly: height) else {
            throw KeepTrackError.unsupported("a \(width)x\(height) picture does not fit a sample entry (16-bit sizes)")
        }
        var entry = VisualSampleEntry()
        entry.header.reserved = [UInt8](repeating: 0, count: 6)
        entry.width = entryWidth
        entry.height = entryHeight
        let name = Array(compressorName.utf8.prefix(31))
        entry.compressorName = [UInt8(name.count)] + name + [UInt8](repeating: 0, count: 31 - name.count)
        var children = configuration
        if let colourBox {
            children.append(colourBox)
        } else if let colour {
            children.append(Box(type: "colr", bytes: try colour.encoded()))
        }
        children += carried
        if squarePixels { children.append(Box(type: "pasp", bytes: [0, 0, 0, 1, 0, 0, 0, 1])) }
        return Box(type: format, prefix: try entry.encoded(), children: children)
    }

    /// A built track: its `trak` and its sample table (sample offsets counted from 0 in the encoded data).
    public struct Built {
        public var trak: Box
        public var table: SampleTable
    }

    /// The track's sample table (sample offsets counted from 0 in the encoded data) and its `trak`.
    public func build() throws -> Built {
        guard !samples.isEmpty, let firstDecode = samples.first?.decodeTime else {
            throw KeepTrackError.unsupported("the encoder produced no video frames")
        }
        // Decode times start at 0; composition offsets are then non-negative for x264/x265 output.
        var timeToSample: [UInt32] = []
        var compositionOffsets: [UInt32] = []
        var signedOffsets = false
        var mediaDuration: UInt64 = 0
        func appendRun(_ runs: inout [UInt32], _ value: UInt32) {
            if runs.count >= 2, runs[runs.count - 1] == value { runs[runs.count - 2] += 1 } else { runs += [1, value] }
        }
        for (index, sample) in samples.enumerated() {
            let next = index + 1 < samples.count ? samples[index + 1].decodeTime : sample.decodeTime + Int64(lastSampleDuration)
            guard next >= sample.decodeTime, next - sample.decodeTime <= Int64(UInt32.max) else {
                throw KeepTrackError.unsupported("encoder decode times go backwards at frame \(index + 1)")
            }
            appendRun(&timeToSample, UInt32(next - sample.decodeTime))
            mediaDuration += UInt64(next - sample.decodeTime)
            let offset = sample.presentationTime - sample.decodeTime
            if offset < 0 { signedOffsets = true }
            appendRun(&compositionOffsets, UInt32(bitPattern: Int32(clamping: offset)))
        }
        let hasOffsets = compositionOffsets.count > 2 || compositionOffsets.last != 0
        let syncNumbers = samples.enumerated().filter(\.element.isSync).map { UInt32($0.offset + 1) }
        let allSync = syncNumbers.count == samples.count
        // One chunk at offset 0: the encoded frames lie back to back in the data file; the writer re-chunks.
        let table = SampleTable(sampleCount: samples.count, sizes: samples.map(\.size), constantSize: 0, chunkOffsets: [0],
                                sampleToChunk: [1, UInt32(samples.count), 1], timeToSample: timeToSample,
                                compositionOffsets: hasOffsets ? compositionOffsets : [], compositionOffsetsSigned: signedOffsets,
                                syncSamples: allSync ? nil : syncNumbers)

        var stbl: [Box] = []
        var stsd = ByteWriter()
        stsd.u32(0)
        stsd.u32(1)
        stbl.append(Box(type: "stsd", prefix: stsd.bytes, children: [sampleEntry]))
        var stts = TimeToSampleBox()
        stts.pairs = timeToSample
        stbl.append(Box(type: "stts", bytes: try stts.encoded()))
        if hasOffsets {
            var ctts = CompositionOffsetBox()
            ctts.header.version = signedOffsets ? 1 : 0
            ctts.pairs = compositionOffsets
            stbl.append(Box(type: "ctts", bytes: try ctts.encoded()))
        }
        if !allSync {
            var stss = SyncSampleBox()
            stss.sampleNumbers = syncNumbers
            stbl.append(Box(type: "stss", bytes: try stss.encoded()))
        }
        stbl.append(Box(type: "stsc", bytes: try SampleToChunkBox().encoded()))
        var stsz = SampleSizeBox()
        stsz.sampleCount = UInt32(samples.count)
        stsz.sizes = samples.map(\.size)
        stbl.append(Box(type: "stsz", bytes: try stsz.encoded()))
        stbl.append(Box(type: "stco", bytes: try ChunkOffsetBox().encoded()))

        // The presented range: what the source's edit list presented, in the new decode-time base.
        let movieScale = max(source.movieTimescale, 1), mediaScale = max(source.mediaHeader.timescale, 1)
        // Saturating (TimeScale): times from a hostile file must not trap.
        func toMovie(_ media: UInt64) -> UInt64 { TimeScale.convert(media, from: mediaScale, to: movieScale, rounding: .down) }
        let firstPresented = samples.map(\.presentationTime).min() ?? 0
        var edits = EditListBox()
        // A fragmented source's edits as its progressive copy has them (on a timeline from its first decode
        // time, an edit "to the end" of the fragments given its length): copied as they were, a 0-length
        // edit meant "everything" there and "nothing" here, and the output presented no frame at all.
        let sourceEdits = source.defragmentedTiming.map { $0.edits ?? [] } ?? source.editList?.entries ?? []
        let sourceEditsStart = source.defragmentedTiming == nil ? 0 : Int64(clamping: source.sampleTable.firstDecodeTime)
        if !sourceEdits.isEmpty {
            edits.entries = sourceEdits
            for index in edits.entries.indices where edits.entries[index].mediaTime >= 0 {
                edits.entries[index].mediaTime &+= sourceEditsStart &- firstDecode
            }
        } else {
            // No edit list: the source presents each frame at its composition time (the media timeline is the
            // movie's from 0), so a first frame later than 0 (B-frames without an edit list) waits behind an
            // empty edit, as there, and the edit lasts to the end of the last frame shown, not the media
            // duration minus the wait: that dropped the last frames and moved the picture earlier than the audio.
            // The wait is whole movie ticks (often milliseconds); the edit then starts that much before the first
            // frame, so the frame still shows at its own time, to the media tick.
            var editStart = firstPresented
            if firstPresented > 0 {
                let (wait, waited) = EditListBox.Entry.wait(media: UInt64(firstPresented), mediaTimescale: mediaScale, movieTimescale: movieScale)
                edits.entries.append(wait)
                editStart = Int64(clamping: waited)
            }
            var entry = EditListBox.Entry()
            entry.mediaTime = editStart &- firstDecode
            let lastPresented = samples.map(\.presentationTime).max() ?? firstPresented
            let presentedDuration = UInt64(max(0, lastPresented &+ Int64(lastSampleDuration) &- editStart))
            entry.segmentDuration = toMovie(presentedDuration)
            edits.entries.append(entry)
        }
        edits.header.version = edits.entries.contains { $0.segmentDuration > UInt64(UInt32.max) || !(Int64(Int32.min)...Int64(Int32.max)).contains($0.mediaTime) } ? 1 : 0
        let trackDuration = edits.entries.reduce(UInt64(0)) { total, entry in
            let (sum, overflow) = total.addingReportingOverflow(entry.segmentDuration)
            return overflow ? .max : sum
        }

        var header = source.header
        let scale = pictureScale
        switch geometry {
        case .upright:
            header.matrix = TrackHeaderBox.identityMatrix
            header.width = UInt32(width) << 16
            header.height = UInt32(height) << 16
        case .keepSource:
            header.width = Self.scaled(header.width, by: scale.x)
            header.height = Self.scaled(header.height, by: scale.y)
        }
        header.duration = trackDuration
        header.header.version = trackDuration > UInt64(UInt32.max) ? 1 : header.header.version
        var mediaHeader = source.mediaHeader
        mediaHeader.duration = mediaDuration
        if mediaDuration > UInt64(UInt32.max) { mediaHeader.header.version = 1 }

        let trak = try Self.rebuild(source, header: header, mediaHeader: mediaHeader, edits: edits, stbl: stbl) { [geometry] children in
            children.removeAll { $0.type == "tapt" && geometry == .upright }
            if geometry == .keepSource {
                for index in children.indices where children[index].type == "tapt" {
                    children[index] = try Self.scaledApertures(children[index], by: scale)
                }
            }
        }
        return Built(trak: trak, table: table)
    }

    /// `source`'s `trak` with a new header, edit list, media header and sample table; every other box (track
    /// references, metadata, user data) as it was. `adjust` changes the trak's other children first.
    static func rebuild(_ source: Track, header: TrackHeaderBox, mediaHeader: MediaHeaderBox, edits: EditListBox, stbl: [Box],
                        adjust: (inout [Box]) throws -> Void = { _ in }) throws -> Box {
        var trak = source.box
        var replacedTable = false
        try trak.modifyChildren { children in
            try adjust(&children)
            children.removeAll { $0.type == "edts" }
            for index in children.indices where children[index].type == "tkhd" {
                children[index] = Box(type: "tkhd", bytes: try header.encoded())
            }
            let headerIndex = children.firstIndex { $0.type == "tkhd" } ?? -1
            children.insert(Box(type: "edts", children: [Box(type: "elst", bytes: try edits.encoded())]), at: headerIndex + 1)
            for index in children.indices where children[index].type == "mdia" {
                try children[index].modifyChildren { media in
                    for m in media.indices where media[m].type == "mdhd" {
                        media[m] = Box(type: "mdhd", bytes: try mediaHeader.encoded())
                    }
                    for m in media.indices where media[m].type == "minf" {
                        media[m].modifyChildren { info in
                            for s in info.indices where info[s].type == "stbl" {
                                info[s] = Box(type: "stbl", children: stbl)
                                replacedTable = true
                            }
                        }
                    }
                }
            }
        }
        guard replacedTable else {
            throw KeepTrackError.malformed(path: source.path, offset: source.box.offset, reason: "track has no mdia/minf/stbl")
        }
        return trak
    }

    /// The new picture's size over the source's stored size (1 when unknown).
    var pictureScale: (x: Double, y: Double) {
        guard let entry = source.visualEntry, entry.width > 0, entry.height > 0 else { return (1, 1) }
        return (Double(width) / Double(entry.width), Double(height) / Double(entry.height))
    }

    static func scaled(_ fixed: UInt32, by factor: Double) -> UInt32 {
        factor == 1 ? fixed : UInt32(clamping: Int64((Double(fixed) * factor).rounded()))
    }

    /// `tapt`'s clean, production and encoded apertures (full boxes of two 16.16 sizes) scaled with the picture.
    static func scaledApertures(_ tapt: Box, by factor: (x: Double, y: Double)) throws -> Box {
        guard factor != (1, 1) else { return tapt }
        var tapt = tapt
        try tapt.modifyChildren { apertures in
            for index in apertures.indices {
                var reader = ByteReader(apertures[index].payload, baseOffset: apertures[index].payloadOffset, path: "tapt/\(apertures[index].type)")
                let versionAndFlags = try reader.u32(), width = try reader.u32(), height = try reader.u32()
                var writer = ByteWriter()
                writer.u32(versionAndFlags)
                writer.u32(scaled(width, by: factor.x))
                writer.u32(scaled(height, by: factor.y))
                apertures[index] = Box(type: apertures[index].type, bytes: writer.bytes)
            }
        }
        return tapt
    }
}
