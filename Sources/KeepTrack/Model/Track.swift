/// What a track carries, from its handler.
public enum TrackKind: String, Sendable, CaseIterable {
    case video, audio, metadata, text, timecode, other

    init(handler: FourCC) {
        switch BoxSchema.sampleEntryForm(handler: handler) {
        case .visual: self = .video; return
        case .audio: self = .audio; return
        case .other: break
        }
        switch handler {
        case "meta", "mdta": self = .metadata
        case "text", "sbtl", "subt", "clcp", "subp": self = .text
        case "tmcd": self = .timecode
        default: self = .other
        }
    }
}

/// Audio facts, from the most truthful field available.
public struct AudioInfo: Sendable, Equatable {
    /// nil when the only field is a known placeholder (APAC in an ISO AudioSampleEntry says 2).
    public var channels: Int?
    public var sampleRate: Double?
    /// Spatial audio: APAC, or multichannel LPCM that is the alternative to a stereo fallback.
    public var spatial: Bool
}

/// Video facts: coded size, display size after the matrix, colour.
public struct VideoInfo: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var displayWidth: Int
    public var displayHeight: Int
    public var rotation: Int?
    public var frameRate: Double?
    /// "HLG", "PQ" or nil (SDR or not signalled).
    public var hdr: String?
    /// Dolby Vision profile.compatibility, e.g. "8.4".
    public var dolbyVision: String?
    public var dolbyVisionLevel: Int?
    /// Spatial (stereoscopic) video: nil for a flat picture.
    public var stereo: StereoVideoInfo? = nil
    /// Frame packing and projection of the whole picture (`st3d`, `sv3d`): nil when neither box is there.
    public var layout: PictureLayout? = nil
}

/// What a visual sample entry says about a stereoscopic picture (`StereoVideoBoxes.swift`): which eye views
/// are coded, how the second is carried, and the camera facts a player needs to show it in depth. A decoder
/// that knows only HEVC (FFmpeg 5.1) sees the base view alone: one eye, flat.
public struct StereoVideoInfo: Sendable, Equatable {
    public var hasLeftEye: Bool
    public var hasRightEye: Bool
    /// The views are stored right eye first.
    public var eyeViewsReversed: Bool
    /// An `lhvC` box describes a second layer: multiview HEVC (MV-HEVC), both views in one track.
    public var multiviewHEVC: Bool
    /// "left" or "right": the eye a 2D presentation shows.
    public var heroEye: String?
    public var baselineMillimetres: Double?
    /// Horizontal field of view of each view, degrees.
    public var fieldOfViewDegrees: Double?
    /// The projection (`prji`) when not rectilinear: "equirectangular", "half-equirectangular", "fisheye" or
    /// the four-character code.
    public var projection: String?

    /// "stereo MV-HEVC (left+right eyes, hero left), 64° field of view, 19.24 mm baseline".
    public var summary: String {
        var eyes = [hasLeftEye ? "left" : nil, hasRightEye ? "right" : nil].compactMap { $0 }.joined(separator: "+")
        if eyes.isEmpty { eyes = "eyes not said" } else { eyes += hasLeftEye && hasRightEye ? " eyes" : " eye" }
        if eyeViewsReversed { eyes += ", reversed" }
        if let heroEye { eyes += ", hero \(heroEye)" }
        var parts = ["stereo" + (multiviewHEVC ? " MV-HEVC" : "") + " (\(eyes))"]
        if let fieldOfViewDegrees { parts.append(String(format: "%g° field of view", fieldOfViewDegrees)) }
        if let baselineMillimetres { parts.append(String(format: "%g mm baseline", baselineMillimetres)) }
        if let projection { parts.append("\(projection) projection") }
        return parts.joined(separator: ", ")
    }
}

