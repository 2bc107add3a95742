import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFaces
import KeepTrackFraming
import KeepTrackPeople
import KeepTrackTranscode

/// Decoded frames the analysis keeps for the encoding pass, so a clip that fits in memory is decoded once
/// (as `ffmpeg -vf crop` decodes it) instead of twice. Each frame is a reference to the decoder's buffer,
/// which the decoder placed in `arena` (`PictureArena`: fewer, cheaper page faults than a fresh pool buffer each).
final class RetainedFrames: @unchecked Sendable {
    private var frames: [(index: Int, time: Int64, frame: UnsafeMutablePointer<AVFrame>?)] = []
    /// The analysis appends while an encoding pass that started early takes (`ReleasedPath`).
    private let condition = NSCondition()
    private var complete = false
    let arena: PictureArena?

    /// `arena`: room for the clip's pictures, for the decoder (nil: its own pool).
    init(arena: PictureArena?) { self.arena = arena }

    /// Room for the pictures of `video`: every sample and a few the decoder may make and drop.
    static func arena(for video: Track, orientation: DisplayOrientation, codecID: AVCodecID) -> PictureArena? {
        PictureArena(pictures: video.sampleTable.sampleCount + 8, width: orientation.storedWidth, height: orientation.storedHeight,
                     bytesPerSample: codecID == AV_CODEC_ID_H264 ? 1 : 2)
    }

    func append(index: Int, time: Int64, frame: UnsafePointer<AVFrame>) throws {
        guard let clone = av_frame_clone(frame) else { throw KeepTrackError.io("out of memory keeping a decoded frame") }
        condition.withLock {
            frames.append((index, time, clone))
            condition.broadcast()
        }
    }

    /// No more frames come (the analysis ended, or failed).
    func finishAppending() {
        condition.withLock {
            complete = true
            condition.broadcast()
        }
    }

    /// The entry at `position` (in decoding order, which is presentation order) once the analysis has kept it,
    /// with its frame, which the caller now owns and frees (nil if taken before); nil after the last one.
    func take(_ position: Int) -> (index: Int, time: Int64, frame: UnsafeMutablePointer<AVFrame>?)? {
        condition.lock()
        defer { condition.unlock() }
        while position >= frames.count && !complete { condition.wait() }
        guard position < frames.count else { return nil }
        let entry = frames[position]
        frames[position].frame = nil
        return entry
    }

    deinit {
        for entry in frames {
            var owned = entry.frame
            av_frame_free(&owned)
        }
    }
}

extension Reframer {
    /// How many analysed frames on either side of a detection are compared with its picture (`Analysis.still`);
    /// the thumbnails kept to look back on cost 2.3 KB each.
    static let stillLookBack = 600

    /// At most this many bytes of colour thumbnails (`Analysis.colours`): about 20 minutes at 6 a second.
    static let colourBudget = 32 << 20

    /// What the first pass learnt: frame times, picture differences and cuts, detections, colour.
    struct Analysis {
        /// Movie time (seconds: when a player shows it) of every frame the edit list shows, analysed or not. The
        /// plan, the preview and the plan file number the shown frames only (`shown`): frame indices below are
        /// positions among them.
        var frameTimes: [Double] = []
        /// Presentation time (seconds, media time) of every frame, shown or hidden: what the encoder encodes.
        var mediaFrameTimes: [Double] = []
        /// Which frames the edit list shows (all of them without one).
        var shown = ShownFrames(presentationTimes: [], timescale: 1)
        /// Why the edit list could not be followed (every frame then counts as shown), if it could not.
        var editListNote: String?
        /// Shown frames the analysis decoded, and each one's picture difference
        /// from the analysed frame before it.
        var analysedFrames: [Int] = []
        var differences: [Double] = []
        /// Histograms on both sides of every large difference (a possible cut), by position in `analysedFrames`.
        var cutHistograms: [Int: (before: [Double], after: [Double])] = [:]
        /// Set when frames are indexed by the sample table's times: the times of all of them.
        var timeline: PresentationTimeline?
        var samples: [DetectionSample] = []
        /// How the analysed frames on either side of each detection differ from its picture: the planner holds
        /// its findings where nothing around them changed.
        var still = StillPictures()
        /// Where large faces went between detections (on the grid turned upright); nil: not followed.
        var following: FaceFollowing?
        /// What moved, a few times a second between detections (motion only: no faces, no people), for the
        /// planner to follow once nobody has been found for a while (`CameraPathPlanner.Settings.motionTakeoverSeconds`).
        var motions: [DetectionSample] = []
        var pixelFormat: Int32 = -1
        var colour: VideoEncoder.Colour?
        /// Seconds spent scaling frames for and running the detectors (part of the analysis time).
        var detectionSeconds = 0.0
        /// Face detections on the whole picture, on the reduced one, and only around the faces known.
        var detectionLooks = ReframeSummary.DetectionLooks()
        /// Every decoded frame, when the clip fits in `ReframeOptions.retainedFramesBudget`.
        var retained: RetainedFrames?
        /// Pictures for the `--preview` contact sheet.
        var preview: PreviewCapture?
        /// The colours of analysed frames a few times a second and at every detection, for following the subject
        /// between detections (upright pictures only, like `motions`); nil when the picture is too small.
        var colours: ColourThumbnails?

