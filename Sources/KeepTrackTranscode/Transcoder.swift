import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming

/// What `Transcoder.run` is asked for.
public struct TranscodeOptions: Sendable {
    public enum Video: String, Sendable, CaseIterable {
        case h264, hevc, prores, dnxhr, copy
        public var codec: VideoEncoder.Codec? { VideoEncoder.Codec(rawValue: rawValue) }
        /// The encoder's profile when none is asked for: 4:2:2 10-bit for both intra formats.
        var defaultProfile: String? {
            switch self {
            case .prores: "hq"
            case .dnxhr: EncodePlan.dnxhrTenBitProfile
            default: nil
            }
        }
    }

    public enum Audio: String, Sendable, CaseIterable {
        /// Every audio track byte for byte.
        case copy
        /// Each decodable audio track as LPCM holding what a player presents; others (APAC) as they are.
        case pcm
    }

    public var video: Video = .h264
    public var audio: Audio = .copy
    public var crf: Double?
    public var preset: String?
    /// ProRes (proxy, lt, standard, hq) or DNxHR (dnxhr_lb, dnxhr_sq, dnxhr_hq, dnxhr_hqx) profile.
    public var profile: String?
    /// Fit inside this size, keeping the aspect; never larger than the source.
    public var maxSize: PixelSize?
    /// nil: HDR stays HDR where the codec is 10-bit and is tone-mapped where it is 8-bit.
    public var hdr: EncodePlan.HDR?
    public var overwrite = false
    /// Stereo MV-HEVC: re-encode its base view (one eye) as 2D video instead of refusing.
    public var flattenStereo = false
    /// Stereo MV-HEVC: both views decoded by FFmpeg 9 and packed into one picture (or one eye kept) as this says.
    public var stereo: StereoPacking?
    public init() {}

    /// The encoding settings given (`--crf` ...), by option name, for the summary's `notApplied` when nothing is encoded.
    public var givenEncodingSettings: [String] {
        [("crf", crf != nil), ("preset", preset != nil), ("max-size", maxSize != nil), ("hdr", hdr != nil), ("profile", profile != nil)]
            .filter(\.1).map(\.0)
    }

    /// Settings given that the chosen codec has no use for, each with why.
    var settingsTheCodecIgnores: [TranscodeSummary.Item] {
        guard let codec = video.codec else { return [] }
        if codec.isAnnexB {
            return profile == nil ? [] : [.init("profile", "\(codec.rawValue)'s quality is --crf and --preset")]
        }
        return [("crf", crf != nil), ("preset", preset != nil)].filter(\.1)
            .map { .init($0.0, "\(codec.rawValue) is intra-only: its quality is its profile") }
    }
}

