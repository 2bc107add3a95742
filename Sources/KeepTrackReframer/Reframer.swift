import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFaces
import KeepTrackPeople
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
    /// Where no face is found, look for whole people (OpenCV's HOG people detector) and follow them.
    public var findPeople = true
    /// Analyse only the frames other frames reference (the encoding pass settles cuts between them), when
    /// the clip's frames do not fit in `retainedFramesBudget`.
    public var analyseReferencedFramesOnly = true
    /// Detection may cost up to this fraction of what encoding the output at the medium preset costs
    /// (estimated from pixel counts, the same whatever preset is chosen; see `DetectionSchedule`).
    public var detectionBudget = 0.06
    /// A clip whose decoded frames fit in this many bytes is decoded once: the analysis keeps every frame
    /// for the encoder. Larger clips are decoded twice (referenced frames only, the first time). 0: never keep.
    public var retainedFramesBudget = 1 << 30
    public var settings = CameraPathPlanner.Settings()
    /// Write the planned crop path here as JSON (`PlanFile`).
    public var planOutput: String?
    /// Render this crop path (a `PlanFile`, perhaps edited) instead of planning one: no detection.
    public var planInput: String?
    /// Analyse and plan only: write `planOutput` and the summary, encode nothing (no output movie).
    public var planOnly = false
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
    /// Frames the analysis decoded (only the referenced ones, unless the timeline did not allow it).
    public var decodedForAnalysis = 0
    public var framesWithFaces = 0
    public var keptTracks: [UInt32] = []
    public var droppedTracks: [(id: UInt32, reason: String)] = []
    public var timings: [(String, Double)] = []
    /// The written file read back (tracks, sample tables, placement), as remux does.
    public var verification: WriteVerification.Result?

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
                ("analysedFrames", .int(Int64(analysedFrames))), ("decodedForAnalysis", .int(Int64(decodedForAnalysis))), ("framesWithFaces", .int(Int64(framesWithFaces))),
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
        if let verification {
            fields.append(("verified", .object([("tracks", .int(Int64(verification.tracks))), ("samples", .int(Int64(verification.samples)))])))
        }
        fields.append(("timings", .object(timings.map { ($0.0, .double(($0.1 * 1000).rounded() / 1000)) })))
        return .object(fields)
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
            let copied = try MovieOutput.remux(input: input, output: output, options: remux)
            summary.verification = copied.verification
            summary.notes += copied.notes
            summary.passthrough = true
            summary.notes.append("the picture is already \(orientation.displayWidth)x\(orientation.displayHeight) (no wider than \(options.aspect.width):\(options.aspect.height)): passed through uncropped, every track copied")
            let unused = [("--size", options.size != nil), ("--codec", options.codec != nil), ("--crf", options.crf != nil),
                          ("--preset", options.preset != nil)].filter(\.1).map(\.0)
            if !unused.isEmpty {
                summary.notes.append("\(unused.joined(separator: ", ")) not applied: nothing was re-encoded")
            }
            summary.keptTracks = movie.tracks.map(\.id)
            summary.timings = [("total", Date().timeIntervalSince(started))]
            return summary
        }
        if let plan = options.planOutput, !options.overwrite, FileManager.default.fileExists(atPath: plan) {
            throw KeepTrackError.outputExists(plan)
        }
        if options.planOnly {
            guard options.planOutput != nil else { throw KeepTrackError.usage("--plan-only needs --plan-out FILE") }
            return try reframe(movie: movie, tracks: tracks, orientation: orientation, destination: nil,
                               options: options, summary: summary, started: started, progress: progress)
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

    static func reframe(movie: Movie, tracks: ReframeTracks, orientation: DisplayOrientation, destination: OutputFile?,
                        options: ReframeOptions, summary initial: ReframeSummary, started: Date,
                        progress: (ReframeProgress) -> Void) throws -> ReframeSummary {
        var summary = initial
        let video = tracks.video
        let totalFrames = video.sampleTable.sampleCount

        let crop = CameraPathPlanner.cropSize(sourceWidth: orientation.displayWidth, sourceHeight: orientation.displayHeight,
                                              aspectWidth: options.aspect.width, aspectHeight: options.aspect.height)
        let outputSize = options.size ?? crop

        // 1. Analyse: frame times, picture differences, faces and people within the detection budget.
        let analysis = try analyse(movie, video, orientation: orientation, options: options,
                                   outputPixels: outputSize.width * outputSize.height, detect: options.planInput == nil,
                                   keep: destination != nil) { frames, seconds in
            progress(ReframeProgress(phase: .analysing, frames: frames, totalFrames: totalFrames, seconds: seconds))
        }
        let analysed = Date()
        guard !analysis.frameTimes.isEmpty else { throw KeepTrackError.unsupported("the video track decoded to no frames") }

        // 2. Plan the camera path.
        let (cuts, uncertainCuts) = analysis.cuts()
        let planner = CameraPathPlanner(sourceWidth: orientation.displayWidth, sourceHeight: orientation.displayHeight,
                                        cropWidth: crop.width, cropHeight: crop.height, settings: options.settings)
        var path: CropPath
        if let planFile = options.planInput {
            path = try PlanFile.read(planFile, sourceWidth: orientation.displayWidth, sourceHeight: orientation.displayHeight,
                                     crop: crop, frameCount: analysis.frameTimes.count)
        } else {
            path = planner.plan(frameTimes: analysis.frameTimes, samples: analysis.samples, cuts: cuts)
        }
        guard let destination else {
            // --plan-only: the plan and what it is made of, no movie.
            try writePlan(path, analysis: analysis, orientation: orientation, options: options, input: summary.input)
            summary.output = ""
            summary.crop = crop
            describe(path, analysis: analysis, in: &summary)
            summary.timings = [("analysis", analysed.timeIntervalSince(started)), ("detection", analysis.detectionSeconds),
                               ("total", Date().timeIntervalSince(started))]
            return summary
        }

        // 3. Encode settings: HDR stays HDR (HEVC Main10 with its transfer), SDR becomes 8-bit.
        let isHDR = analysis.colour?.isHDR ?? false
        let codec = options.codec ?? (isHDR ? .hevc : .h264)
        if isHDR && codec == .h264 {
            throw KeepTrackError.usage("the source is HDR (\(summary.hdr ?? "HLG/PQ")); use --codec hevc (10-bit, keeps the HDR transfer) — H.264 here is 8-bit SDR")
        }
        let outputFormat = isHDR ? AV_PIX_FMT_YUV420P10LE.rawValue : AV_PIX_FMT_YUV420P.rawValue
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
        // Decoding and cropping run on their own thread, a few frames ahead of the encoder.
        let handoff = FrameHandoff(capacity: 8)
        let producer = CropProducer(movie: movie, video: video, path: path, cropper: cropper, handoff: handoff,
                                    timeline: analysis.timeline, uncertainCuts: uncertainCuts, retained: analysis.retained)
        let thread = Thread { producer.run() }
        thread.stackSize = 8 << 20
        thread.start()
        var frameIndex = 0
        do {
            while let prepared = try handoff.take() {
                defer { var owned: UnsafeMutablePointer<AVFrame>? = prepared; av_frame_free(&owned) }
                try encoder.encode(prepared, body: collect)
                frameIndex += 1
                if frameIndex % 5 == 0 {
                    progress(ReframeProgress(phase: .encoding, frames: frameIndex, totalFrames: path.offsets.count,
                                             seconds: Date().timeIntervalSince(encodeStarted)))
                }
            }
            producer.done.wait()
        } catch {
            handoff.cancel()
            producer.done.wait()
            throw error
        }
        try encoder.encode(nil, body: collect)
        for (planned, actual) in producer.movedCuts { path.moveCut(from: planned, to: actual) }
        if analysis.timeline == nil || frameIndex == 0 {
            guard frameIndex == path.offsets.count else {
                throw KeepTrackError.io("the encoding pass produced \(frameIndex) frames, the analysis \(path.offsets.count)")
            }
        } else if frameIndex < path.offsets.count {
            summary.notes.append("\(path.offsets.count - frameIndex) of \(path.offsets.count) video frames could not be decoded and are missing from the output")
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
        // Read back like every other write: tracks, sample tables, placement and the movie's own boxes.
        let written = try MovieOutput.write(writer, into: destination, options: MovieOutput.Options())
        summary.verification = written.verification
        summary.notes += written.notes  // fragment indexes or media data the output does not carry
        try writePlan(path, analysis: analysis, orientation: orientation, options: options, input: summary.input)
        let muxed = Date()

        summary.crop = crop
        summary.outputSize = outputSize
        summary.codec = codec
        summary.crf = crf
        summary.preset = preset
        summary.frames = encoded.count
        describe(path, analysis: analysis, in: &summary)
        summary.keptTracks = writer.tracks.compactMap { try? TrackHeaderBox(box: $0.trak.first("tkhd")!).trackID }
        summary.droppedTracks = tracks.dropped.map { ($0.track.id, $0.reason) }
        for dropped in tracks.dropped { summary.notes.append("dropped track \(dropped.track.id): \(dropped.reason)") }
        summary.timings = [("analysis", analysed.timeIntervalSince(started)), ("detection", analysis.detectionSeconds), ("encode", encodedAt.timeIntervalSince(encodeStarted)),
                           ("mux", muxed.timeIntervalSince(encodedAt)), ("total", muxed.timeIntervalSince(started))]
        return summary
    }

    static func writePlan(_ path: CropPath, analysis: Analysis, orientation: DisplayOrientation, options: ReframeOptions, input: String) throws {
        guard let plan = options.planOutput else { return }
        try PlanFile.write(PlanFile.json(path: path, frameTimes: analysis.frameTimes, sourceWidth: orientation.displayWidth,
                                         sourceHeight: orientation.displayHeight),
                           to: plan, overwrite: options.overwrite, inputs: [input])
    }

    static func describe(_ path: CropPath, analysis: Analysis, in summary: inout ReframeSummary) {
        summary.path = path
        summary.statistics = PathStatistics(path: path, frameTimes: analysis.frameTimes)
        summary.coverage = SubjectCoverage(path: path, faces: path.subjectFaces)
        summary.analysedFrames = analysis.samples.count
        summary.decodedForAnalysis = analysis.analysedFrames.count
        summary.framesWithFaces = analysis.samples.filter { !$0.faces.isEmpty }.count
    }

    /// The last frame shows as long as the frame before it (or the track's nominal frame duration).
    static func lastFrameDuration(video: Track, times: [Double]) -> UInt32 {
        let timescale = Double(max(video.mediaHeader.timescale, 1))
        if times.count > 1 { return UInt32(max(1, ((times[times.count - 1] - times[times.count - 2]) * timescale).rounded())) }
        return UInt32(max(1, (timescale / (video.video?.frameRate ?? 30)).rounded()))
    }
}