/// One `trak` with its headers decoded. The box itself stays as read; the writer copies it.
public struct Track: Sendable {
    /// The `trak` as read, or as edited by `replaceHeader`/`removeReferences` — which change `header`
    /// and `references` with it, so the decoded views always describe these bytes.
    public private(set) var box: Box
    /// Box path for messages, e.g. `moov/trak[3]`.
    public let path: String
    public private(set) var header: TrackHeaderBox
    public let mediaHeader: MediaHeaderBox
    public let handler: HandlerBox
    public let editList: EditListBox?
    public let extendedLanguage: ExtendedLanguageBox?
    /// Outgoing references: `fall` → [2] for the spatial track.
    public private(set) var references: [TrackReference]
    public let sampleEntries: [Box]
    /// Every sample of the track: the `stbl` samples, then those of every fragment in file order.
    public internal(set) var sampleTable: SampleTable
    /// What the track's fragments added (nil when the movie is not fragmented).
    public internal(set) var fragments: TrackFragments?
    /// Timing from every sample, for a track whose fragments added samples (see `mergeFragments`); nil otherwise.
    public internal(set) var defragmentedTiming: DefragmentedTiming?
    /// Channels and rate read from the first packet's frame header, for codecs that keep them
    /// nowhere else (MP3, DTS); set by `Movie`, which holds the bytes.
    public internal(set) var frameHeaderFacts: AudioFrameFacts?
    /// The movie's time scale, for durations in seconds.
    public let movieTimescale: UInt32
    /// False when `movieTimescale` is a fallback (no mvhd, or its time scale is 0): tkhd and elst
    /// durations are then in a scale nobody knows.
    public let movieTimescaleKnown: Bool
    /// With the movie time scale unknown, its edit list was rewritten in `movieTimescale` on reading
    /// (`Movie.editsInFallbackScale`), so the edits' durations can be read in it.
    public internal(set) var editsInFallbackScale = false

    public init(box: Box, path: String, movieTimescale: UInt32, movieTimescaleKnown: Bool = true) throws {
        self.box = box
        self.path = path
        self.movieTimescale = movieTimescale
        self.movieTimescaleKnown = movieTimescaleKnown
        func need(_ child: Box?, _ name: String) throws -> Box {
            guard let child else { throw KeepTrackError.malformed(path: path, offset: box.offset, reason: "track has no \(name)") }
            return child
        }
        let tkhd = try need(box.first("tkhd"), "tkhd")
        try Self.checkLength(tkhd, path: path + "/tkhd", minimum: tkhd.payload.first == 1 ? 92 : 80)
        header = try TrackHeaderBox(box: tkhd, path: path + "/tkhd")
        let mdia = try need(box.first("mdia"), "mdia")
        mediaHeader = try MediaHeaderBox(box: need(mdia.first("mdhd"), "mdia/mdhd"), path: path + "/mdia/mdhd")
        handler = try HandlerBox(box: need(mdia.first("hdlr"), "mdia/hdlr"), path: path + "/mdia/hdlr")
        // A second elst: remux copied both and join kept the stale one beside its own, which ffprobe could not open
        // (damage sweep). Which one the writer meant cannot be told, as for the sample tables.
        if let lists = box.first("edts")?.all("elst"), lists.count > 1 {
            throw KeepTrackError.malformed(path: path + "/edts/elst[2]", offset: lists[1].offset,
                reason: "is a second elst in the edit box (the first at byte \(lists[0].offset))")
        }
        editList = try box.find(["edts", "elst"]).map { try EditListBox(box: $0, path: path + "/edts/elst") }
        extendedLanguage = try mdia.first("elng").map { try ExtendedLanguageBox(box: $0, path: path + "/mdia/elng") }
        var references: [TrackReference] = []
        for child in box.first("tref")?.children ?? [] {
            references.append(TrackReference(type: child.type, trackIDs: try TrackReferenceTypeBox(box: child, path: path + "/tref/\(child.type)").trackIDs))
        }
        self.references = references
        let stbl = try need(mdia.find(["minf", "stbl"]), "mdia/minf/stbl")
        sampleEntries = stbl.first("stsd")?.children ?? []
        sampleTable = try SampleTable(stbl: stbl, path: path + "/mdia/minf/stbl")
        // QuickTime's convention for uncompressed audio (libquicktime, older Apple writers): stsz says
        // 1 and a sample is one frame, its bytes given by the sound description. ffmpeg reads it so;
        // read as 1 byte, half of 16-bit mono (more of wider frames) would go missing from every copy.
        if sampleTable.sizes.isEmpty, sampleTable.constantSize == 1, let frame = uncompressedAudioFrameBytes, frame > 1 {
            sampleTable.constantSize = frame
        }
        // The same convention for compressed audio (ima4, MAC3, ...): 1-byte, 1-tick samples are frames
        // and a packet holds several. keeptrack copies whole samples and cannot tell the packets apart.
        if sampleTable.sizes.isEmpty, sampleTable.constantSize == 1, sampleTable.sampleCount > 1, sampleEntryForm == .audio,
           !isLPCM, uncompressedAudioFrameBytes == nil,
           stride(from: 1, to: sampleTable.timeToSample.count, by: 2).allSatisfy({ sampleTable.timeToSample[$0] == 1 }) {
            throw KeepTrackError.unsupported("\(path)/mdia/minf/stbl/stsz at byte \(sampleTable.boxOffsets["stsz"] ?? stbl.offset): "
                + "\(sampleTable.sampleCount) samples of 1 byte and 1 tick, QuickTime's count of the frames of `\(format.map(\.description) ?? "?")` "
                + "audio whose packets hold several; keeptrack copies packets and cannot find them in this track")
        }
        let triples = sampleTable.sampleToChunk
        // An empty stsd is what ffmpeg writes for codecs it does not know (Apple's mebx tracks): the
        // track cannot be decoded, but the file is readable; `lint` reports it (missing-sample-description).
        for run in stride(from: 0, to: triples.count - 2, by: 3) where !sampleEntries.isEmpty && Int(triples[run + 2]) > sampleEntries.count {
            throw KeepTrackError.malformed(path: path + "/mdia/minf/stbl/stsc", offset: sampleTable.boxOffsets["stsc"] ?? stbl.offset,
                reason: "entry \(run / 3 + 1) names sample description \(triples[run + 2]), stsd has \(sampleEntries.count)")
        }
    }

