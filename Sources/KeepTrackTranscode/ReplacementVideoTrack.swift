import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming

/// A re-encoded video track ready for the mux: its sample entry (configuration from the encoder, colour and the
/// source's HDR and aperture boxes as `geometry` and the colour allow) and its `trak`, reading its samples from
/// the data file the encode stage wrote.
public struct ReplacementVideoTrack {
    public var source: Track
    public var codec: VideoEncoder.Codec
    /// The ProRes or DNxHR profile (the encoder's name for it).
    public var profile: String?
    /// The encoder's Annex B parameter sets.
    public var extradata: [UInt8]
    /// The colour the encoder wrote (nil: none described).
    public var colour: VideoEncoder.Colour?
    /// The source's colour, to tell whether its colour boxes still describe the new picture.
    public var sourceColour: VideoEncoder.Colour?
    public var size: PixelSize
    public var geometry: EncodedVideoTrack.Geometry
    public var samples: [EncodedVideoSample]
    /// Every encoded frame's presentation time (media seconds), for the last frame's duration.
    public var frameTimes: [Double]
    /// Boxes saying what a packed stereo picture is (`st3d`, `sv3d`, `hfov`), added to the sample entry.
    public var stereoBoxes: [Box] = []
    /// How the views were packed ("full side by side"), for the reasons the MV-HEVC boxes are dropped; nil: flattened to the base view.
    public var stereoWords: String?

    public init(source: Track, codec: VideoEncoder.Codec, profile: String? = nil, extradata: [UInt8], colour: VideoEncoder.Colour?,
                sourceColour: VideoEncoder.Colour?, size: PixelSize, geometry: EncodedVideoTrack.Geometry, samples: [EncodedVideoSample],
                frameTimes: [Double]) {
        self.source = source
        self.codec = codec
        self.profile = profile
        self.extradata = extradata
        self.colour = colour
        self.sourceColour = sourceColour
        self.size = size
        self.geometry = geometry
        self.samples = samples
        self.frameTimes = frameTimes
    }

    /// Sample entry boxes that describe an HDR picture's light: carried while the picture stays HDR.
    public static let hdrBoxes: Set<FourCC> = ["mdcv", "clli", "amve"]
    /// Sample entry boxes that describe the picture's geometry: carried when the geometry is the source's.
    public static let geometryBoxes: Set<FourCC> = ["pasp", "clap"]
    /// Sample entry boxes that say what the whole picture shows: its frame packing (`st3d`), its projection
    /// (`sv3d`: 360° or 180° video) and its field of view (`hfov`). A re-encode, scaled or not, keeps the
    /// picture's layout, so they stay true; a crop (reframe) or an MV-HEVC source (two views, not one picture) does not.
    public static let layoutBoxes: Set<FourCC> = ["st3d", "sv3d", "hfov"]

    /// Whether the source's layout boxes still describe the new picture, and why not when they do not.
    var layoutKept: (kept: Bool, reason: String) {
        guard geometry == .keepSource else { return (false, "says how the source's whole picture is laid out; the output is a crop of it") }
        guard source.video?.stereo?.multiviewHEVC != true else {
            return (false, stereoWords.map { "describes the MV-HEVC views; the output is one picture, \($0)" }
                ?? "describes the stereo (spatial) video; the output is its base view, 2D")
        }
        let sameSize = source.visualEntry.map { Int($0.width) == size.width && Int($0.height) == size.height } ?? false
        if !sameSize, let padding = source.video?.layout?.cubeMapPadding, padding > 0 {
            return (false, "its cube map padding (\(padding) px) is in the unscaled picture's pixels")
        }
        return (true, "")
    }

    /// The source sample entry's boxes the new entry carries over, as they are.
    public var carriedBoxes: [Box] {
        guard let entry = source.sampleEntries.first else { return [] }
        let keepsHDR = (colour?.isHDR ?? false) && colour == sourceColour
        let sameSize = source.visualEntry.map { Int($0.width) == size.width && Int($0.height) == size.height } ?? false
        let keepsLayout = stereoBoxes.isEmpty && layoutKept.kept
        // A clean aperture is in the stored picture's pixels; a pixel aspect survives scaling both ways alike.
        return stereoBoxes + entry.children.filter { box in
            !stereoBoxes.contains { $0.type == box.type } && ((keepsHDR && Self.hdrBoxes.contains(box.type))
                || (geometry == .keepSource && Self.geometryBoxes.contains(box.type) && (box.type == "pasp" || sameSize))
                || (keepsLayout && Self.layoutBoxes.contains(box.type)))
        }
    }