        /// Shot cuts, as presentation indices, and those that fell between two analysed frames.
        func cuts(detector: ShotDetector = ShotDetector()) -> (cuts: [Int], uncertain: [UncertainCut]) {
            let found = detector.cuts(differences: differences)
            let uncertain = found.compactMap { position -> UncertainCut? in
                let before = analysedFrames[position - 1], after = analysedFrames[position]
                guard after - before > 1, let histograms = cutHistograms[position] else { return nil }
                return UncertainCut(lastBefore: before, firstAfter: after, before: histograms.before, after: histograms.after)
            }
            return (found.map { analysedFrames[$0] }, uncertain)
        }
    }

    /// Told, on the analysis thread, each time the analysis has passed another cut for good: the analysis so
    /// far (frame times, cuts, motion and colours up to here), how many shown frames the complete shots before
    /// that cut hold, and the detections on them. Their path will not change (`ShotRelease`).
    typealias ShotsComplete = (_ analysis: Analysis, _ frames: Int, _ samples: [DetectionSample]) throws -> Void

    /// A decoded frame whose time the sample table does not have: analyse every frame instead.
    struct TimelineMismatch: Error {}

    /// Skipping B-frames left frames further apart than the sample table's I- and P-frames are (an encoder
    /// that codes its P-frames as B slices): analyse the referenced frames instead.
    struct SparserThanExpected: Error {}

    /// How many frames the analysis decodes ahead of itself: those it keeps anyway cost nothing more to queue;
    /// otherwise about 64 MiB of pictures, at least 4.
    static func decodeAhead(orientation: DisplayOrientation, codecID: AVCodecID, retained: Bool) -> Int {
        if retained { return 256 }
        return min(256, max(4, Int(Double(64 << 20) / max(decodedFrameBytes(orientation: orientation, codecID: codecID), 1))))
    }

    /// Bytes of one decoded 4:2:0 picture (two bytes a sample for HEVC, which may be 10-bit).
    static func decodedFrameBytes(orientation: DisplayOrientation, codecID: AVCodecID) -> Double {
        Double(orientation.storedWidth * orientation.storedHeight * (codecID == AV_CODEC_ID_H264 ? 1 : 2)) * 1.5
    }

    /// Whether every decoded frame of `video` fits in `budget` bytes.
    static func framesFit(_ video: Track, orientation: DisplayOrientation, budget: Int, codecID: AVCodecID) -> Bool {
        decodedFrameBytes(orientation: orientation, codecID: codecID) * Double(video.sampleTable.sampleCount) <= Double(budget)
    }