    /// Re-encodes `tkhd` from `header` (bytes past the decoded fields kept as they were) and makes it the
    /// track's header: the box and its decoded view change together.
    mutating func replaceHeader(_ header: TrackHeaderBox) throws {
        guard let tkhdIndex = box.children.firstIndex(where: { $0.type == "tkhd" }) else {
            throw KeepTrackError.malformed(path: path, offset: box.offset, reason: "track has no tkhd")
        }
        let original = box.children[tkhdIndex].payload
        let encoded = try header.encoded()
        let payload = encoded + original.dropFirst(encoded.count)
        box.modifyChildren { $0[tkhdIndex].content = .bytes(payload) }
        self.header = header
    }

    /// Removes the references naming any of `ids` from `tref` (an emptied reference type and an empty
    /// `tref` go too) and from `references` alike. Returns what was removed (`tref/fall → 2`), empty
    /// when nothing named them.
    mutating func removeReferences(to ids: Set<UInt32>) throws -> [String] {
        var removed: [String] = []
        var kept: [TrackReference] = []
        for reference in references {
            let remaining = reference.trackIDs.filter { !ids.contains($0) }
            let gone = reference.trackIDs.filter { ids.contains($0) }
            if !gone.isEmpty { removed.append("tref/\(reference.type) → \(gone.map(String.init).joined(separator: ", "))") }
            if !remaining.isEmpty { kept.append(TrackReference(type: reference.type, trackIDs: remaining)) }
        }
        guard !removed.isEmpty else { return [] }
        try box.modifyChildren { children in
            guard let trefIndex = children.firstIndex(where: { $0.type == "tref" }) else { return }
            var tref = children[trefIndex]
            try tref.modifyChildren { referenceBoxes in
                referenceBoxes = try referenceBoxes.compactMap { box in
                    guard let view = try? TrackReferenceTypeBox(box: box) else { return box }
                    let remaining = view.trackIDs.filter { !ids.contains($0) }
                    if remaining.count == view.trackIDs.count { return box }
                    if remaining.isEmpty { return nil }
                    var edited = box
                    edited.content = .bytes(try TrackReferenceTypeBox(trackIDs: remaining).encoded())
                    return edited
                }
            }
            if tref.children.isEmpty { children.remove(at: trefIndex) } else { children[trefIndex] = tref }
        }
        references = kept
        return removed
    }

