import KeepTrack
import KeepTrackCodec
import KeepTrackFraming
import KeepTrackTranscode

/// What a reframe did, for the console and `--json`.
public struct ReframeSummary: Sendable {
    public var input: String
    public var output: String
    public var passthrough: Bool
    public var notes: [String] = []
    /// Encoding settings the run was given but could not apply (a passed-through movie is not re-encoded).
    public var notApplied: [ReframeOptions.EncodingSetting] = []
    /// The source picture: stored size, rotation, display size.
    public var orientation: DisplayOrientation
    public var sourceCodec: String
    public var hdr: String?
    public var crop: PixelSize?
    public var outputSize: PixelSize?
    public var codec: VideoEncoder.Codec?
    public var crf: Double?
    public var preset: String?
    public var frames = 0
    /// The `--preview` sheet's geometry (JSON), when one was written.
    public var preview: JSONValue?
    public var path: CropPath?
    public var statistics: PathStatistics?
    public var coverage: SubjectCoverage?
    /// For a path with split shots: the upper and the lower window's statistics (empty otherwise).
    public var splitStatistics: [SplitWindowStatistics] = []
    /// Per shot: who mattered, whom the camera followed, the layout (empty when a plan was given).
    public var shotDecisions: [SubjectChoice.Shot] = []
    public var analysedFrames = 0
    /// Frames the analysis decoded (only the referenced ones, unless the timeline did not allow it).
    public var decodedForAnalysis = 0
    /// Frames between detections where the subject's face was followed on the luma grid (`FaceFollowing`).
    public var framesFollowed = 0
    public var framesWithFaces = 0
    /// How the face detections looked at their pictures.
    public var detectionLooks = DetectionLooks()
    public struct DetectionLooks: Sendable, Equatable {
        /// The whole detection picture (the first, at cuts, while nobody is found, every few seconds).
        public var whole = 0
        /// The reduced picture, while every face known is large.
        public var reduced = 0
        /// Only the regions around the faces known (`DetectionRegions`).
        public var aroundFaces = 0
        /// Of those, the ones that lost a face and looked at the whole picture too.
        public var aroundFacesLost = 0
        public init() {}
    }
    public var keptTracks: [UInt32] = []
    public var droppedTracks: [DroppedTrack] = []
    /// Seconds per stage (analysis, detection, encode, mux, total), in that order.
    public var timings: [Timing] = []
    /// The written file read back (tracks, sample tables, placement), as remux does.
    public var verification: WriteVerification.Result?

    /// A track the output does not carry, and why.
    public struct DroppedTrack: Equatable, Sendable {
        public var id: UInt32
        public var reason: String

        public init(id: UInt32, reason: String) {
            self.id = id
            self.reason = reason
        }
    }

