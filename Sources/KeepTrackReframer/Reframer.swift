import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFaces
import KeepTrackReframe

/// What `keeptrack reframe` does, as options.
public struct ReframeOptions: Sendable {
    /// Target aspect ratio, width:height.
    public var aspect = (width: 9, height: 16)
    /// Scale the crop to this size (even numbers); nil keeps the crop's own pixels.
    public var size: (width: Int, height: Int)?
    /// nil: H.264 for SDR sources, HEVC for HDR sources.
    public var codec: VideoEncoder.Codec?
    public var crf: Double?
    public var preset: String?
    public var overwrite = false
    /// Face detection runs this many times per second of video (plus on likely cuts).
    public var detectionsPerSecond = 3.0
    /// Longest side of the pictures the face detector sees.
    public var detectionSize = 480
    public var settings = CameraPathPlanner.Settings()
    public init() {}
}

/// Progress of a running reframe, for a progress bar.
public struct ReframeProgress: Sendable {
    public enum Phase: String, Sendable { case analysing, encoding }
    public var phase: Phase
    public var frames: Int
    public var totalFrames: Int
    public var seconds: Double
}

/// What a reframe did, for the console and `--json`.
public struct ReframeSummary: Sendable {
    public var input: String
    public var output: String
    public var passthrough: Bool
    public var notes: [String] = []
    public var orientation: (width: Int, height: Int, rotation: Int, displayWidth: Int, displayHeight: Int)
    public var sourceCodec: String
    public var hdr: String?
    public var crop: (width: Int, height: Int)?
    public var outputSize: (width: Int, height: Int)?
    public var codec: VideoEncoder.Codec?
    public var crf: Double?
    public var preset: String?
    public var frames = 0
    public var path: CropPath?
    public var statistics: PathStatistics?
    public var coverage: SubjectCoverage?
    public var analysedFrames = 0
    public var framesWithFaces = 0
    public var keptTracks: [UInt32] = []
    public var droppedTracks: [(id: UInt32, reason: String)] = []
    public var timings: [(String, Double)] = []

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("input", .string(input)), ("output", .string(output)), ("passthrough", .bool(passthrough)),
            ("notes", .array(notes.map(JSONValue.string))),
            ("source", .object([
                ("width", .int(Int64(orientation.width))), ("height", .int(Int64(orientation.height))),
                ("rotation", .int(Int64(orientation.rotation))), ("displayWidth", .int(Int64(orientation.displayWidth))),
                ("displayHeight", .int(Int64(orientation.displayHeight))), ("codec", .string(sourceCodec)), ("hdr", .optional(hdr)),
            ])),
        ]
        if let crop, let outputSize, let codec {
            fields.append(("video", .object([
                ("cropWidth", .int(Int64(crop.width))), ("cropHeight", .int(Int64(crop.height))),
                ("width", .int(Int64(outputSize.width))), ("height", .int(Int64(outputSize.height))),
                ("codec", .string(codec.rawValue)), ("crf", .optional(crf)), ("preset", .optional(preset)), ("frames", .int(Int64(frames))),
            ])))
        }
        if let path, let statistics, let coverage {
            fields.append(("subject", .object([
                ("analysedFrames", .int(Int64(analysedFrames))), ("framesWithFaces", .int(Int64(framesWithFaces))),
                ("framesInsideCrop", .int(Int64(coverage.framesInside))), ("framesPossible", .int(Int64(coverage.possibleFrames))),
                ("coverage", .double((coverage.fraction * 10000).rounded() / 10000)),
            ])))
            fields.append(("shots", .object([
                ("count", .int(Int64(statistics.shots))), ("steady", .int(Int64(statistics.steadyShots))),
                ("cuts", .array(path.shots.dropFirst().map { .int(Int64($0.lowerBound)) })),
            ])))
            fields.append(("path", .object([
                ("axis", .string(path.axis.rawValue)), ("firstOffset", .optional(path.offsets.first)),
                ("lastOffset", .optional(path.offsets.last)), ("movingFrames", .int(Int64(statistics.movingFrames))),
                ("maximumSpeed", .double(statistics.maximumSpeed.rounded())), ("maximumAcceleration", .double(statistics.maximumAcceleration.rounded())),
                ("reversals", .int(Int64(statistics.reversals))), ("largestStep", .int(Int64(statistics.largestStep))),
            ])))
        }
        fields.append(("tracks", .object([
            ("kept", .array(keptTracks.map { .int(Int64($0)) })),
            ("dropped", .array(droppedTracks.map { .object([("id", .int(Int64($0.id))), ("reason", .string($0.reason))]) })),
        ])))
        fields.append(("timings", .object(timings.map { ($0.0, .double(($0.1 * 1000).rounded() / 1000)) })))
        return .object(fields)
    }
}