/// Re-encodes a movie's video (and with `--audio pcm` decodes its audio) and passes every other track through
/// byte for byte: the one pipeline (decode, filter, encode, `PassthroughMux`) with the source's geometry kept.
public enum Transcoder {
    public static func run(input: String, output: String, options: TranscodeOptions,
                           progress: (_ frames: Int, _ total: Int, _ seconds: Double) -> Void = { _, _, _ in }) throws -> TranscodeSummary {
        let started = Date()
        let movie = try Movie.open(path: input)
        try checkContainer(output: output, movie: movie, options: options)
        let reencodes = options.video != .copy
        let video = reencodes ? try videoTrack(of: movie, flattenStereo: options.flattenStereo, stereo: options.stereo) : movie.tracks.first { $0.kind == .video }
        if reencodes, let video { try movie.checkDecodable(video, purpose: "transcode") }
        var summary = TranscodeSummary(input: input, output: output, sourceCodec: video.map { $0.codecName ?? $0.format?.description ?? "?" } ?? "none")
        for other in movie.tracks where other.kind == .video && other.id != video?.id && reencodes {
            summary.notes.append("video track \(other.id) passed through as it is: only the first enabled video track (\(video?.id ?? 0)) is re-encoded")
        }
        if !reencodes {
            summary.notApplied = options.givenEncodingSettings.map { .init($0, "--video copy re-encodes nothing") }
        }
        if !reencodes, options.audio == .copy {
            var remux = MovieOutput.Options()
            remux.overwrite = options.overwrite
            let copied = try MovieOutput.remux(input: input, output: output, options: remux)
            summary.verification = copied.verification
            summary.notes += copied.notes
            summary.keptTracks = movie.tracks.map(\.id)
            summary.timings = [.init("total", Date().timeIntervalSince(started))]
            return summary
        }
        if !options.overwrite, FileManager.default.fileExists(atPath: output) { throw KeepTrackError.outputExists(output) }
        let job = try video.flatMap { reencodes ? try VideoJob(input: input, movie: movie, video: $0, options: options, summary: &summary) : nil }
        return try OutputFile.write(to: output, overwrite: options.overwrite, inputs: [input]) { destination in
            var replacements: [UInt32: OutputTrack] = [:]
            var dataFiles: [OutputFile] = []
            defer { for file in dataFiles { file.discard() } }
            if options.audio == .pcm {
                for track in movie.tracks where track.kind == .audio {
                    if let pcm = try pcmTrack(track, movie: movie, beside: destination, dataFiles: &dataFiles, summary: &summary) { replacements[track.id] = pcm }
                }
            }
            var encodeSeconds = 0.0
            if let job, let video {
                let data = try OutputFile(destination: destination.destination + ".video", overwrite: true)
                dataFiles.append(data)
                let encodeStarted = Date()
                replacements[video.id] = try job.encode(into: data, summary: &summary, progress: progress)
                encodeSeconds = Date().timeIntervalSince(encodeStarted)
            }
            let encodedAt = Date()
            let tracks = movie.tracks.map { replacements[$0.id] ?? OutputTrack($0, in: movie) }
            let (written, kept) = try PassthroughMux.write(movie: movie, tracks: tracks, into: destination)
            if let job, summary.frames == job.frameTimes.count {
                let (shown, note) = PresentedVideo.shownFrames(of: job.video)
                try PassthroughMux.checkShownFrames(written: destination.temporaryPath, video: job.video.id, source: shown.shown.count,
                                                    lastShownAt: shown.times.last ?? 0, sourceVideo: job.video, editListNote: note)
            }
            summary.verification = written.verification
            summary.notes += written.notes
            summary.keptTracks = kept
            let muxed = Date()
            summary.timings = [.init("encode", encodeSeconds), .init("mux", muxed.timeIntervalSince(encodedAt)),
                               .init("total", muxed.timeIntervalSince(started))]
            return summary
        }
    }

    /// Formats already LPCM: `--audio pcm` leaves them as they are.
    static let pcmFormats: Set<FourCC> = ["lpcm", "twos", "sowt", "in24", "in32", "fl32", "fl64", "raw ", "ipcm", "fpcm"]

    /// `track` decoded to LPCM, or nil (named in `notApplied`) when it is LPCM already or has no decoder here (APAC).
    static func pcmTrack(_ track: Track, movie: Movie, beside destination: OutputFile, dataFiles: inout [OutputFile],
                         summary: inout TranscodeSummary) throws -> OutputTrack? {
        let name = track.codecName ?? track.format?.description ?? "?"
        if let format = track.format, pcmFormats.contains(format) {
            summary.notApplied.append(.init("audio track \(track.id)", "\(name) is LPCM already"))
            return nil
        }
        let data = try OutputFile(destination: destination.destination + ".audio\(track.id)", overwrite: true)
        dataFiles.append(data)
        do {
            let pcm = try PCMAudioTrack.make(track, in: movie, data: data)
            summary.changed.append("audio track \(track.id): \(name) decoded to 32-bit float LPCM, the presented samples only (priming and edit list applied)")
            return pcm
        } catch let error as CodecError {
            summary.notApplied.append(.init("audio track \(track.id)", "\(name) kept as it is: \(error.description)"))
        } catch KeepTrackError.unsupported(let why) {
            summary.notApplied.append(.init("audio track \(track.id)", "\(name) kept as it is: \(why)"))
        }
        return nil
    }