    static func checkLength(_ box: Box, path: String, minimum: Int) throws {
        if box.payload.count < minimum {
            throw KeepTrackError.malformed(path: path, offset: box.offset, reason: "is \(box.payload.count) bytes, version \(box.payload.first ?? 0) needs \(minimum)")
        }
    }

    public var id: UInt32 { header.trackID }
    public var isEnabled: Bool { header.isEnabled }
    public var alternateGroup: UInt16 { header.alternateGroup }
    public var kind: TrackKind { TrackKind(handler: handler.handlerType) }
    public var sampleEntryForm: SampleEntryForm { BoxSchema.sampleEntryForm(handler: handler.handlerType) }
    public var format: FourCC? { sampleEntries.first?.type }

    public func referencedIDs(_ type: FourCC) -> [UInt32] {
        references.filter { $0.type == type }.flatMap(\.trackIDs)
    }

    /// Track duration in seconds: tkhd's, in movie time (what players show); when tkhd says
    /// "unknown" (all ones) or the movie has no usable time scale, the duration of the samples; nil
    /// when neither is known (an unknown tkhd duration over an empty sample table).
    /// A track whose fragments added samples: from every sample (tkhd describes only moov's).
    public var duration: Double? {
        if movieTimescale > 0, let timing = defragmentedTiming { return Double(timing.trackDuration) / Double(movieTimescale) }
        if !header.durationIsUnknown, movieTimescaleKnown, movieTimescale > 0 { return Double(header.duration) / Double(movieTimescale) }
        guard sampleTable.sampleCount > 0, mediaHeader.timescale > 0 else { return nil }
        return mediaDuration
    }

    public var mediaDuration: Double {
        mediaHeader.timescale == 0 ? 0 : Double(sampleTable.mediaDuration) / Double(mediaHeader.timescale)
    }

    public var language: String? { extendedLanguage?.language ?? mediaHeader.languageCode }

    public var bitrate: Double? {
        let seconds = mediaDuration
        return seconds > 0 ? Double(sampleTable.totalBytes) * 8 / seconds : nil
    }

    // MARK: Codec

    static let lpcmFormats: Set<FourCC> = ["lpcm", "sowt", "twos", "in24", "in32", "fl32", "fl64", "raw ", "ipcm", "fpcm"]

    public var isLPCM: Bool { format.map(Self.lpcmFormats.contains) ?? false }

    /// Bytes of one frame (every channel) of QuickTime uncompressed audio, from the sound description
    /// of every entry (nil when they disagree, or for ISO `ipcm`/`fpcm`, whose stsz sizes are the truth).
    var uncompressedAudioFrameBytes: UInt32? {
        guard sampleEntryForm == .audio, !sampleEntries.isEmpty else { return nil }
        var sizes = Set<UInt32>()
        for entry in sampleEntries {
            guard entry.isContainer, let fields = try? AudioSampleEntry(decoding: entry.payload) else { return nil }
            let bits: UInt32
            switch entry.type {
            case "twos", "sowt", "raw ", "NONE": bits = UInt32(fields.sampleSize)
            case "in24": bits = 24
            case "in32", "fl32": bits = 32
            case "fl64": bits = 64
            case "ulaw", "alaw": bits = 8
            case "lpcm": bits = fields.constBitsPerChannel
            default: return nil
            }
            switch fields.version {
            case 1 where fields.bytesPerFrame > 0: sizes.insert(fields.bytesPerFrame)
            case 2 where fields.constLPCMFramesPerAudioPacket == 1 && fields.constBytesPerAudioPacket > 0:
                sizes.insert(fields.constBytesPerAudioPacket)
            default: sizes.insert((bits + 7) / 8 * UInt32(fields.effectiveChannels))
            }
        }
        return sizes.count == 1 ? sizes.first : nil
    }

