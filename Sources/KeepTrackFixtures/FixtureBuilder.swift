import Foundation
import KeepTrack

/// Writes synthetic movies with the iPhone layout and chosen variations. The container is real
/// (every box a player or keeptrack reads is there); the payloads are opaque deterministic bytes,
/// which the movie's metadata states (`com.keeptrack.synthetic`).
public struct FixtureBuilder {
    public var options: FixtureOptions

    public init(_ options: FixtureOptions = FixtureOptions()) { self.options = options }

    /// Track ids: video 1, stereo 2, spatial 3, metadata 4...
    public static let videoID: UInt32 = 1
    public static let stereoID: UInt32 = 2
    public static let spatialID: UInt32 = 3

    static let movieTimescale: UInt32 = 600

    /// Writes the movie to `path` (replacing it) and returns the path.
    @discardableResult
    public func write(to path: String) throws -> String {
        try OutputFile.write(to: path, overwrite: true) { _ = try makeWriter().write(to: $0) }
        return path
    }

    /// The whole movie in memory (small fixtures only).
    public func bytes() throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.path
        let path = folder + "/keeptrack-fixture-\(UUID().uuidString).mov"
        try write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    public func makeWriter() throws -> MovieWriter {
        var tracks: [OutputTrack] = []
        if options.includeVideo { tracks.append(try videoTrack()) }
        var audio: [OutputTrack] = []
        if options.includeStereo { audio.append(try stereoTrack()) }
        if options.includeSpatial { audio.append(try spatialTrack()) }
        if options.spatialFirst { audio.reverse() }
        tracks += audio
        if options.includeVideo {
            for index in 0..<options.metadataTracks { tracks.append(try metadataTrack(id: UInt32(4 + index))) }
        }
        let ids = tracks.map { try! TrackHeaderBox(box: $0.trak.first("tkhd")!).trackID }
        var mvhd = MovieHeaderBox()
        mvhd.timescale = Self.movieTimescale
        mvhd.duration = UInt64(options.duration * Double(Self.movieTimescale))
        mvhd.times.creationTime = 3_811_000_000
        mvhd.times.modificationTime = mvhd.times.creationTime
        mvhd.reserved = Array(repeating: 0, count: 10)
        mvhd.quickTimeTimes = Array(repeating: 0, count: 24)
        mvhd.nextTrackID = (ids.max() ?? 0) + 1
        var moovChildren = [Box(type: "mvhd", bytes: try mvhd.encoded())]
        moovChildren += tracks.map(\.trak)
        if options.movieMetadata { moovChildren.append(try movieMeta()) }
        var writerOptions = MovieWriter.Options()
        writerOptions.moovFirst = options.moovFirst
        writerOptions.forceLargeOffsets = options.largeOffsets
        writerOptions.chunkDuration = options.chunkDuration
        return MovieWriter(fileType: try fileType(), moovTemplate: Box(type: "moov", children: moovChildren), tracks: tracks, options: writerOptions)
    }

    func fileType() throws -> Box {
        var ftyp = FileTypeBox()
        switch options.flavour {
        case .quickTime:
            ftyp.majorBrand = "qt  "
            ftyp.minorVersion = 0
            ftyp.compatibleBrands = ["qt  "]
        case .mp4:
            ftyp.majorBrand = "mp42"
            ftyp.compatibleBrands = ["mp42", "isom"]
        }
        return Box(type: "ftyp", bytes: try ftyp.encoded())
    }

    // MARK: Tracks