    /// The video track to re-encode: the first enabled one (the first when none is), decodable and not stereo.
    static func videoTrack(of movie: Movie, flattenStereo: Bool, stereo packing: StereoPacking? = nil) throws -> Track {
        let videos = movie.tracks.filter { $0.kind == .video }
        guard let video = videos.first(where: \.isEnabled) ?? videos.first else {
            throw KeepTrackError.unsupported("\(movie.tracks.count) tracks and none is video: nothing to transcode")
        }
        if let protection = video.protection {
            throw KeepTrackError.unsupported("video track \(video.id) is encrypted (\(protection.originalFormat)\(protection.scheme.map { ", scheme \($0)" } ?? "")): it cannot be decoded, so nothing can be transcoded")
        }
        if let packing, !(video.video?.stereo?.multiviewHEVC ?? false), let packed = video.video?.layout?.framePacking {
            throw KeepTrackError.unsupported("--stereo \(packing.arrangement.rawValue): video track \(video.id) is already one picture with both eyes in it (st3d: \(packed)); --stereo packs the two views of stereo MV-HEVC. Without --stereo, transcode keeps its packing")
        }
        if let packing, !(video.video?.stereo?.multiviewHEVC ?? false) {
            let what = video.video?.stereo.map { "\($0.summary) without a second HEVC layer (lhvC)" } ?? "\(video.codecName ?? video.format?.description ?? "video") with no lhvC box"
            throw KeepTrackError.unsupported("--stereo \(packing.arrangement.rawValue): video track \(video.id) has one view (\(what)): it is not stereo MV-HEVC, so there is no second eye to pack")
        }
        if let stereo = video.video?.stereo, stereo.multiviewHEVC, !flattenStereo, packing == nil {
            throw KeepTrackError.unsupported("video track \(video.id) is \(stereo.summary): FFmpeg 5.1 decodes only its base view, so a transcode would lose the second eye and the spatial metadata (--stereo sbs|ou|left|right decodes both views with FFmpeg 9; --flatten-stereo re-encodes the base view as 2D; keeptrack flatten-stereo keeps it without re-encoding)")
        }
        return video
    }

    /// The output's name must say the container the source is (`ftyp` passes through): a .mov holds QuickTime
    /// sound descriptions (APAC's version 2) that an .mp4 cannot.
    static func checkContainer(output: String, movie: Movie, options: TranscodeOptions) throws {
        let ext = (output as NSString).pathExtension.lowercased()
        if let codec = options.video.codec, !codec.isAnnexB, ext != "mov" {
            throw KeepTrackError.usage("\(codec.rawValue) is written into QuickTime movies: name the output .mov")
        }
        if options.audio == .pcm, ext != "mov" {
            throw KeepTrackError.usage("--audio pcm writes QuickTime LPCM sound descriptions: name the output .mov")
        }
        let isQuickTime = ["mov", "qt"].contains(ext), isISO = ["mp4", "m4v"].contains(ext)
        guard isQuickTime || isISO else {
            throw KeepTrackError.usage("cannot tell the container from '\(output)': name it .mov or .mp4 (as the source is \(movie.isQuickTime ? "QuickTime (.mov)" : "MP4"))")
        }
        guard isQuickTime == movie.isQuickTime else {
            throw KeepTrackError.usage("the source is \(movie.isQuickTime ? "QuickTime (.mov)" : "MP4") and transcode keeps the container (its sound descriptions and boxes pass through as they are): name the output .\(movie.isQuickTime ? "mov" : "mp4")")
        }
    }

    /// `size` scaled to fit inside `box` keeping its aspect, never larger, in even sizes (4:2:0 encoders need them:
    /// an odd source loses its last column or row to a scale).
    public static func fit(_ size: PixelSize, inside box: PixelSize?) -> PixelSize {
        func even(_ value: Double) -> Int { max(2, Int(value / 2) * 2) }
        guard let box, size.width > box.width || size.height > box.height else {
            return PixelSize(width: even(Double(size.width)), height: even(Double(size.height)))
        }
        let scale = min(Double(box.width) / Double(size.width), Double(box.height) / Double(size.height))
        return PixelSize(width: even(Double(size.width) * scale), height: even(Double(size.height) * scale))
    }