    /// Protected sample entries (`encv`, `enca`, `enct`, `encs`): the original format from
    /// `sinf/frma` and the scheme from `sinf/schm` (`cenc`, `cbcs`, ...).
    public var protection: Protection? {
        guard let entry = sampleEntries.first, Self.protectedFormats.contains(entry.type), let sinf = entry.first("sinf"),
              let frma = sinf.first("frma"), let original = try? OriginalFormatBox(box: frma) else { return nil }
        return Protection(originalFormat: original.dataFormat, scheme: sinf.first("schm").flatMap { try? SchemeTypeBox(box: $0) }?.schemeType)
    }

    /// How a protected sample entry is protected: the format it replaces and the scheme, when named.
    public struct Protection: Sendable, Equatable {
        public var originalFormat: FourCC
        public var scheme: FourCC?
    }

    static let protectedFormats: Set<FourCC> = ["encv", "enca", "enct", "encs"]

    /// The codec's format: the sample entry's, or for a protected entry the original one.
    var codecFormat: FourCC? { protection?.originalFormat ?? format }

    public var codecName: String? {
        guard let name = plainCodecName else { return nil }
        guard let protection else { return name }
        return name + " (encrypted" + (protection.scheme.map { ", \($0)" } ?? "") + ")"
    }

    /// The codec's name, protected or not.
    var plainCodecName: String? {
        guard let format = codecFormat else { return nil }
        switch format {
        case "avc1", "avc3": return "H.264" + (configuration(AVCConfigurationBox.self, "avcC").map { " \($0.profileName)" } ?? "")
        case "hvc1", "hev1": return "HEVC" + (configuration(HEVCConfigurationBox.self, "hvcC").map { " \($0.profileName)" } ?? "")
        case "dvh1", "dvhe": return "Dolby Vision HEVC"
        case "dvav", "dva1": return "Dolby Vision H.264"
        case "av01": return "AV1"
        case "vp09": return "VP9"
        case "ap4h", "ap4x", "apch", "apcn", "apcs", "apco": return "Apple ProRes"
        case "jpeg", "mjpa": return "Motion JPEG"
        case "mp4v": return visualObjectTypeName
        case "s263", "h263": return "H.263"
        case "png ": return "PNG"
        case "mp1v", "mp2v", "xdvc", "xd5c": return "MPEG-2 video"
        case "mp4a": return mp4aObjectType.map(MPEG4ObjectType.codecName) ?? "AAC"
        case ".mp3", "ms\u{0}U": return "MP3"
        case "dtsc", "dtsh", "dtsl", "dtse", "dtsx": return "DTS"
        case "apac": return "Apple Positional Audio (APAC)"
        case "alac": return "Apple Lossless (ALAC)"
        case "ac-3": return "AC-3"
        case "ec-3": return "E-AC-3"
        case "ac-4": return "AC-4"
        case "mlpa": return "Dolby TrueHD"
        case "samr": return "AMR-NB"
        case "sawb": return "AMR-WB"
        case "Opus": return "Opus"
        case "fLaC": return "FLAC"
        case "mebx": return "timed metadata (mebx)"
        case "tmcd": return "timecode"
        case "tx3g", "text": return "text"
        case "c608": return "CEA-608 captions"
        case "c708": return "CEA-708 captions"
        default: return Self.lpcmFormats.contains(format) ? "LPCM" : nil
        }
    }

    /// A child box of the first sample entry, decoded as `V`.
    public func configuration<V: BoxView>(_ type: V.Type, _ fourCC: FourCC) -> V? {
        guard let entry = sampleEntries.first, let box = entry.first(fourCC) else { return nil }
        return try? V(box: box)
    }

