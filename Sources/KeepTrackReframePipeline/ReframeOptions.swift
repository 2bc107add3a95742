import KeepTrackCodec
import KeepTrackFraming
import KeepTrackTranscode

/// What `keeptrack reframe` does, as options.
public struct ReframeOptions: Sendable {
    /// Target aspect ratio, width:height.
    public var aspect = PixelSize(width: 9, height: 16)
    /// Scale the crop to this size (even numbers); nil keeps the crop's own pixels.
    public var size: PixelSize?
    /// nil: H.264 for SDR sources, HEVC for HDR sources.
    public var codec: VideoEncoder.Codec?
    public var crf: Double?
    public var preset: String?
    public var overwrite = false
    /// Face detection runs this many times per second of video (plus on likely cuts).
    public var detectionsPerSecond = 3.0
    /// Longest side of the pictures the face detector sees.
    public var detectionSize = 480
    /// Longest side of the smaller pictures it sees while every face known is large enough to be found there
    /// (`DetectionSchedule.Reduction`: the full size again at cuts, when nobody or a small face was found,
    /// and every `fullDetectionInterval` seconds); 0: always `detectionSize`.
    public var reducedDetectionSize = 240
    /// The smallest face height (pixels of the reduced picture) YuNet finds there as reliably as in the full
    /// one: on the footage, every face at least 96 px tall in the 480 px picture was found again at 240
    /// and at 160 px (40 of 40), faces of 64–96 px 58 of 62 times at 240 (`bench/detection_sizes.py` on the footage, 2026-12-01).
    public static let reducedDetectionMinimumFace = 48.0
    /// Seconds between full-size detections at most while reduced ones are used.
    public static let fullDetectionInterval = 3.0
    /// Between full detections, look only around the faces the last detection found (`DetectionRegions`)
    /// when that covers fewer pixels than the reduced picture; at the full picture's scale, so small faces too.
    public var detectAroundFaces = true
    /// Between detections, follow large faces on the analysis's luma grid (`FaceFollowing`).
    public var followFaces = true
    /// Where no face is found, look for whole people (OpenCV's HOG people detector) and follow them.
    public var findPeople = true
    /// Between detections, find the subject by the colours of its clothes (`SubjectAppearance`).
    public var followColours = true
    /// Analyse only the frames other frames reference (the encoding pass settles cuts between them), when
    /// the clip's frames do not fit in `retainedFramesBudget`.
    public var analyseReferencedFramesOnly = true
    /// Analyse only the I- and P-frames instead (skipping referenced B-frames too, half the decoding of a 1080p
    /// clip with x264's B-pyramid) when they are at most this many frames apart (x264's default of 3 B-frames).
    var bFrameSkippingSpacing = 4
    /// Tests: the I- and P-frames' spacing the analysis assumes, instead of the sample table's.
    var assumedAnchorSpacing: Int?
    /// Detection may cost up to this fraction of what encoding the output at the medium preset costs
    /// (estimated from pixel counts, the same whatever preset is chosen; see `DetectionSchedule`).
    public var detectionBudget = 0.06
    /// A clip whose decoded frames fit in this many bytes is decoded once: the analysis keeps every frame
    /// for the encoder. Larger clips are decoded twice (referenced frames only, the first time). 0: never keep.
    public var retainedFramesBudget = 1 << 30
    /// Frames are kept only while the picture has fewer pixels than this (H.264; HEVC: `retainedPictureLimitHEVC`).
    /// Keeping a frame costs the kernel's supplying and zeroing its pages; decoding it again costs the decoder,
    /// beside the encoder's threads. On the 2-core reference VM keeping won up to 960×540 and lost from 720p on
    /// for H.264 (wall time against ffmpeg's crop + encode: 1280×720 1.12× kept, 1.08× decoded twice; 1920×1080
    /// 1.23× and 1.15×), while HEVC, twice as costly to decode, won at 960×540 (1.09× against 1.22×) and
    /// came out even at 1920×1080 (`bench/footage_ab.py`, 2026-12-03). Decoding twice also keeps
    /// a 10 s 1080p clip at 293 MiB peak instead of 1.1 GiB (the encoder's look-ahead and the queues, no longer every frame).
    public var retainedPictureLimit = 1280 * 720
    public var retainedPictureLimitHEVC = 1920 * 1080
    public var settings = CameraPathPlanner.Settings()
    /// Write the planned crop path here as JSON (`PlanFile`).
    public var planOutput: String?
    /// Render this crop path (a `PlanFile`, perhaps edited) instead of planning one: no detection.
    public var planInput: String?
    /// Analyse and plan only: write `planOutput` and the summary, encode nothing (no output movie).
    public var planOnly = false
    /// Write a contact sheet (`ContactSheet`, PNG) of the plan here.
    public var previewOutput: String?
    /// How shots are shown: follow the subject, fit the whole picture, or decide per shot.
    public var layout = LayoutMode.follow
    /// Start encoding beside the analysis, shot by shot, as soon as the analysis has passed a cut for good (the
    /// shots before it cannot change: `ShotRelease`). The output is the same either way; false: encode after.
    public var overlapEncoding = true
    /// For tests: moves the path released early by this many pixels, so the whole plan disagrees with it.
    var releasedPathShift = 0
    public init() {}

    /// The encoding choices a caller can make; a movie passed through uncropped applies none of them, and
    /// `ReframeSummary.notApplied` says which were given (a front end names them its own way).
    public enum EncodingSetting: String, Sendable, CaseIterable {
        case size, codec, crf, preset, preview
    }

    /// The encoding settings this run was given, in `EncodingSetting` order.
    public var chosenEncodingSettings: [EncodingSetting] {
        EncodingSetting.allCases.filter { setting in
            switch setting {
            case .size: size != nil
            case .codec: codec != nil
            case .crf: crf != nil
            case .preset: preset != nil
            case .preview: previewOutput != nil
            }
        }
    }
}

/// Progress of a running reframe, for a progress bar.
public struct ReframeProgress: Sendable {
    public enum Phase: String, Sendable { case analysing, encoding }
    public var phase: Phase
    public var frames: Int
    public var totalFrames: Int
    public var seconds: Double
}