    func videoTrack() throws -> OutputTrack {
        let timescale: UInt32 = 600
        let count = max(1, Int(options.duration * Double(options.frameRate)))
        let delta = UInt32(timescale) / UInt32(options.frameRate)
        let gop = options.frameRate
        let frameBytes = options.videoFrameBytes
        let sizes: [UInt32] = (0..<count).map { index in
            index % gop == 0 ? UInt32(frameBytes * 4) : UInt32(frameBytes + (index * 37) % 200)
        }
        var entry = VisualSampleEntry()
        entry.header.reserved = Array(repeating: 0, count: 6)
        entry.width = 1920
        entry.height = 1080
        var name = Array("HEVC".utf8)
        name.insert(UInt8(name.count), at: 0)
        entry.compressorName = name + Array(repeating: 0, count: 32 - name.count)
        var hvcC = HEVCConfigurationBox()
        hvcC.profileByte = 2 // Main 10
        hvcC.profileCompatibility = 0x2000_0000
        hvcC.constraintFlags = [0x90, 0, 0, 0, 0, 0]
        hvcC.levelIDC = 123
        hvcC.rest = [0xF0, 0x00, 0xFC, 0xFD, 0xFA, 0xFA, 0x00, 0x00, 0x0F, 0x00]
        var colr = ColourInformationBox()
        colr.primaries = 9; colr.transfer = 18; colr.matrixCoefficients = 9
        var dvvC = DolbyVisionConfigurationBox()
        dvvC.packed = UInt16(8) << 9 | UInt16(7) << 3 | 0b101
        dvvC.compatibilityByte = 4 << 4
        dvvC.rest = Array(repeating: 0, count: 19)
        let sampleEntry = Box(type: "hvc1", prefix: try entry.encoded(), children: [
            Box(type: "hvcC", bytes: try hvcC.encoded()), Box(type: "colr", bytes: try colr.encoded()), Box(type: "dvvC", bytes: try dvvC.encoded()),
        ])
        var stts = TimeToSampleBox(); stts.pairs = [UInt32(count), delta]
        // Composition offsets of a simple IBP pattern.
        var ctts = CompositionOffsetBox()
        let pattern: [UInt32] = [delta, delta * 2, 0]
        var cttsPairs: [UInt32] = []
        for index in 0..<count { cttsPairs.append(1); cttsPairs.append(pattern[index % 3]) }
        ctts.pairs = cttsPairs
        var stss = SyncSampleBox(); stss.sampleNumbers = stride(from: 1, through: count, by: gop).map(UInt32.init)
        var sdtp = SampleDependencyBox(); sdtp.flags = (0..<count).map { $0 % gop == 0 ? 0x20 : 0x18 }
        var stsz = SampleSizeBox(); stsz.sizes = sizes; stsz.sampleCount = UInt32(count)
        let stbl = Box(type: "stbl", children: [
            stsd(sampleEntry), Box(type: "stts", bytes: try stts.encoded()), Box(type: "ctts", bytes: try ctts.encoded()),
            Box(type: "stss", bytes: try stss.encoded()), Box(type: "sdtp", bytes: try sdtp.encoded()), Box(type: "stsz", bytes: try stsz.encoded()),
            Box(type: "stsc", bytes: []), Box(type: "stco", bytes: []),
        ])
        var matrix = TrackHeaderBox.identityMatrix
        switch options.rotation {
        case 90: matrix = [0, 0x10000, 0, 0xFFFF_0000, 0, 0, 0, 0, 0x4000_0000]
        case 180: matrix = [0xFFFF_0000, 0, 0, 0, 0xFFFF_0000, 0, 0, 0, 0x4000_0000]
        case 270: matrix = [0, 0xFFFF_0000, 0, 0x10000, 0, 0, 0, 0, 0x4000_0000]
        default: break
        }
        let trak = try makeTrak(id: Self.videoID, handler: "vide", timescale: timescale, mediaDuration: UInt64(count) * UInt64(delta),
                            enabled: true, group: 0, width: 1920, height: 1080, matrix: matrix, volume: 0,
                            mediaHeader: Box(type: "vmhd", bytes: [0, 0, 0, 1, 0, 0x40, 0x80, 0, 0x80, 0, 0x80, 0]),
                            references: [], extra: [], stbl: stbl)
        return try output(trak: trak, id: Self.videoID, sizes: sizes, timescale: timescale, sparse: options.sparseVideo, framedAsNALUnits: true)
    }

    var stereoEnabled: Bool { options.enabled == .stereoOnly || options.enabled == .both }
    var spatialEnabled: Bool { options.enabled == .spatialOnly || options.enabled == .both }