/// Runs the face detector on a background thread, a bounded number of pictures ahead.
final class BackgroundDetections: @unchecked Sendable {
    private let detector: FaceDetector
    private let queue = DispatchQueue(label: "keeptrack.face-detection")
    private let slots = DispatchSemaphore(value: 6)
    private let lock = NSLock()
    private var samples: [DetectionSample] = []
    private var failure: Error?
    private var seconds = 0.0
    private var foundNothing = false

    init(detector: FaceDetector) { self.detector = detector }

    private var steady = false
    private var lastFace: FrameRect?

    /// What the latest finished detections saw (they may lag the decoder by a few pictures): no face at all,
    /// or the strongest face within a tenth of its width of where it was the time before.
    var recent: (foundNothing: Bool, steady: Bool) { lock.withLock { (foundNothing, steady) } }

    func submit(frameIndex: Int, bgr: [UInt8], width: Int, height: Int, scale: Double) {
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            let started = Date()
            do {
                let faces = try detector.detect(bgr: bgr, width: width, height: height).map {
                    FaceDetection(box: $0.box.scaled(by: scale), confidence: $0.confidence)
                }
                lock.withLock {
                    samples.append(DetectionSample(frameIndex: frameIndex, faces: faces))
                    foundNothing = faces.isEmpty
                    let strongest = faces.max { $0.box.area * Double($0.confidence) < $1.box.area * Double($1.confidence) }?.box
                    if let strongest, let lastFace {
                        let moved = ((strongest.midX - lastFace.midX) * (strongest.midX - lastFace.midX)
                            + (strongest.midY - lastFace.midY) * (strongest.midY - lastFace.midY)).squareRoot()
                        steady = moved < 0.1 * max(strongest.width, 1)
                    } else {
                        steady = false
                    }
                    lastFace = strongest
                    seconds += Date().timeIntervalSince(started)
                }
            } catch {
                lock.withLock { failure = failure ?? error }
            }
        }
    }

    /// Waits for every submitted picture; samples in frame order and the detector's busy time.
    func finish() throws -> (samples: [DetectionSample], seconds: Double) {
        queue.sync {}
        return try lock.withLock {
            if let failure { throw failure }
            return (samples.sorted { $0.frameIndex < $1.frameIndex }, seconds)
        }
    }
}