    /// The source sample entry's boxes the new entry leaves out (the old configuration box excepted), each with why.
    public var droppedBoxes: [(type: FourCC, reason: String)] {
        guard let entry = source.sampleEntries.first else { return [] }
        let carried = Set(carriedBoxes.map(\.type)).union(["avcC", "hvcC", "colr"])
        return entry.children.filter { !carried.contains($0.type) }.map { box in
            switch box.type {
            case "dvcC", "dvvC", "dvwC": (box.type, "Dolby Vision configuration: its per-frame metadata (RPUs) is not re-encoded; the base picture stays valid")
            case "mdcv", "clli", "amve": (box.type, "describes the HDR source's light; the output is SDR")
            case "lhvC", "vexu": (box.type, stereoWords.map { "describes the MV-HEVC views; the output is one picture, \($0)" }
                                  ?? "describes the stereo (spatial) video; the output is its base view, 2D")
            case "st3d", "sv3d", "hfov": (box.type, layoutKept.reason)
            case "clap": (box.type, "the clean aperture of the unscaled picture")
            case "pasp": (box.type, "a new picture with square pixels")
            default: (box.type, "describes the source's encoding")
            }
        }
    }

    /// ProRes 4:2:2 sample entry formats by prores_ks profile.
    public static let proResFormats: [String: FourCC] = ["proxy": "apco", "lt": "apcs", "standard": "apcn", "hq": "apch"]

    /// The sample entry's format, its configuration boxes and the compressor name. `firstSample`: the first
    /// encoded frame (DNxHR's compression id is in its header, at byte 0x28).
    func format(firstSample: [UInt8]) throws -> (format: FourCC, configuration: [Box], compressor: String) {
        // Progressive frames (`fiel`: one field), as QuickTime's intra formats say.
        let progressive = Box(type: "fiel", bytes: [1, 0])
        switch codec {
        case .h264: return ("avc1", [Box(type: "avcC", bytes: try VideoParameterSets.avcConfiguration(annexB: extradata))], "keeptrack x264")
        case .hevc: return ("hvc1", [Box(type: "hvcC", bytes: try VideoParameterSets.hevcConfiguration(annexB: extradata))], "keeptrack x265")
        case .prores:
            guard let format = Self.proResFormats[profile ?? ""] else { throw KeepTrackError.unsupported("no ProRes sample entry for profile '\(profile ?? "")'") }
            return (format, [progressive], "keeptrack prores_ks")
        case .dnxhr:
            // Avid's boxes as FFmpeg's muxer writes them for DNxHR: ACLR (1: video range, 2: full range), ADHR (the compression id).
            guard firstSample.count >= 0x2C else { throw KeepTrackError.io("the first DNxHR frame is \(firstSample.count) bytes, too short for its header") }
            var aclr = ByteWriter()
            aclr.fourCC("ACLR")
            aclr.fourCC("0001")
            aclr.u32(colour?.fullRange ?? false ? 2 : 1)
            aclr.u32(0)
            var adhr = ByteWriter()
            adhr.fourCC("0001")
            adhr.append(firstSample[0x28..<0x2C])
            for value: UInt32 in [0, 1, 0, 0] { adhr.u32(value) }
            return ("AVdh", [Box(type: "ACLR", bytes: aclr.bytes), Box(type: "ADHR", bytes: adhr.bytes), progressive], "keeptrack dnxhd")
        }
    }

    /// The sample entry: `colr` as the source had it while the colour is the same, else one for the new colour.
    public func sampleEntry(firstSample: [UInt8] = []) throws -> Box {
        var colourBox: ColourInformationBox?
        if let colour {
            var box = ColourInformationBox()
            box.primaries = UInt16(colour.primaries)
            box.transfer = UInt16(colour.transfer)
            box.matrixCoefficients = UInt16(colour.matrix)
            box.rangeByte = colour.fullRange ? 0x80 : 0
            colourBox = box
        }
        let sourceEntry = source.sampleEntries.first
        let keptColourBox = geometry == .keepSource && colour != nil && colour == sourceColour ? sourceEntry?.first("colr") : nil
        let (format, configuration, compressor) = try format(firstSample: firstSample)
        return try EncodedVideoTrack.sampleEntry(format: format, configuration: configuration,
                                                 width: size.width, height: size.height, colour: colourBox, colourBox: keptColourBox,
                                                 carried: carriedBoxes, squarePixels: geometry == .upright, compressorName: compressor)
    }