    func stereoTrack(id: UInt32 = FixtureBuilder.stereoID, enabled: Bool? = nil, references: [Box] = []) throws -> OutputTrack {
        let real = options.stereoAudio
        let count = real?.packets.count ?? audioPacketCount
        let sizes = real?.packets.map { UInt32($0.count) } ?? (0..<count).map { UInt32(340 + ($0 * 53) % 90) }
        var entry = AudioSampleEntry()
        entry.header.reserved = Array(repeating: 0, count: 6)
        entry.channelCount = 2
        entry.sampleSize = 16
        entry.sampleRate = 48000 << 16
        if options.flavour == .quickTime {
            entry.version = 1
            entry.compressionID = -2
            entry.samplesPerPacket = 1024
            entry.bytesPerPacket = 0
            entry.bytesPerFrame = 0
            entry.bytesPerSample = 2
        }
        let sampleEntry = Box(type: "mp4a", prefix: try entry.encoded(), children: [
            Box(type: "esds", bytes: real?.elementaryStreamDescriptor ?? Self.aacElementaryStreamDescriptor),
        ])
        let stbl = try audioTable(entry: sampleEntry, sizes: sizes, sync: false)
        let group = options.includeSpatial ? options.alternateGroup : 0
        let presented = real.map { (start: Int64($0.primingFrames), frames: UInt64($0.presentedFrames)) }
        let trak = try makeTrak(id: id, handler: "soun", timescale: 48000, mediaDuration: UInt64(count) * 1024,
                            enabled: enabled ?? (stereoEnabled || !options.includeSpatial), group: group, width: 0, height: 0,
                            matrix: TrackHeaderBox.identityMatrix, volume: 0x100,
                            mediaHeader: Box(type: "smhd", bytes: [0, 0, 0, 0, 0, 0, 0, 0]), references: references,
                            extra: [], stbl: stbl, presented: presented)
        if let real {
            return try output(trak: trak, sizes: sizes, timescale: 48000, data: MemoryByteSource(Array(real.packets.joined())))
        }
        return try output(trak: trak, id: id, sizes: sizes, timescale: 48000, sparse: false)
    }