/// Reframes a movie: finds the person, plans a camera path, crops and re-encodes the video, and passes
/// every other track (audio above all) through byte for byte.
public enum Reframer {
    public static func run(input: String, output: String, options: ReframeOptions,
                           progress: (ReframeProgress) -> Void = { _ in }) throws -> ReframeSummary {
        let started = Date()
        let movie = try Movie.open(path: input)
        let tracks = try ReframeTracks(movie: movie)
        let video = tracks.video
        guard let entry = video.visualEntry else {
            throw KeepTrackError.malformed(path: video.path, offset: video.box.offset, reason: "video track has no visual sample entry")
        }
        let orientation = DisplayOrientation(rotation: video.header.rotation ?? 0, storedWidth: Int(entry.width), storedHeight: Int(entry.height))
        var summary = ReframeSummary(input: input, output: output, passthrough: false,
                                     orientation: (orientation.storedWidth, orientation.storedHeight, orientation.rotation,
                                                   orientation.displayWidth, orientation.displayHeight),
                                     sourceCodec: video.codecName ?? video.format?.description ?? "?", hdr: video.video?.hdr)
        if video.header.rotation == nil {
            summary.notes.append("the video matrix is not a pure rotation; treated as upright")
        }
        // A vertical target and a picture already as narrow: nothing to crop; the movie is copied as it is.
        // (A square or wide target cuts a portrait picture vertically instead.)
        let verticalTarget = options.aspect.width < options.aspect.height
        if verticalTarget, orientation.displayWidth * options.aspect.height <= orientation.displayHeight * options.aspect.width {
            var remux = MovieOutput.Options()
            remux.overwrite = options.overwrite
            try MovieOutput.remux(input: input, output: output, options: remux)
            summary.passthrough = true
            summary.notes.append("the picture is already \(orientation.displayWidth)x\(orientation.displayHeight) (no wider than \(options.aspect.width):\(options.aspect.height)): passed through uncropped, every track copied")
            summary.keptTracks = movie.tracks.map(\.id)
            summary.timings = [("total", Date().timeIntervalSince(started))]
            return summary
        }
        let destination = try OutputFile(destination: output, overwrite: options.overwrite, inputs: [input])
        do {
            let result = try reframe(movie: movie, tracks: tracks, orientation: orientation, destination: destination,
                                     options: options, summary: summary, started: started, progress: progress)
            try destination.commit()
            return result
        } catch {
            destination.discard()
            throw error
        }
    }

    // MARK: - Passes

    struct Analysis {
        var frameTimes: [Double] = []
        var differences: [Double] = []
        var samples: [DetectionSample] = []
        var pixelFormat: Int32 = -1
        var colour: VideoEncoder.Colour?
        /// Seconds spent scaling frames for and running the face detector (part of the analysis time).
        var detectionSeconds = 0.0
    }

    static func decode(_ movie: Movie, _ video: Track, fastAnalysis: Bool = false,
                       body: (UnsafePointer<AVFrame>, Int64) throws -> Void) throws {
        var configuration = try DecoderConfiguration.make(for: video)
        configuration.threadCount = 0
        configuration.fastAnalysis = fastAnalysis
        let decoder = try CodecDecoder(configuration)
        var reader = TrackPacketReader(track: video, source: movie.source)
        var produced: Int64 = 0
        let handle = { (frame: UnsafePointer<AVFrame>) throws in
            var time = frame.pointee.best_effort_timestamp
            if time == Int64.min { time = frame.pointee.pts }
            if time == Int64.min { time = produced }  // AV_NOPTS_VALUE: count frames
            produced += 1
            try body(frame, time)
        }
        while let packet = try reader.nextPacket() { try decoder.decode(packet, body: handle) }
        try decoder.finish(body: handle)
    }