    /// The AAC AudioSpecificConfig from the first sample entry's `esds` (QuickTime keeps it inside `wave`).
    public var audioSpecificConfig: AudioSpecificConfig? { esdsBox?.audioSpecificConfig }

    /// The first sample entry's `esds`, nil when absent or unreadable.
    var esdsBox: ElementaryStreamDescriptorBox? {
        guard kind == .audio, let entry = sampleEntries.first else { return nil }
        guard let box = entry.first("esds") ?? entry.find(["wave", "esds"]) else { return nil }
        return try? ElementaryStreamDescriptorBox(box: box)
    }

    /// An `mp4v` entry's codec, named by its `esds` object type (MPEG-4 Visual, MPEG-1/2 video, JPEG).
    var visualObjectTypeName: String {
        guard let box = sampleEntries.first?.first("esds"), let type = (try? ElementaryStreamDescriptorBox(box: box))?.objectTypeIndication else {
            return "MPEG-4 Visual"
        }
        return MPEG4ObjectType.codecName(type)
    }

    /// The `esds` object type of an `mp4a` entry (0x40 AAC, 0x6B MP3, 0xDD Vorbis, …).
    var mp4aObjectType: UInt8? { codecFormat == "mp4a" ? esdsBox?.objectTypeIndication : nil }

    /// For codecs that say their channels only in each frame header, which header to read.
    var frameHeaderCodec: AudioFrameFacts.FrameCodec? {
        guard kind == .audio, let format = codecFormat, protection == nil else { return nil }
        switch format {
        case ".mp3", "ms\u{0}U": return .mpegAudio
        case "dtsc", "dtsh", "dtsl", "dtse": return .dts
        case "ac-3": return .ac3
        case "ec-3": return .eac3
        case "mp4a":
            guard let type = mp4aObjectType else { return nil }
            if MPEG4ObjectType.mpegAudio.contains(type) { return .mpegAudio }
            if MPEG4ObjectType.dts.contains(type) { return .dts }
            return nil
        default: return nil
        }
    }

    /// The configuration box of the first sample entry that says what a decoder of its codec
    /// outputs (QuickTime files may keep it inside `wave`); nil for codecs without one or when it
    /// cannot be read.
    public var audioCodecConfiguration: (any AudioCodecConfiguration)? {
        guard kind == .audio, let entry = sampleEntries.first, let format = codecFormat else { return nil }
        func child<V: BoxView & AudioCodecConfiguration>(_ type: V.Type, _ fourCC: FourCC) -> V? {
            guard let box = entry.first(fourCC) ?? entry.find(["wave", fourCC]) else { return nil }
            return try? V(box: box)
        }
        switch format {
        case "ac-3": return child(AC3SpecificBox.self, "dac3")
        case "ec-3": return child(EAC3SpecificBox.self, "dec3")
        case "mlpa": return child(MLPSpecificBox.self, "dmlp")
        case "alac": return child(ALACSpecificBox.self, "alac")
        case "Opus": return child(OpusSpecificBox.self, "dOps")
        case "fLaC": return child(FLACSpecificBox.self, "dfLa")
        case "ac-4": return child(AC4SpecificBox.self, "dac4")
        default: return nil
        }
    }

    /// The sample entry's fields, when the handler says its entries are audio (BoxSchema decides, as for the parser).
    public var audioEntry: AudioSampleEntry? {
        guard sampleEntryForm == .audio, let entry = sampleEntries.first, entry.isContainer else { return nil }
        return try? AudioSampleEntry(decoding: entry.payload)
    }

    public var visualEntry: VisualSampleEntry? {
        guard sampleEntryForm == .visual, let entry = sampleEntries.first, entry.isContainer else { return nil }
        return try? VisualSampleEntry(decoding: entry.payload)
    }

    /// Spatial by codec; multichannel LPCM counts as spatial when it names a fallback (ProRes recordings).
    public var isSpatialAudio: Bool {
        guard kind == .audio else { return false }
        if format == "apac" { return true }
        if isLPCM, let channels = audio?.channels, channels >= 4, !referencedIDs("fall").isEmpty { return true }
        return false
    }