    func spatialTrack() throws -> OutputTrack {
        if options.alternateIsStereoCopy, options.stereoAudio != nil {
            let fall = Box(type: "fall", bytes: try TrackReferenceTypeBox(trackIDs: [Self.stereoID]).encoded())
            return try stereoTrack(id: Self.spatialID, enabled: spatialEnabled, references: options.fallReference ? [fall] : [])
        }
        let count = audioPacketCount
        let channels = options.spatialChannels
        var sampleEntry: Box
        var sizes: [UInt32]
        var entry = AudioSampleEntry()
        entry.header.reserved = Array(repeating: 0, count: 6)
        var perPacketFrames: UInt32 = 1024
        if options.spatialAsLPCM {
            // 4-channel 24-bit LPCM as a v2 SoundDescription (ProRes recordings).
            perPacketFrames = 1
            entry.version = 2
            entry.channelCount = 3; entry.sampleSize = 16; entry.compressionID = -2; entry.sampleRate = 0x10000
            entry.audioSampleRateBits = Double(48000).bitPattern
            entry.audioChannels = UInt32(channels)
            entry.constBitsPerChannel = 24
            entry.formatSpecificFlags = 0xC // signed integer, packed
            entry.constBytesPerAudioPacket = UInt32(3 * channels)
            entry.constLPCMFramesPerAudioPacket = 1
            sampleEntry = Box(type: "lpcm", prefix: try entry.encoded(), children: [])
            sizes = Array(repeating: UInt32(3 * channels), count: count * 1024)
        } else {
            let dapa = Box(type: "dapa", bytes: [0, 0, 0, 0, 0x08, 0, 0x14, 0x01, 0x80, 0x0E, 0x05, 0x40, UInt8(channels), 0x7A, 0x33, 0x10])
            if options.flavour == .quickTime {
                entry.version = 2
                entry.channelCount = 3; entry.sampleSize = 16; entry.compressionID = -2; entry.sampleRate = 0x10000
                entry.audioSampleRateBits = Double(48000).bitPattern
                entry.audioChannels = UInt32(channels)
                entry.constLPCMFramesPerAudioPacket = 1024
                sampleEntry = Box(type: "apac", prefix: try entry.encoded(), children: [dapa, Box(type: "ngst", bytes: [0, 0, 0, 0, 0, 0, 0, 1])])
            } else {
                // AVAssetWriter's ISO entry: channelcount 2 is a placeholder.
                entry.channelCount = 2; entry.sampleSize = 16; entry.sampleRate = 48000 << 16
                sampleEntry = Box(type: "apac", prefix: try entry.encoded(), children: [dapa])
            }
            sizes = (0..<count).map { UInt32(600 + ($0 * 71) % 160) }
        }
        var stbl = try audioTable(entry: sampleEntry, sizes: sizes, sync: !options.spatialAsLPCM, delta: options.spatialAsLPCM ? 1 : 1024)
        if !options.spatialAsLPCM {
            // Pre-roll groups as iPhone writes them.
            var sgpd = SampleGroupDescriptionBox()
            sgpd.header.version = 1; sgpd.groupingType = "prol"; sgpd.defaultLength = 2; sgpd.entryCount = 1; sgpd.entries = [0, 1]
            var sbgp = SampleToGroupBox()
            sbgp.groupingType = "prol"; sbgp.pairs = [1, 1, UInt32(count - 1), 0]
            try stbl.modifyChildren { $0.insert(contentsOf: [Box(type: "sgpd", bytes: try sgpd.encoded()), Box(type: "sbgp", bytes: try sbgp.encoded())], at: 1) }
        }
        var references: [Box] = []
        if options.fallReference && options.includeStereo {
            references.append(Box(type: "fall", bytes: try TrackReferenceTypeBox(trackIDs: [Self.stereoID]).encoded()))
        }
        if let dangling = options.danglingReference {
            references.append(Box(type: "folw", bytes: try TrackReferenceTypeBox(trackIDs: [dangling]).encoded()))
        }
        let group = options.includeStereo ? options.alternateGroup : 0
        let trak = try makeTrak(id: Self.spatialID, handler: "soun", timescale: 48000, mediaDuration: UInt64(count) * UInt64(perPacketFrames == 1 ? 1024 : 1024),
                            enabled: spatialEnabled || !options.includeStereo, group: group, width: 0, height: 0,
                            matrix: TrackHeaderBox.identityMatrix, volume: 0x100,
                            mediaHeader: Box(type: "smhd", bytes: [0, 0, 0, 0, 0, 0, 0, 0]), references: references,
                            extra: [], stbl: stbl)
        return try output(trak: trak, id: Self.spatialID, sizes: sizes, timescale: 48000, sparse: false)
    }

    func metadataTrack(id: UInt32) throws -> OutputTrack {
        let key = Array("mdta".utf8) + Array("com.apple.quicktime.video-orientation".utf8)
        let keyd = Box(type: "keyd", bytes: key)
        let dtyp = Box(type: "dtyp", bytes: [0, 0, 0, 0, 0, 0, 0, 66])
        let local = Box(type: FourCC(rawValue: 1), prefix: [], children: [keyd, dtyp])
        let keys = Box(type: "keys", prefix: [], children: [local])
        let sampleEntry = Box(type: "mebx", prefix: [0, 0, 0, 0, 0, 0, 0, 1], children: [keys])
        let count = max(1, Int(options.duration))
        let sizes = Array(repeating: UInt32(10), count: count)
        var stts = TimeToSampleBox(); stts.pairs = [UInt32(count), 600]
        var stsz = SampleSizeBox(); stsz.constantSize = 10; stsz.sampleCount = UInt32(count)
        let stbl = Box(type: "stbl", children: [
            stsd(sampleEntry), Box(type: "stts", bytes: try stts.encoded()), Box(type: "stsz", bytes: try stsz.encoded()),
            Box(type: "stsc", bytes: []), Box(type: "stco", bytes: []),
        ])
        let reference = Box(type: "cdsc", bytes: try TrackReferenceTypeBox(trackIDs: [Self.videoID]).encoded())
        let trak = try makeTrak(id: id, handler: "meta", timescale: 600, mediaDuration: UInt64(count) * 600, enabled: true, group: 0,
                            width: 0, height: 0, matrix: TrackHeaderBox.identityMatrix, volume: 0,
                            mediaHeader: Box(type: "nmhd", bytes: [0, 0, 0, 0]), references: [reference], extra: [], stbl: stbl)
        return try output(trak: trak, id: id, sizes: sizes, timescale: 600, sparse: false)
    }