    /// What the first decoded frame says: size, pixel format and colour. Throws `CodecError.notDecodable` naming
    /// the codec when this FFmpeg has no decoder for it.
    static func firstFrame(of movie: Movie, _ video: Track) throws -> (width: Int, height: Int, pixelFormat: Int32, colour: VideoEncoder.Colour?) {
        struct Found: Error { var width: Int, height: Int, pixelFormat: Int32, colour: VideoEncoder.Colour? }
        do {
            try VideoDecoding.decode(movie, video) { frame, _ in
                throw Found(width: Int(frame.pointee.width), height: Int(frame.pointee.height), pixelFormat: frame.pointee.format,
                            colour: EncodePlan.sourceColour(of: frame, track: video))
            }
        } catch let found as Found {
            return (found.width, found.height, found.pixelFormat, found.colour)
        } catch let error as CodecError {
            throw KeepTrackError.unsupported("video track \(video.id) (\(video.codecName ?? video.format?.description ?? "unknown codec")): \(error.description)")
        }
        throw KeepTrackError.unsupported("video track \(video.id) decoded to no frames: nothing to transcode")
    }
}

/// Transcode's frame source: every frame decoded, filtered when the plan asks (scale, tone map, pixel format),
/// each with its presentation time.
final class DecodedFrames: FrameProducer {
    let movie: Movie, video: Track, filter: FilterGraph?, colour: VideoEncoder.Colour?

    init(movie: Movie, video: Track, filter: FilterGraph?, colour: VideoEncoder.Colour?) {
        self.movie = movie
        self.video = video
        self.filter = filter
        self.colour = colour
    }

    func produce(into handoff: FrameHandoff) throws {
        func hand(_ frame: UnsafeMutablePointer<AVFrame>) throws {
            // The decoder's picture type would force the encoder's frame types; let the encoder choose.
            frame.pointee.pict_type = AV_PICTURE_TYPE_NONE
            guard handoff.put(frame) else { throw FrameProducerStopped() }
        }
        try VideoDecoding.decode(movie, video) { frame, time in
            guard let copy = av_frame_clone(frame) else { throw KeepTrackError.io("out of memory handing a decoded frame over") }
            copy.pointee.pts = time
            // The filters read the colour from the frame: where the stream leaves it out, the colr box says it.
            if let colour {
                copy.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(colour.primaries))
                copy.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(colour.transfer))
                copy.pointee.colorspace = AVColorSpace(rawValue: UInt32(colour.matrix))
            }
            guard let filter else { return try hand(copy) }
            defer { var owned: UnsafeMutablePointer<AVFrame>? = copy; av_frame_free(&owned) }
            try filter.filter(copy, body: hand)
        }
        try filter?.filter(nil, body: hand)
    }

    func stop() {}
}

/// The video half of a transcode, planned before the output is opened (so a refusal writes nothing): the first
/// frame's facts, the output size and the encode plan; `encode` runs the pipeline into a data file.
struct VideoJob {
    let movie: Movie
    let video: Track
    let first: (width: Int, height: Int, pixelFormat: Int32, colour: VideoEncoder.Colour?)
    let size: PixelSize
    let frameTimes: [Double]
    var plan: EncodePlan
    /// The packed picture's size before --max-size: the source's frame size, or the stereo packing's.
    let stored: PixelSize
    let stereo: StereoJob?