    public var audio: AudioInfo? {
        guard kind == .audio else { return nil }
        guard let entry = audioEntry else { return AudioInfo(channels: nil, sampleRate: nil, spatial: format == "apac") }
        var channels: Int? = entry.effectiveChannels
        var rate: Double? = entry.effectiveSampleRate
        if entry.version != 2, format == "apac" {
            // ISO AudioSampleEntry for APAC: channelcount is a placeholder; the layout lives in opaque `dapa`.
            channels = nil
        }
        if let config = audioSpecificConfig {
            // The codec configuration is what a decoder obeys: it wins over a zero or disagreeing entry field.
            if let configured = config.channels { channels = configured }
            if rate == 0 || rate?.isFinite != true, let configured = config.outputSampleRate { rate = Double(configured) }
        } else if let config = audioCodecConfiguration {
            // dac3, dec3, dmlp, alac, dOps, dfLa, dac4: the entry's fields are placeholders (2 channels;
            // 0 Hz for TrueHD, the encoder's input rate for Opus), the configuration is what is decoded.
            if let configured = config.channels { channels = configured }
            if let configured = config.sampleRate { rate = Double(configured) }
            // VLC 3.0 writes a `dac3` that is not the stream's (32 kHz stereo over 48 kHz mono) and a
            // `dec3` of zeros: decoders, ffprobe and mediainfo go by the frames. A `dec3` whose first
            // substream is the first frame's stays: only it counts the dependent substreams' channels.
            if let facts = frameHeaderFacts {
                let first = (config as? EAC3SpecificBox)?.substreams.first.flatMap { substream in
                    AC3Fields.sampleRate(fscod: substream.fscod).map {
                        AudioFrameFacts(channels: AC3Fields.acmodChannels[substream.acmod] + (substream.lfeon ? 1 : 0), sampleRate: $0)
                    }
                }
                if first != facts { (channels, rate) = (facts.channels, Double(facts.sampleRate)) }
            }
        } else if let format = codecFormat, let amr = AMRSpecificBox.facts(format: format) {
            (channels, rate) = (amr.channels, Double(amr.sampleRate))
        } else if let facts = frameHeaderFacts {
            // MP3, DTS: the entry's fields are placeholders (ffmpeg writes 2 channels); the frame says.
            (channels, rate) = (facts.channels, Double(facts.sampleRate))
        } else if mp4aObjectType == 0xDD, let info = try? esdsBox?.decoderSpecificInfo(),
                  let facts = AudioFrameFacts.vorbisIdentification(info) {
            (channels, rate) = (facts.channels, Double(facts.sampleRate))
        }
        if let value = rate, !value.isFinite || value <= 0 || value > 10_000_000 { rate = nil }
        if rate == nil || rate == 0 { rate = mediaHeader.timescale > 0 ? Double(mediaHeader.timescale) : nil }
        if channels == 0 { channels = nil }
        let spatial = format == "apac" || (isLPCM && (channels ?? 0) >= 4 && !referencedIDs("fall").isEmpty)
        return AudioInfo(channels: channels, sampleRate: rate, spatial: spatial)
    }

    /// Keys a timed metadata track carries (from the `keys` of its `mebx` sample entries), e.g.
    /// `com.apple.quicktime.detected-face`: what the track describes, which decides whether it
    /// still fits after the picture changes.
    public var timedMetadataKeys: [String] {
        var keys: [String] = []
        for entry in sampleEntries where entry.type == "mebx" {
            for local in entry.first("keys")?.children ?? [] {
                guard let keyd = local.first("keyd"), keyd.payload.count > 4 else { continue }
                keys.append(String(decoding: keyd.payload.dropFirst(4), as: UTF8.self))
            }
        }
        return keys
    }

    /// Track-level QuickTime metadata (`trak/meta`: lens model, focal length, ...).
    public var metadata: [MetadataItem] { Movie.readMetadata(box.first("meta")) }