    // MARK: Pieces

    var audioPacketCount: Int { max(1, Int((options.duration * 48000 / 1024).rounded(.up))) }

    func stsd(_ entry: Box) -> Box {
        Box(type: "stsd", prefix: [0, 0, 0, 0, 0, 0, 0, 1], children: [entry])
    }

    func audioTable(entry: Box, sizes: [UInt32], sync: Bool, delta: UInt32 = 1024) throws -> Box {
        var stts = TimeToSampleBox(); stts.pairs = [UInt32(sizes.count), delta]
        var stsz = SampleSizeBox()
        if Set(sizes).count == 1 { stsz.constantSize = sizes[0]; stsz.sampleCount = UInt32(sizes.count) } else { stsz.sizes = sizes; stsz.sampleCount = UInt32(sizes.count) }
        var children = [stsd(entry), Box(type: "stts", bytes: try stts.encoded())]
        if sync {
            var stss = SyncSampleBox(); stss.sampleNumbers = stride(from: 1, through: sizes.count, by: 76).map(UInt32.init)
            children.append(Box(type: "stss", bytes: try stss.encoded()))
        }
        children += [Box(type: "stsz", bytes: try stsz.encoded()), Box(type: "stsc", bytes: []), Box(type: "stco", bytes: [])]
        return Box(type: "stbl", children: children)
    }

    func makeTrak(id: UInt32, handler: FourCC, timescale: UInt32, mediaDuration: UInt64, enabled: Bool, group: UInt16,
                  width: UInt32, height: UInt32, matrix: [UInt32], volume: Int16, mediaHeader: Box, references: [Box],
                  extra: [Box], stbl: Box, presented: (start: Int64, frames: UInt64)? = nil) throws -> Box {
        let movieDuration = (presented?.frames ?? mediaDuration) * UInt64(Self.movieTimescale) / UInt64(timescale)
        var tkhd = TrackHeaderBox()
        tkhd.header.flags = enabled ? 0xF : 0xE
        tkhd.times.creationTime = 3_811_000_000
        tkhd.times.modificationTime = tkhd.times.creationTime
        tkhd.trackID = id
        tkhd.duration = movieDuration
        tkhd.reserved2 = Array(repeating: 0, count: 8)
        tkhd.alternateGroup = group
        tkhd.volume = volume
        tkhd.matrix = matrix
        tkhd.width = width << 16
        tkhd.height = height << 16
        var elst = EditListBox()
        var edit = EditListBox.Entry()
        edit.segmentDuration = movieDuration
        edit.mediaTime = presented?.start ?? 0
        elst.entries = [edit]
        var mdhd = MediaHeaderBox()
        mdhd.times.creationTime = tkhd.times.creationTime
        mdhd.times.modificationTime = tkhd.times.creationTime
        mdhd.timescale = timescale
        mdhd.duration = mediaDuration
        mdhd.language = options.flavour == .quickTime ? 0x55C4 : 0x55C4 // "und"
        var hdlr = HandlerBox()
        hdlr.reserved = Array(repeating: 0, count: 12)
        var minfHandler: Box?
        if options.flavour == .quickTime {
            hdlr.componentType = "mhlr"
            hdlr.handlerType = handler
            let name = Array("Core Media \(handler == "vide" ? "Video" : handler == "soun" ? "Audio" : "Metadata")".utf8)
            hdlr.nameBytes = [UInt8(name.count)] + name
            var dataHandler = HandlerBox()
            dataHandler.componentType = "dhlr"; dataHandler.handlerType = "alis"
            dataHandler.reserved = Array(repeating: 0, count: 12)
            let dataName = Array("Core Media Data Handler".utf8)
            dataHandler.nameBytes = [UInt8(dataName.count)] + dataName
            minfHandler = Box(type: "hdlr", bytes: try dataHandler.encoded())
        } else {
            hdlr.handlerType = handler
            hdlr.nameBytes = Array("Core Media \(handler)".utf8) + [0]
        }
        let dref = Box(type: "dref", prefix: [0, 0, 0, 0, 0, 0, 0, 1], children: [
            Box(type: options.flavour == .quickTime ? "alis" : "url ", bytes: [0, 0, 0, 1]),
        ])
        var minfChildren = [mediaHeader]
        if let minfHandler { minfChildren.append(minfHandler) }
        minfChildren += [Box(type: "dinf", children: [dref]), stbl]
        var mdiaChildren = [Box(type: "mdhd", bytes: try mdhd.encoded())]
        if handler == "soun" { mdiaChildren.append(Box(type: "elng", bytes: [0, 0, 0, 0] + Array("und".utf8) + [0])) }
        mdiaChildren += [Box(type: "hdlr", bytes: try hdlr.encoded()), Box(type: "minf", children: minfChildren)]
        var trakChildren = [Box(type: "tkhd", bytes: try tkhd.encoded())]
        if handler == "soun" { trakChildren.append(Box(type: "tgas", bytes: [0, 0, 0, 0, 0, 0])) }
        trakChildren.append(Box(type: "edts", children: [Box(type: "elst", bytes: try elst.encoded())]))
        if !references.isEmpty { trakChildren.append(Box(type: "tref", children: references)) }
        trakChildren += extra
        trakChildren.append(Box(type: "mdia", children: mdiaChildren))
        return Box(type: "trak", children: trakChildren)
    }