    /// `detect`: run the detectors (not when a plan is given); `keep`: keep the decoded frames when they fit
    /// (not when nothing is encoded). The frames analysed, and so the plan, are the same either way.
    static func analyse(_ movie: Movie, _ video: Track, orientation: DisplayOrientation, options: ReframeOptions,
                        outputPixels: Int, detect: Bool = true, keep: Bool = true, shotsComplete: ShotsComplete? = nil,
                        progress: (Int, Double) -> Void) throws -> Analysis {
        let timeline = PresentedVideo.timeline(of: video)
        let codecID = try DecoderConfiguration.make(for: video).codecID
        func pass(_ timeline: PresentationTimeline?, skipping: DecoderConfiguration.SkippedFrames, spacing: Int? = nil,
                  retain: Bool, release: Bool = true) throws -> Analysis {
            try analyse(movie, video, orientation: orientation, options: options, outputPixels: outputPixels,
                        timeline: timeline, skipping: skipping, expectedSpacing: spacing, decodeEverything: retain, keep: retain && keep,
                        detect: detect, shotsComplete: timeline == nil || !release ? nil : shotsComplete, progress: progress)
        }
        // A clip that fits in memory, of pictures small enough that keeping them costs less than decoding them
        // again (`ReframeOptions.retainedPictureLimit`): decode every frame once, at full quality, and keep them for the encoder.
        let pictureLimit = codecID == AV_CODEC_ID_HEVC ? options.retainedPictureLimitHEVC : options.retainedPictureLimit
        let retain = options.retainedFramesBudget > 0
            && orientation.storedWidth * orientation.storedHeight < pictureLimit
            && framesFit(video, orientation: orientation, budget: options.retainedFramesBudget, codecID: codecID)
        // Otherwise decode only the frames other frames reference (about half, with B-frames), or only the I- and
        // P-frames when they are close enough: enough to find faces and cuts to within a few frames, which the
        // encoding pass (decoding again) then settles. Measured on scene:still (1080p, x264 medium, 8 interleaved
        // runs): the analysis took 0.34 s (median) on the referenced frames, 0.25 s on the I- and P-frames.
        let referencedOnly = !retain && options.analyseReferencedFramesOnly
        if let timeline {
            do {
                // (The spacing only matters, and is only worked out, when B-frames may be skipped.)
                if referencedOnly, case let spacing = options.assumedAnchorSpacing ?? timeline.anchorSpacing(decodingOrder: PresentedVideo.presentationTimes(of: video)),
                   spacing <= options.bFrameSkippingSpacing {
                    do {
                        return try pass(timeline, skipping: .bidirectional, spacing: spacing, retain: retain)
                    } catch is SparserThanExpected {
                        // Anything released so far stays as it was: the whole plan must agree with it.
                        return try pass(timeline, skipping: .unreferenced, retain: retain, release: false)
                    }
                }
                return try pass(timeline, skipping: referencedOnly ? .unreferenced : .none, retain: retain)
            } catch is TimelineMismatch {}
        }
        return try pass(nil, skipping: .none, retain: retain)
    }