    static func analyse(_ movie: Movie, _ video: Track, orientation: DisplayOrientation, options: ReframeOptions,
                        progress: (Int, Double) -> Void) throws -> Analysis {
        var analysis = Analysis()
        let timescale = Double(max(video.mediaHeader.timescale, 1))
        let frameRate = video.video?.frameRate ?? 30
        let every = max(1, Int((frameRate / max(options.detectionsPerSecond, 0.1)).rounded()))
        var scaler: DetectionScaler?
        var previousHistogram: [Double]?
        let detections = BackgroundDetections(detector: FaceDetector(threads: 1))
        let started = Date()
        var sinceDetection = every
        try decode(movie, video, fastAnalysis: true) { frame, time in
            let index = analysis.frameTimes.count
            if scaler == nil {
                analysis.pixelFormat = frame.pointee.format
                guard FrameOperations.bytesPerSample(frame.pointee.format) != nil else {
                    throw KeepTrackError.unsupported("video pixel format #\(frame.pointee.format) (libavutil numbering) is not 4:2:0 8- or 10-bit; reframe handles H.264 and HEVC Main/Main10")
                }
                analysis.colour = colour(of: frame, track: video)
                scaler = try DetectionScaler(orientation: orientation, longestSide: options.detectionSize, pixelFormat: frame.pointee.format)
            }
            guard frame.pointee.format == analysis.pixelFormat, Int(frame.pointee.width) == orientation.storedWidth,
                  Int(frame.pointee.height) == orientation.storedHeight else {
                throw KeepTrackError.unsupported("the video changes size or pixel format at frame \(index + 1); reframe needs one format throughout")
            }
            analysis.frameTimes.append(Double(time) / timescale)
            let histogram = FrameOperations.lumaHistogram(frame, bitDepth: analysis.pixelFormat == AV_PIX_FMT_YUV420P10LE.rawValue ? 10 : 8)
            let difference = previousHistogram.map { FrameOperations.difference($0, histogram) } ?? 0
            previousHistogram = histogram
            analysis.differences.append(difference)
            // Detect on a fixed rhythm, and at once on a frame that looks like a new shot. The detector runs
            // on its own thread (one OpenMP thread) while decoding goes on.
            // While nobody is in the picture, look three times as often, to find a returning person sooner;
            // while the face holds still, half as often again (most of a talking-head clip).
            sinceDetection += 1
            let state = detections.recent
            let interval = state.foundNothing ? max(1, every / 3) : state.steady ? every * 3 / 2 : every
            if sinceDetection >= interval || difference > 0.3, let scaler {
                sinceDetection = 0
                detections.submit(frameIndex: index, bgr: scaler.bgr(frame), width: scaler.displayWidth,
                                  height: scaler.displayHeight, scale: scaler.scale)
            }
            if index % 10 == 0 { progress(index + 1, Date().timeIntervalSince(started)) }
        }
        let finished = try detections.finish()
        analysis.samples = finished.samples
        analysis.detectionSeconds = finished.seconds
        return analysis
    }

    static func colour(of frame: UnsafePointer<AVFrame>, track: Track) -> VideoEncoder.Colour? {
        let unspecified: UInt32 = 2
        var primaries = frame.pointee.color_primaries.rawValue, transfer = frame.pointee.color_trc.rawValue
        var matrix = frame.pointee.colorspace.rawValue
        if let box = track.configuration(ColourInformationBox.self, "colr"), box.colourType == "nclx" || box.colourType == "nclc" {
            if primaries == unspecified { primaries = UInt32(box.primaries) }
            if transfer == unspecified { transfer = UInt32(box.transfer) }
            if matrix == unspecified { matrix = UInt32(box.matrixCoefficients) }
        }
        if primaries == unspecified && transfer == unspecified && matrix == unspecified { return nil }
        return VideoEncoder.Colour(primaries: Int32(primaries), transfer: Int32(transfer), matrix: Int32(matrix),
                                   fullRange: frame.pointee.color_range == AVCOL_RANGE_JPEG)
    }