    /// The track's sample bytes: a deterministic pattern per track and sample, or zeros left as holes.
    /// `framedAsNALUnits`: each sample is one NAL unit after its 4-byte length, as the video's hvcC says
    /// (keeptrack checks that of a track's first sample).
    func output(trak: Box, id: UInt32, sizes: [UInt32], timescale: UInt32, sparse: Bool, framedAsNALUnits: Bool = false) throws -> OutputTrack {
        let total = sizes.reduce(UInt64(0)) { $0 + UInt64($1) }
        var data: ByteSource
        if sparse {
            data = ZeroByteSource(size: total)
        } else {
            data = PatternByteSource(seed: UInt64(id), size: total)
        }
        // Sparse video stays zeros (holes in the file); a zeroed first sample says nothing about the configuration.
        if framedAsNALUnits && !sparse { data = NALFramedByteSource(data, sizes: sizes) }
        return try output(trak: trak, sizes: sizes, timescale: timescale, data: data)
    }

    /// The track over `data`, which holds the samples back to back.
    func output(trak: Box, sizes: [UInt32], timescale: UInt32, data: ByteSource) throws -> OutputTrack {
        var offsets: [UInt64] = []
        offsets.reserveCapacity(sizes.count)
        var total: UInt64 = 0
        for size in sizes { offsets.append(total); total += UInt64(size) }
        // One sample per source chunk: the writer regroups them.
        let table = SampleTable(sampleCount: sizes.count, sizes: sizes, constantSize: 0, chunkOffsets: offsets,
                                sampleToChunk: sizes.isEmpty ? [] : [1, 1, 1], timeToSample: [])
        var realTable = table
        // Decode times come from the trak's stts so interleaving follows the real timing.
        if let stbl = trak.find(["mdia", "minf", "stbl"]), let sttsBox = stbl.first("stts"), let stts = try? TimeToSampleBox(box: sttsBox) {
            let description = (stbl.first("stsd")?.children.isEmpty ?? true) ? [] : [UInt32(1), 1, 1]
            realTable = SampleTable(sampleCount: sizes.count, sizes: sizes, constantSize: 0, chunkOffsets: offsets,
                                    sampleToChunk: sizes.isEmpty ? [] : description, timeToSample: stts.pairs)
        }
        return OutputTrack(trak: trak, table: realTable, data: data, timescale: timescale)
    }