    /// The track for the writer, its samples read from `data` (the encode stage's file).
    public func outputTrack(data: OutputFile) throws -> OutputTrack {
        let bytes = try FileByteSource(path: data.temporaryPath)
        let firstSample = codec == .dnxhr ? try bytes.read(at: 0, count: Int(min(samples.first?.size ?? 0, 0x2C))) : []
        var track = EncodedVideoTrack(source: source, sampleEntry: try sampleEntry(firstSample: firstSample), width: size.width, height: size.height,
                                      samples: samples, lastSampleDuration: PassthroughMux.lastFrameDuration(video: source, times: frameTimes))
        track.geometry = geometry
        let built = try track.build()
        return OutputTrack(trak: built.trak, table: built.table, data: bytes,
                           timescale: source.mediaHeader.timescale)
    }
}

/// The mux: new tracks in the old ones' places (same track ids, so references stay valid), every other track byte
/// for byte, read back like every other write (tracks, sample tables, placement and the movie's own boxes).
public enum PassthroughMux {
    /// Writes `tracks` (in their order) into `destination`; returns the write's summary and the ids of the tracks written.
    public static func write(movie: Movie, tracks: [OutputTrack], into destination: OutputFile) throws -> (written: MovieOutput.Summary, keptTracks: [UInt32]) {
        var writer = MovieWriter(passingThrough: movie)
        writer.tracks = tracks
        let written = try MovieOutput.write(writer, into: destination, options: MovieOutput.Options())
        let kept = writer.tracks.compactMap { try? TrackHeaderBox(box: $0.trak.first("tkhd")!).trackID }
        return (written, kept)
    }

    /// The last frame shows as long as the last step between two different frame times (or the track's nominal
    /// frame duration). Two frames at the same time at the end (ffmpeg's frag_every_frame seed) once gave the
    /// last frame one tick, and the edit ended before the frames at that time were shown.
    public static func lastFrameDuration(video: Track, times: [Double]) -> UInt32 {
        let timescale = Double(max(video.mediaHeader.timescale, 1))
        if let step = zip(times.dropFirst(), times).lazy.map({ $0 - $1 }).reversed().first(where: { $0 > 0 }) {
            return UInt32(clamping: max(1, Int64((step * timescale).rounded())))
        }
        return UInt32(max(1, (timescale / (video.video?.frameRate ?? 30)).rounded()))
    }

    /// The written movie, read back, shows the video frames the source shows: as many (its edit list walked as
    /// the source's was), and its video lasts until after the last of them starts (`lastShownAt`, movie seconds).
    /// The sample check (`verification`) cannot see an edit list that hides frames: a fragmented source's
    /// 0-length edit, copied as it was, once made an output of 0 s that showed none, and an edit a few frames
    /// short left the last ones out.
    /// `sourceVideo` and `editListNote` (why the source's edit list was not followed, if it was not) name the source's
    /// timing in the refusal: a shortfall comes from timing the output cannot carry (edits at rate 0 or from media
    /// time -2, a movie time scale of 1), not from I/O, and exited 74 naming no box before (damage sweep).
    public static func checkShownFrames(written path: String, video id: UInt32, source shownInSource: Int, lastShownAt: Double,
                                        sourceVideo: Track? = nil, editListNote: String? = nil) throws {
        let written = try Movie.open(path: path)
        guard let track = written.track(id: id) else { throw KeepTrackError.io("the written movie has no video track \(id)") }
        let shown = PresentedVideo.shownFrames(of: track).frames.shown.count
        let lasts = Double(track.header.duration) / Double(max(track.movieTimescale, 1))
        guard shown == shownInSource, lasts > lastShownAt - 0.0005 else {
            let shortfall = "the written movie would show \(shown) video frames for \(lasts) s where the source shows \(shownInSource), the last at \(lastShownAt) s; nothing was written"
            guard let sourceVideo else { throw KeepTrackError.io(shortfall) }
            // An edit list rewritten on reading (a movie time scale of 0) is at no byte of the file: name the track.
            let elst = sourceVideo.box.find(["edts", "elst"]).flatMap { $0.offset > 0 ? $0 : nil }
            let place = elst.map { "\(sourceVideo.path)/edts/elst at byte \($0.offset)" } ?? "\(sourceVideo.path) at byte \(sourceVideo.box.offset)"
            let timing = (editListNote.map { $0 + "; " } ?? "") + "movie time scale \(sourceVideo.movieTimescaleKnown ? String(sourceVideo.movieTimescale) : "unknown")"
            throw KeepTrackError.unsupported("\(place): the source's timing cannot be carried (\(timing)): " + shortfall)
        }
    }
}