    static func reframe(movie: Movie, tracks: ReframeTracks, orientation: DisplayOrientation, destination: OutputFile,
                        options: ReframeOptions, summary initial: ReframeSummary, started: Date,
                        progress: (ReframeProgress) -> Void) throws -> ReframeSummary {
        var summary = initial
        let video = tracks.video
        let totalFrames = video.sampleTable.sampleCount

        // 1. Analyse: frame times, picture differences, faces a few times per second.
        let analysis = try analyse(movie, video, orientation: orientation, options: options) { frames, seconds in
            progress(ReframeProgress(phase: .analysing, frames: frames, totalFrames: totalFrames, seconds: seconds))
        }
        let analysed = Date()
        guard !analysis.frameTimes.isEmpty else { throw KeepTrackError.unsupported("the video track decoded to no frames") }

        // 2. Plan the camera path.
        let cuts = ShotDetector().cuts(differences: analysis.differences)
        let crop = CameraPathPlanner.cropSize(sourceWidth: orientation.displayWidth, sourceHeight: orientation.displayHeight,
                                              aspectWidth: options.aspect.width, aspectHeight: options.aspect.height)
        let planner = CameraPathPlanner(sourceWidth: orientation.displayWidth, sourceHeight: orientation.displayHeight,
                                        cropWidth: crop.width, cropHeight: crop.height, settings: options.settings)
        let path = planner.plan(frameTimes: analysis.frameTimes, samples: analysis.samples, cuts: cuts)

        // 3. Encode settings: HDR stays HDR (HEVC Main10 with its transfer), SDR becomes 8-bit.
        let isHDR = analysis.colour?.isHDR ?? false
        let codec = options.codec ?? (isHDR ? .hevc : .h264)
        if isHDR && codec == .h264 {
            throw KeepTrackError.usage("the source is HDR (\(summary.hdr ?? "HLG/PQ")); use --codec hevc (10-bit, keeps the HDR transfer) — H.264 here is 8-bit SDR")
        }
        let outputFormat = isHDR ? AV_PIX_FMT_YUV420P10LE.rawValue : AV_PIX_FMT_YUV420P.rawValue
        let outputSize = options.size ?? crop
        let crf = options.crf ?? (codec == .h264 ? 20 : 22)
        let preset = options.preset ?? "medium"
        let timescale = Int32(clamping: Int(video.mediaHeader.timescale))
        let span = (analysis.frameTimes.last ?? 0) - (analysis.frameTimes.first ?? 0)
        let averageRate = analysis.frameTimes.count > 1 && span > 0 ? Double(analysis.frameTimes.count - 1) / span : 30
        let rational = av_d2q(averageRate, 100_000)
        var encoderSettings = VideoEncoder.Settings(codec: codec, width: outputSize.width, height: outputSize.height, pixelFormat: outputFormat,
                                                    timeBase: timescale, frameRate: (rational.num, rational.den), crf: crf,
                                                    preset: preset, colour: analysis.colour)
        encoderSettings.threads = 0
        let encoder = try VideoEncoder(encoderSettings)
        if video.video?.dolbyVision != nil {
            summary.notes.append("Dolby Vision metadata (\(video.video?.dolbyVision ?? "")) dropped: its dynamic metadata describes the uncropped picture and cannot be carried through a re-encode; the \(summary.hdr ?? "HDR") base picture and its colour description are kept")
        }
        if orientation.rotation != 0 {
            summary.notes.append("source stored rotated \(orientation.rotation)°: cropped in display orientation, written upright with an identity matrix")
        }

        // 4. Decode again, crop each frame at the planned position, encode; encoded frames go to a data file.
        let dataFile = try OutputFile(destination: destination.destination + ".video", overwrite: true)
        defer { dataFile.discard() }
        var encoded: [EncodedVideoSample] = []
        let cropper = try FrameCropper(orientation: orientation, crop: crop, output: outputSize, sourceFormat: analysis.pixelFormat,
                                       outputFormat: outputFormat)
        let encodeStarted = Date()
        let collect = { (packet: EncodedVideoPacket) throws in
            let sample = VideoParameterSets.lengthPrefixed(annexB: packet.bytes)
            try dataFile.write(sample)
            encoded.append(EncodedVideoSample(size: UInt32(sample.count), decodeTime: packet.decodeTime,
                                              presentationTime: packet.presentationTime, isSync: packet.isKey))
        }
        var frameIndex = 0
        try decode(movie, video) { frame, time in
            guard frameIndex < path.offsets.count else {
                throw KeepTrackError.io("the second decoding produced more frames than the first (\(path.offsets.count))")
            }
            let rect = path.rect(frame: frameIndex)
            let prepared = try cropper.prepare(frame, displayX: Int(rect.x), displayY: Int(rect.y), time: time)
            defer { var owned: UnsafeMutablePointer<AVFrame>? = prepared; av_frame_free(&owned) }
            try encoder.encode(prepared, body: collect)
            frameIndex += 1
            if frameIndex % 5 == 0 {
                progress(ReframeProgress(phase: .encoding, frames: frameIndex, totalFrames: path.offsets.count,
                                         seconds: Date().timeIntervalSince(encodeStarted)))
            }
        }
        try encoder.encode(nil, body: collect)
        guard frameIndex == path.offsets.count else {
            throw KeepTrackError.io("the second decoding produced \(frameIndex) frames, the first \(path.offsets.count)")
        }
        let encodedAt = Date()

        // 5. Mux: the new video track in the old one's place, every other kept track byte for byte.
        let configuration = codec == .h264
            ? try VideoParameterSets.avcConfiguration(annexB: encoder.extradata)
            : try VideoParameterSets.hevcConfiguration(annexB: encoder.extradata)
        var colourBox: ColourInformationBox?
        if let colour = analysis.colour {
            var box = ColourInformationBox()
            box.primaries = UInt16(colour.primaries)
            box.transfer = UInt16(colour.transfer)
            box.matrixCoefficients = UInt16(colour.matrix)
            box.rangeByte = colour.fullRange ? 0x80 : 0
            colourBox = box
        }
        let sampleEntry = EncodedVideoTrack.sampleEntry(format: codec == .h264 ? "avc1" : "hvc1", configuration: configuration,
                                                        width: outputSize.width, height: outputSize.height, colour: colourBox,
                                                        compressorName: codec == .h264 ? "keeptrack x264" : "keeptrack x265")
        let lastDuration = lastFrameDuration(video: video, times: analysis.frameTimes)
        let (trak, table) = try EncodedVideoTrack(source: video, sampleEntry: sampleEntry, width: outputSize.width, height: outputSize.height,
                                                  samples: encoded, lastSampleDuration: lastDuration).build()
        let replacement = OutputTrack(trak: trak, table: table, data: try FileByteSource(path: dataFile.temporaryPath),
                                      timescale: video.mediaHeader.timescale)
        var writer = MovieWriter(passingThrough: movie)
        writer.tracks = tracks.outputTracks(in: movie, video: replacement)
        _ = try writer.write(to: destination)
        let muxed = Date()

        summary.crop = crop
        summary.outputSize = outputSize
        summary.codec = codec
        summary.crf = crf
        summary.preset = preset
        summary.frames = encoded.count
        summary.path = path
        summary.statistics = PathStatistics(path: path, frameTimes: analysis.frameTimes)
        summary.coverage = SubjectCoverage(path: path, faces: path.subjectFaces)
        summary.analysedFrames = analysis.samples.count
        summary.framesWithFaces = analysis.samples.filter { !$0.faces.isEmpty }.count
        summary.keptTracks = writer.tracks.compactMap { try? TrackHeaderBox(box: $0.trak.first("tkhd")!).trackID }
        summary.droppedTracks = tracks.dropped.map { ($0.track.id, $0.reason) }
        for dropped in tracks.dropped { summary.notes.append("dropped track \(dropped.track.id): \(dropped.reason)") }
        summary.timings = [("analysis", analysed.timeIntervalSince(started)), ("detection", analysis.detectionSeconds), ("encode", encodedAt.timeIntervalSince(encodeStarted)),
                           ("mux", muxed.timeIntervalSince(encodedAt)), ("total", muxed.timeIntervalSince(started))]
        return summary
    }

    /// The last frame shows as long as the frame before it (or the track's nominal frame duration).
    static func lastFrameDuration(video: Track, times: [Double]) -> UInt32 {
        let timescale = Double(max(video.mediaHeader.timescale, 1))
        if times.count > 1 { return UInt32(max(1, ((times[times.count - 1] - times[times.count - 2]) * timescale).rounded())) }
        return UInt32(max(1, (timescale / (video.video?.frameRate ?? 30)).rounded()))
    }
}