    init(input: String, movie: Movie, video: Track, options: TranscodeOptions, summary: inout TranscodeSummary) throws {
        self.movie = movie
        self.video = video
        // FFmpeg 9 starts first: its start and first frames overlap our own decode of the first frame.
        let stereo = try options.stereo.map { try StereoJob(input: input, video: video, packing: $0) }
        if let facts = stereo?.facts(of: video) {
            first = facts  // what the boxes say: no decode of a 4K picture by FFmpeg 5.1 only to learn it
        } else {
            first = try Transcoder.firstFrame(of: movie, video)
            stereo?.settle(view: StereoPacking.Size(width: first.width, height: first.height), pixelFormat: first.pixelFormat)
        }
        self.stereo = stereo
        stored = stereo.map { PixelSize(width: $0.picture.width, height: $0.picture.height) } ?? PixelSize(width: first.width, height: first.height)
        size = Transcoder.fit(stored, inside: options.maxSize)
        frameTimes = PresentedVideo.presentationTimes(of: video).sorted().map { Double($0) / Double(max(video.mediaHeader.timescale, 1)) }
        plan = try EncodePlan.make(video: video, frameTimes: frameTimes, sourceColour: first.colour, outputSize: size,
                                   codec: options.video.codec, profile: options.profile ?? options.video.defaultProfile,
                                   crf: options.crf, preset: options.preset, hdr: options.hdr ?? .keepWherePossible)
        if let pasp = video.sampleEntries.first?.first("pasp")?.payload, pasp.count >= 8 {
            // The source's pixel aspect (kept as its pasp box) also in the new stream's VUI, so the two agree.
            let spacing = { (at: Int) in pasp[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
            if let h = Int32(exactly: spacing(0)), let v = Int32(exactly: spacing(4)), h > 0, v > 0 {
                plan.settings.pixelAspect = .init(numerator: h, denominator: v)
            }
        }
        summary.notApplied += options.settingsTheCodecIgnores
        summary.describe(plan: plan, source: stored, output: size, sourceColour: first.colour, hdrName: video.video?.hdr)
        if let stereo {
            summary.changed.append(stereo.describe())
            summary.notApplied += stereo.notCarried.map { .init("stereo metadata", $0) }
        } else if let stereo = video.video?.stereo, stereo.multiviewHEVC {
            summary.changed.append("flattened: \(stereo.summary) re-encoded as its base view only (one eye, 2D); the second view is not in the output")
        } else if options.flattenStereo {
            summary.notApplied.append(.init("flatten-stereo", "the video is not stereo MV-HEVC"))
        }
        if let maxSize = options.maxSize, size.width >= stored.width - 1, size.height >= stored.height - 1 {
            summary.notApplied.append(.init("max-size", "the picture (\(stored.width)x\(stored.height)) already fits \(maxSize.width)x\(maxSize.height): never upscaled"))
        }
        if options.hdr != nil, !(first.colour?.isHDR ?? false) {
            summary.notApplied.append(.init("hdr", "the source is not HDR (HLG/PQ)"))
        }
    }

    /// Decodes, filters and encodes every frame into `data`; returns the new track, reading its samples from there.
    func encode(into data: OutputFile, summary: inout TranscodeSummary,
                progress: (_ frames: Int, _ total: Int, _ seconds: Double) -> Void) throws -> OutputTrack {
        let encoder = try VideoEncoder(plan.settings)
        let filter = try FilterGraph.description(from: (stored.width, stored.height, first.pixelFormat), to: (size.width, size.height), plan: plan)
            .map { try FilterGraph($0, width: stored.width, height: stored.height, pixelFormat: first.pixelFormat, timeBase: plan.settings.timeBase) }
        let producer: any FrameProducer
        if let frames = stereo?.frames(filter: filter, colour: first.colour) {
            producer = frames
        } else {
            producer = DecodedFrames(movie: movie, video: video, filter: filter, colour: first.colour)
        }
        let run = VideoEncodeRun(producer: producer, encoder: encoder, into: data, producerName: "keeptrack.decode")
        let total = frameTimes.count
        let encoded = try run.wait { frames, seconds in progress(frames, total, seconds) }
        summary.frames = encoded.framesEncoded
        summary.sourceFrames = total
        if encoded.framesEncoded < total {
            summary.dropped.append(.init("frames", "\(total - encoded.framesEncoded) of \(total) video frames could not be decoded"))
        }
        var replacement = ReplacementVideoTrack(source: video, codec: plan.codec, profile: plan.settings.profile, extradata: encoder.extradata,
                                                colour: plan.settings.colour, sourceColour: first.colour, size: size, geometry: .keepSource,
                                                samples: encoded.samples, frameTimes: frameTimes)
        if let stereo {
            replacement.stereoBoxes = stereo.boxes
            replacement.stereoWords = stereo.packing.words
        }
        summary.dropped += replacement.droppedBoxes.map { .init("sample entry box \($0.type)", $0.reason) }
        return try replacement.outputTrack(data: data)
    }
}