    /// The wall-clock seconds one stage took.
    public typealias Timing = StageTiming

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("input", .string(input)), ("output", .string(output)), ("passthrough", .bool(passthrough)),
            ("notes", .array(notes.map(JSONValue.string))), ("notApplied", .array(notApplied.map { .string($0.rawValue) })),
            ("encodedFrames", .int(Int64(frames))),
            ("source", .object([
                ("width", .int(Int64(orientation.storedWidth))), ("height", .int(Int64(orientation.storedHeight))),
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
                ("framesFollowed", .int(Int64(framesFollowed))),
                ("framesInsideCrop", .int(Int64(coverage.framesInside))), ("framesPossible", .int(Int64(coverage.possibleFrames))),
                ("coverage", .double((coverage.fraction * 10000).rounded() / 10000)),
                ("detections", .object([("wholePicture", .int(Int64(detectionLooks.whole))), ("reducedPicture", .int(Int64(detectionLooks.reduced))),
                                        ("aroundFaces", .int(Int64(detectionLooks.aroundFaces))),
                                        ("aroundFacesLost", .int(Int64(detectionLooks.aroundFacesLost)))])),
            ])))
            fields.append(("shots", .object([
                ("count", .int(Int64(statistics.shots))), ("steady", .int(Int64(statistics.steadyShots))),
                ("cuts", .array(path.shots.dropFirst().map { .int(Int64($0.lowerBound)) })),
            ])))
            fields.append(("layout", .object([
                ("shots", .array(path.shots.indices.map { .string(path.layout(shot: $0).rawValue) })),
                ("people", .array(shotDecisions.map { .int(Int64($0.mattering.count)) })),
                ("subjectSwitches", .array(shotDecisions.map { .int(Int64($0.switches)) })),
            ])))
            fields.append(("path", .object([
                ("axis", .string(path.axis.rawValue)), ("firstOffset", .optional(path.offsets.first)),
                ("lastOffset", .optional(path.offsets.last)), ("movingFrames", .int(Int64(statistics.movingFrames))),
                ("maximumSpeed", .double(statistics.maximumSpeed.rounded())), ("maximumAcceleration", .double(statistics.maximumAcceleration.rounded())),
                ("reversals", .int(Int64(statistics.reversals))), ("largestStep", .int(Int64(statistics.largestStep))),
            ])))
        }
        if splitStatistics.count == 2 {
            fields.append(("splitWindows", .object(zip(["top", "bottom"], splitStatistics).map { name, window in
                (name, .object([
                    ("framesInside", .int(Int64(window.coverage.framesInside))), ("framesPossible", .int(Int64(window.coverage.possibleFrames))),
                    ("coverage", .double((window.coverage.fraction * 10000).rounded() / 10000)),
                    ("movingFrames", .int(Int64(window.path.movingFrames))), ("maximumSpeed", .double(window.path.maximumSpeed.rounded())),
                    ("maximumAcceleration", .double(window.path.maximumAcceleration.rounded())),
                    ("reversals", .int(Int64(window.path.reversals))), ("largestStep", .int(Int64(window.path.largestStep))),
                    ("restFrames", .int(Int64(window.framing.restFrames))),
                    ("largestRestOffset", .double((window.framing.largestRestOffset * 10000).rounded() / 10000)),
                    ("meanRestOffset", .double((window.framing.meanRestOffset * 10000).rounded() / 10000)),
                    ("movingFramesCentral", .int(Int64(window.framing.movingFramesCentral))),
                    ("centralFraction", .double((window.framing.centralFraction * 10000).rounded() / 10000)),
                ]))
            })))
        }
        if let preview { fields.append(("preview", preview)) }
        fields.append(("tracks", .object([
            ("kept", .array(keptTracks.map { .int(Int64($0)) })),
            ("dropped", .array(droppedTracks.map { .object([("id", .int(Int64($0.id))), ("reason", .string($0.reason))]) })),
        ])))
        if let verification {
            fields.append(("verified", .object([("tracks", .int(Int64(verification.tracks))), ("samples", .int(Int64(verification.samples)))])))
        }
        fields.append(("timings", .object(timings.map { ($0.stage, .double(($0.seconds * 1000).rounded() / 1000)) })))
        return .object(fields)
    }
}

extension Reframer {
    /// The crop path and what it is made of, for the summary.
    static func describe(_ path: CropPath, analysis: Analysis, in summary: inout ReframeSummary) {
        summary.path = path
        summary.statistics = PathStatistics(path: path, frameTimes: analysis.frameTimes)
        summary.coverage = SubjectCoverage(path: path, faces: path.subjectFaces)
        summary.splitStatistics = [false, true].compactMap { SplitWindowStatistics(path: path, lower: $0, frameTimes: analysis.frameTimes) }
        summary.analysedFrames = analysis.samples.count
        summary.decodedForAnalysis = analysis.analysedFrames.count
        summary.framesFollowed = path.followedSightings.count
        summary.framesWithFaces = analysis.samples.filter { !$0.faces.isEmpty }.count
        summary.detectionLooks = analysis.detectionLooks
    }
}