    static func analyse(_ movie: Movie, _ video: Track, orientation: DisplayOrientation, options: ReframeOptions, outputPixels: Int,
                        timeline: PresentationTimeline?, skipping: DecoderConfiguration.SkippedFrames, expectedSpacing: Int?,
                        decodeEverything: Bool, keep: Bool, detect: Bool,
                        shotsComplete: ShotsComplete?, progress: (Int, Double) -> Void) throws -> Analysis {
        var analysis = Analysis()
        analysis.timeline = timeline
        (analysis.shown, analysis.editListNote) = PresentedVideo.shownFrames(of: video)
        let shown = analysis.shown
        let timescale = Double(max(video.mediaHeader.timescale, 1))
        if let timeline {
            analysis.mediaFrameTimes = timeline.times.map { Double($0) / timescale }
            analysis.frameTimes = shown.times
        }
        let codecID = try DecoderConfiguration.make(for: video).codecID
        let retained = keep ? RetainedFrames(arena: RetainedFrames.arena(for: video, orientation: orientation, codecID: codecID)) : nil
        analysis.retained = retained
        defer { retained?.finishAppending() }
        /// Cuts settled so far (analysed positions) and the next position to settle; the shown frames released.
        var settledCuts: [Int] = []
        var nextToSettle = 1
        var released = 0
        let shotDetector = ShotDetector()
        let preview = options.previewOutput == nil ? nil
            : PreviewCapture(tiles: ContactSheet.tiles, frameCount: shown.shown.count, orientation: orientation)
        let frameRate = video.video?.frameRate ?? 30
        let every = max(1, Int((frameRate / max(options.detectionsPerSecond, 0.1)).rounded()))
        var scaler: DetectionScaler?
        /// The smaller picture for detections while the faces known are large (`DetectionSchedule.Reduction`).
        var reducedScaler: DetectionScaler?
        var schedule: DetectionSchedule?
        var previousHistogram: [Double]?
        let personDetector = options.findPeople ? PersonDetector() : nil
        let detections = BackgroundDetections(detector: FaceDetector(threads: 1), people: personDetector)
        let started = Date()
        var lastThumbnail: [UInt8] = []
        /// The last detection's frame, while the analysed frames since are compared with its picture (`Analysis.still`).
        var stillSince: Int?
        /// The analysed frames since the last detection (or likely cut) and their thumbnails, for the next one to look back on.
        var sinceDetection: [(frame: Int, thumbnail: [UInt8])] = []
        /// The previous analysed frame's thumbnail (`lastThumbnail` is the last detection's).
        var previousThumbnail: [UInt8] = []
        /// The last few analysed frames' thumbnails, for `Analysis.motions`, and the frame of the last one.
        var recentThumbnails: [(frame: Int, thumbnail: [UInt8])] = []
        var lastMotion: Int?
        // Colour thumbnails about 6 a second, fewer on a long clip: they stay within `colourBudget` bytes.
        let colourGrid = (columns: 64, rows: 36)
        let colourEvery = max(Int((frameRate / 6).rounded()), 1,
                              (video.sampleTable.sampleCount * ColourThumbnails.bytes(columns: colourGrid.columns, rows: colourGrid.rows)
                                + Self.colourBudget - 1) / Self.colourBudget)
        var lastColours: Int?
        if orientation.rotation == 0 {
            // The luma grid's blocks (`FrameOperations.histogramAndThumbnail`), for the regions around what a detection found.
            analysis.still.grid = FrameOperations.uprightGrid(orientation)
            analysis.colours = ColourThumbnails(columns: colourGrid.columns, rows: colourGrid.rows, width: orientation.displayWidth,
                                                height: orientation.displayHeight)
        }
        // On the grid turned upright (a picture stored rotated too), and only where the grid exists:
        // `histogramAndThumbnail` makes none below 256×144.
        if options.followFaces, orientation.storedWidth >= 256, orientation.storedHeight >= 144 {
            analysis.following = FaceFollowing(grid: FrameOperations.uprightGrid(orientation))
        }
        /// The thumbnail as the following sees it: turned upright.
        func followed(_ thumbnail: [UInt8]) -> [UInt8] { FrameOperations.uprightThumbnail(thumbnail, orientation: orientation) ?? [] }
        // A difference this large may be a cut: keep both histograms, and look for faces at once.
        let cutThreshold = ShotDetector().minimumDifference
        var decodedFrames = 0
        defer { detections.abandon() }  // after finish() this changes nothing
        /// The last frame decoded (presentation order, shown or hidden).
        var lastFrame = -1
        try VideoDecoding.decode(movie, video, fastAnalysis: !decodeEverything, skipping: skipping, analysing: true,
                   pictureArena: retained?.arena, ahead: Self.decodeAhead(orientation: orientation, codecID: codecID, retained: retained != nil)) { frame, time in
            let frameNumber: Int
            if let timeline {
                guard let found = timeline.index(of: time), found > lastFrame else { throw TimelineMismatch() }
                if let expectedSpacing, found - lastFrame > expectedSpacing { throw SparserThanExpected() }
                frameNumber = found
            } else {
                frameNumber = decodedFrames
                analysis.mediaFrameTimes.append(Double(time) / timescale)
            }
            lastFrame = frameNumber
            decodedFrames += 1
            // A frame the edit list hides is kept for the encoder and otherwise not looked at. Shown frames are
            // numbered among themselves from here on.
            let position = shown.position(ofFrame: frameNumber)
            if timeline == nil, let position { analysis.frameTimes.append(shown.times[position]) }
            if scaler == nil {
                analysis.pixelFormat = frame.pointee.format
                guard FrameOperations.bytesPerSample(frame.pointee.format) != nil else {
                    throw KeepTrackError.unsupported("video pixel format #\(frame.pointee.format) (libavutil numbering) is not 4:2:0 8- or 10-bit; reframe handles H.264 and HEVC Main/Main10")
                }
                analysis.colour = EncodePlan.sourceColour(of: frame, track: video)
                let made = try DetectionScaler(orientation: orientation, longestSide: options.detectionSize, pixelFormat: frame.pointee.format)
                scaler = made
                let facePixels = made.displayWidth * made.displayHeight
                var reduction: DetectionSchedule.Reduction?
                let refreshInterval = Int((frameRate * ReframeOptions.fullDetectionInterval).rounded())
                if options.reducedDetectionSize > 0,
                   options.reducedDetectionSize < max(made.scaledWidth, made.scaledHeight) {
                    let reduced = try DetectionScaler(orientation: orientation, longestSide: options.reducedDetectionSize,
                                                      pixelFormat: frame.pointee.format)
                    reducedScaler = reduced
                    reduction = DetectionSchedule.Reduction(minimumFace: ReframeOptions.reducedDetectionMinimumFace * reduced.scale,
                                                            refreshInterval: refreshInterval)
                } else if options.detectAroundFaces {
                    reduction = DetectionSchedule.Reduction(minimumFace: .infinity, refreshInterval: refreshInterval)
                }
                let enlarged = personDetector?.upscale(height: made.displayHeight) ?? 0
                let costs = DetectionSchedule.Costs.measured(outputPixels: outputPixels, facePixels: facePixels,
                                                             peoplePixels: Int(Double(facePixels) * enlarged * enlarged),
                                                             fraction: options.detectionBudget,
                                                             reducedFacePixels: reducedScaler.map { $0.displayWidth * $0.displayHeight })
                schedule = DetectionSchedule(costs: costs, minimumInterval: every, stillInterval: Int(frameRate.rounded()),
                                             peopleInterval: Int((frameRate / 2).rounded()), reduction: reduction)
            }
            guard frame.pointee.format == analysis.pixelFormat, Int(frame.pointee.width) == orientation.storedWidth,
                  Int(frame.pointee.height) == orientation.storedHeight, let scaler, schedule != nil else {
                throw KeepTrackError.unsupported("the video changes size or pixel format at frame \(frameNumber + 1); reframe needs one format throughout")
            }
            try retained?.append(index: frameNumber, time: time, frame: frame)
            guard let index = position else { return }
            let bitDepth = analysis.pixelFormat == AV_PIX_FMT_YUV420P10LE.rawValue ? 10 : 8
            let (histogram, current) = FrameOperations.histogramAndThumbnail(frame, bitDepth: bitDepth)
            let difference = previousHistogram.map {
                FrameOperations.pictureDifference(histograms: ($0, histogram), thumbnails: (previousThumbnail, current))
            } ?? 0
            if let previousHistogram, difference >= cutThreshold {
                analysis.cutHistograms[analysis.analysedFrames.count] = (previousHistogram, histogram)
            }
            previousHistogram = histogram
            previousThumbnail = current
            // What moved since about `every` frames ago, on the detections' rhythm (upright pictures only,
            // like the detections' own motion boxes).
            if orientation.rotation == 0 {
                recentThumbnails.append((index, current))
                recentThumbnails.removeAll { index - $0.frame > 2 * every }
                if index - (lastMotion ?? Int.min / 2) >= every, let earlier = recentThumbnails.first(where: { index - $0.frame >= every }) {
                    lastMotion = index
                    if let box = FrameOperations.motionBox(from: earlier.thumbnail, to: current, width: orientation.storedWidth,
                                                           height: orientation.storedHeight) {
                        analysis.motions.append(DetectionSample(frameIndex: index, faces: [], motion: box))
                    }
                }
            }
            if analysis.colours != nil, detect, index - (lastColours ?? Int.min / 2) >= colourEvery {
                analysis.colours!.frames[index] = FrameOperations.colourThumbnail(frame, bitDepth: bitDepth, columns: colourGrid.columns, rows: colourGrid.rows)
                lastColours = index
            }
            try preview?.offer(frame, index: index, likelyCut: difference >= cutThreshold)
            analysis.analysedFrames.append(index)
            analysis.differences.append(difference)
            // What the detector found, up to `lag` pictures ago (waiting for it when it is further behind):
            // the same on every run whatever the threads' timing.
            while schedule!.learnt <= detections.submitted - BackgroundDetections.lag {
                let state = detections.state(after: schedule!.learnt)
                schedule!.learn(state.known)
                analysis.following?.learn(faces: state.faces)
            }
            // A cut is settled once the differences around it are known (`ShotDetector.neighbourhood`): the shots
            // before it are complete, and every detection on them has been learnt (the loop above). One position
            // at a time, so a clip of flashes (a possible cut on every frame) costs no more than a calm one.
            if let shotsComplete {
                let settledBefore = settledCuts.count
                while nextToSettle + shotDetector.neighbourhood < analysis.differences.count {
                    if shotDetector.isCut(at: nextToSettle, differences: analysis.differences, after: settledCuts.last) {
                        settledCuts.append(nextToSettle)
                    }
                    nextToSettle += 1
                }
                // Each release plans every shot before it again: let the released part grow by a quarter at least.
                if settledCuts.count > settledBefore, let last = settledCuts.last, analysis.analysedFrames[last] - released >= max(1, released / 4) {
                    released = analysis.analysedFrames[last]
                    try shotsComplete(analysis, released, detections.samples(before: released))
                }
            }
            if let since = stillSince {
                if difference < cutThreshold,
                   let changed = FrameOperations.changedBlocks(lastThumbnail, current, atMost: StillPictures.listed),
                   analysis.still.record(.init(frame: index, changedBlocks: changed), after: since) {
                    if analysis.still.after[since]!.count >= Self.stillLookBack { stillSince = nil }
                } else {
                    stillSince = nil
                }
            }
            if difference >= cutThreshold || sinceDetection.count >= Self.stillLookBack { sinceDetection.removeAll() }
            var still = false
            if schedule!.needsStillness(frame: index), !lastThumbnail.isEmpty {
                still = FrameOperations.largestChange(current, lastThumbnail) < 4
            }
            // Only around the faces the latest known detection found, when that is cheaper than a whole picture.
            var regions: [DetectionRegions.Region]?
            if detect, options.detectAroundFaces, schedule!.mayLookCheaper(frame: index) {
                regions = Self.regions(for: index, after: schedule!.learnt, detections: detections, picture: scaler)
            }
            let regionsCost = regions.map { regions in
                schedule!.costs.face * Double(regions.reduce(0) { $0 + $1.pixels }) / Double(scaler.displayWidth * scaler.displayHeight)
            }
            let decision = detect
                ? schedule!.decide(frame: index, likelyCut: difference >= cutThreshold, still: still, regionsCost: regionsCost) : .skip
            switch decision {
            case .skip: break
            case .detect: analysis.detectionLooks.whole += 1
            case .detectReduced: analysis.detectionLooks.reduced += 1
            case .detectRegions: analysis.detectionLooks.aroundFaces += 1
            }
            if decision != .skip {
                var people = false
                if case .detect(let asked) = decision { people = asked }
                let picturing = decision == .detectReduced ? reducedScaler ?? scaler : scaler
                // What moved since the last detection: the subject where nobody is found at all.
                let motion = orientation.rotation == 0
                    ? FrameOperations.motionBox(from: lastThumbnail, to: current, width: orientation.storedWidth, height: orientation.storedHeight)
                    : nil
                lastThumbnail = current
                stillSince = index
                var before: [StillPictures.Difference] = []
                for earlier in sinceDetection.reversed() {
                    guard let changed = FrameOperations.changedBlocks(earlier.thumbnail, current, atMost: StillPictures.listed) else { break }
                    before.append(.init(frame: earlier.frame, changedBlocks: changed))
                }
                analysis.still.record(before, before: index)
                sinceDetection.removeAll()
                if analysis.colours != nil, lastColours != index {
                    analysis.colours!.frames[index] = FrameOperations.colourThumbnail(frame, bitDepth: bitDepth, columns: colourGrid.columns, rows: colourGrid.rows)
                    lastColours = index
                }
                detections.submit(frameIndex: index, picture: picturing.picture(frame), scale: picturing.scale, motion: motion, people: people,
                                  regions: decision == .detectRegions ? regions : nil)
                analysis.following?.detected(frame: index, thumbnail: followed(current))
            } else {
                sinceDetection.append((index, current))
                analysis.following?.analysed(frame: index, thumbnail: followed(current), likelyCut: difference >= cutThreshold)
            }
            if decodedFrames % 10 == 0 { progress(frameNumber + 1, Date().timeIntervalSince(started)) }
        }
        if let expectedSpacing, let timeline, timeline.count - 1 - lastFrame > expectedSpacing { throw SparserThanExpected() }
        let finished = try detections.finish()
        analysis.samples = finished.samples
        analysis.detectionSeconds = finished.seconds
        analysis.detectionLooks.aroundFacesLost = finished.regionsLost
        analysis.preview = preview
        return analysis
    }

    /// The regions of `picture`'s detection pictures around the faces of the latest of the first `learnt`
    /// detections, for a detection on frame `frame`; only when the detection before it found a face too, so
    /// the motion is known (extrapolated from the two): a region guessed without it lost fast faces.
    static func regions(for frame: Int, after learnt: Int, detections: BackgroundDetections,
                        picture: DetectionScaler) -> [DetectionRegions.Region]? {
        guard learnt > 1 else { return nil }
        let latest = detections.state(after: learnt - 1), previous = detections.state(after: learnt - 2)
        guard let strongestBefore = previous.faces.max(by: { $0.area < $1.area }) else { return nil }
        return DetectionRegions.around(faces: latest.faces.map { $0.scaled(by: 1 / picture.scale) }, seenOn: latest.frameIndex,
                                       previous: strongestBefore.scaled(by: 1 / picture.scale), previousFrame: previous.frameIndex,
                                       frame: frame, width: picture.displayWidth, height: picture.displayHeight)
    }
}