    public var video: VideoInfo? {
        guard kind == .video, let entry = visualEntry else { return nil }
        let rotation = header.rotation
        var displayWidth = Int(header.width >> 16)
        var displayHeight = Int(header.height >> 16)
        if displayWidth == 0 || displayHeight == 0 { displayWidth = Int(entry.width); displayHeight = Int(entry.height) }
        if rotation == 90 || rotation == 270 { swap(&displayWidth, &displayHeight) }
        let frameRate: Double? = mediaDuration > 0 ? Double(sampleTable.sampleCount) / mediaDuration : nil
        let dolby = configuration(DolbyVisionConfigurationBox.self, "dvvC") ?? configuration(DolbyVisionConfigurationBox.self, "dvcC")
            ?? configuration(DolbyVisionConfigurationBox.self, "dvwC")
        return VideoInfo(width: Int(entry.width), height: Int(entry.height), displayWidth: displayWidth, displayHeight: displayHeight,
                         rotation: rotation, frameRate: frameRate, hdr: configuration(ColourInformationBox.self, "colr")?.hdrTransfer,
                         dolbyVision: dolby?.profileName, dolbyVisionLevel: dolby?.level, stereo: stereo,
                         layout: sampleEntries.first.flatMap { PictureLayout(sampleEntry: $0) } ?? PictureLayout(sphericalV1In: box))
    }

    /// The first sample entry's stereo facts: from `vexu` when present, and an `lhvC` (a second HEVC layer)
    /// alone is stereo too. Unreadable leaves are left out, never thrown: these facts only describe.
    public var stereo: StereoVideoInfo? {
        guard kind == .video, let entry = sampleEntries.first else { return nil }
        let vexu = entry.first("vexu"), eyes = vexu?.first("eyes")
        let views = eyes?.first("stri").flatMap { try? StereoViewInformationBox(box: $0) }
        let multiview = entry.first("lhvC") != nil
        guard views != nil || multiview else { return nil }
        let hero = eyes?.first("hero").flatMap { try? HeroEyeBox(box: $0) }?.heroEye
        let baseline = eyes?.find(["cams", "blin"]).flatMap { try? StereoBaselineBox(box: $0) }?.baselineMicrometres
        let fieldOfView = entry.first("hfov").flatMap { try? HorizontalFieldOfViewBox(box: $0) }?.fieldOfViewMillidegrees
        let kind = vexu?.find(["proj", "prji"]).flatMap { try? ProjectionInformationBox(box: $0) }?.projectionKind
        let projection: String? = switch kind {
        case nil, "rect": nil
        case "equi": "equirectangular"
        case "hequ": "half-equirectangular"
        case "fish": "fisheye"
        case let other?: other.description
        }
        // MV-HEVC without a `stri`: two views, the base one left (Apple's default).
        return StereoVideoInfo(hasLeftEye: views?.hasLeftEye ?? true, hasRightEye: views?.hasRightEye ?? true,
                               eyeViewsReversed: views?.eyeViewsReversed ?? false, multiviewHEVC: multiview,
                               heroEye: hero == 1 ? "left" : hero == 2 ? "right" : nil,
                               baselineMillimetres: baseline.map { Double($0) / 1000 },
                               fieldOfViewDegrees: fieldOfView.map { Double($0) / 1000 }, projection: projection)
    }
}

/// One `tref` child: its type (`fall`, `cdsc`, `chap`, ...) and the tracks it names.
/// A track's enabled flag, as a file has it or as a fix sets it.
public struct EnabledFlag: Sendable, Equatable {
    public var trackID: UInt32
    public var enabled: Bool
    public init(trackID: UInt32, enabled: Bool) { self.trackID = trackID; self.enabled = enabled }
}

public struct TrackReference: Sendable, Equatable {
    public var type: FourCC
    public var trackIDs: [UInt32]
    public init(type: FourCC, trackIDs: [UInt32]) { self.type = type; self.trackIDs = trackIDs }
}