    func movieMeta() throws -> Box {
        let items: [(String, String)] = [
            ("com.apple.quicktime.make", "Apple"),
            ("com.apple.quicktime.model", "keeptrack synthetic iPhone layout"),
            ("com.apple.quicktime.software", "keeptrack fixture builder"),
            ("com.apple.quicktime.creationdate", "2026-11-29T10:00:00+0000"),
            ("com.apple.quicktime.location.ISO6709", "+00.0000+000.0000+000.000/"),
            ("com.keeptrack.synthetic", "payloads are opaque bytes, not decodable media"),
        ]
        var keys = MetadataKeysBox()
        keys.keys = items.map { item in
            var key = MetadataKeysBox.Key()
            key.name = Array(item.0.utf8)
            return key
        }
        var hdlr = HandlerBox()
        hdlr.handlerType = "mdta"
        hdlr.reserved = Array(repeating: 0, count: 12)
        hdlr.nameBytes = [0]
        var ilstChildren: [Box] = []
        for (index, item) in items.enumerated() {
            var data = MetadataDataBox()
            data.value = Array(item.1.utf8)
            ilstChildren.append(Box(type: FourCC(rawValue: UInt32(index + 1)), prefix: [], children: [Box(type: "data", bytes: try data.encoded())]))
        }
        return Box(type: "meta", children: [Box(type: "hdlr", bytes: try hdlr.encoded()), Box(type: "keys", bytes: try keys.encoded()),
                                            Box(type: "ilst", children: ilstChildren)])
    }

    /// ES_Descriptor for AAC-LC, 48 kHz, stereo.
    static let aacElementaryStreamDescriptor: [UInt8] = [
        0, 0, 0, 0, // version, flags
        0x03, 0x19, 0x00, 0x02, 0x00, // ES_Descriptor, ES_ID 2
        0x04, 0x11, 0x40, 0x15, 0x00, 0x06, 0x00, 0x00, 0x02, 0xEE, 0x00, 0x00, 0x02, 0xEE, 0x00, // DecoderConfig: AAC, audio, 192 kb/s
        0x05, 0x02, 0x11, 0x90, // AudioSpecificConfig: AAC-LC, 48000 Hz, 2 channels
        0x06, 0x01, 0x02, // SLConfig
    ]
}

/// Deterministic pseudo-random bytes computed from their offset: payloads of any size (benchmark
/// files of several GiB) without holding them in memory.
/// Samples laid back to back in `base`, each made one NAL unit: its first 4 bytes say the length of the rest,
/// the next 2 are an HEVC NAL unit header.
final class NALFramedByteSource: ByteSource {
    let base: ByteSource
    let starts: [UInt64]
    let sizes: [UInt32]
    var size: UInt64 { base.size }

    init(_ base: ByteSource, sizes: [UInt32]) {
        self.base = base
        self.sizes = sizes
        var starts: [UInt64] = []
        var next: UInt64 = 0
        for size in sizes { starts.append(next); next += UInt64(size) }
        self.starts = starts
    }

    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        var bytes = try base.read(at: offset, count: count)
        let end = offset + UInt64(count)
        // The last sample starting at or before `offset`, then every one starting inside the range.
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= offset { low = middle + 1 } else { high = middle }
        }
        var index = max(0, low - 1)
        while index < starts.count, starts[index] < end {
            let length = sizes[index] >= 4 ? sizes[index] - 4 : 0
            // Then an HEVC NAL unit header of layer 0 (a trailing picture), so no second view is read into the bytes.
            let prefix: [UInt8] = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), 0x02, 0x01]
            for byte in 0..<min(prefix.count, Int(sizes[index])) {
                let position = starts[index] + UInt64(byte)
                if position >= offset, position < end { bytes[Int(position - offset)] = prefix[byte] }
            }
            index += 1
        }
        return bytes
    }
}

public final class PatternByteSource: ByteSource {
    public let size: UInt64
    let seed: UInt64

    public init(seed: UInt64, size: UInt64) {
        self.seed = seed &* 0x9E37_79B9_7F4A_7C15
        self.size = size
    }

    /// splitmix64 of the 8-byte word index: every word independent, so any range can be produced alone.
    @inline(__always)
    func word(_ index: UInt64) -> UInt64 {
        var z = seed &+ index &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw KeepTrackError.malformed(path: "", offset: offset, reason: "read past the end of \(size) pattern bytes")
        }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var index = 0
            var position = offset
            while index < count {
                let value = word(position >> 3)
                var byte = position & 7
                while byte < 8 && index < count {
                    buffer[index] = UInt8(truncatingIfNeeded: value >> (byte << 3))
                    index += 1
                    byte += 1
                    position += 1
                }
            }
            initialized = count
        }
    }
}
