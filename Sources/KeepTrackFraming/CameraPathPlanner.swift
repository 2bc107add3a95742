/// The crop window for every frame of a clip, plus what the planner decided on the way.
public struct CropPath: Equatable, Sendable {
    public var axis: CropAxis
    public var sourceWidth: Int
    public var sourceHeight: Int
    public var cropWidth: Int
    public var cropHeight: Int
    /// Per frame, the crop's offset along `axis` (even, so 4:2:0 chroma stays aligned).
    public var offsets: [Int]
    public var shots: [Range<Int>]
    /// Per shot, the subject's track id, or nil when no face was found in the shot.
    public var subjectTracks: [Int?]
    /// The subject's face at each analysed frame where it was found (for coverage statistics).
    public var subjectFaces: [Sighting]
    /// Where the subject's clothes placed it between sightings, where it had moved (`SubjectAppearance`), for the preview.
    public var colourSightings: [Sighting] = []
    /// Where the subject's face was followed on the luma grid between detections (`FaceFollowing`), for the
    /// preview and the summary.
    public var followedSightings: [Sighting] = []
    /// Per shot, how it is shown (`--layout`); empty: every shot follows.
    public var layouts: [ShotLayout] = []
    /// For `split` shots: per frame, the two windows (nil outside split shots; empty: no split shot). See SplitLayout.swift.
    public var splitWindows: [SplitWindows?] = []
    /// The size of each split window in source pixels (0×0 when no shot is split).
    public var splitSize = SplitSize(width: 0, height: 0)
    /// For `split` shots: the faces each window followed (upper window first), for its statistics
    /// (`SplitWindowStatistics`); empty for a plan read from a file.
    public var splitFaces: [[Sighting]] = []

    /// How shot number `shot` is shown.
    public func layout(shot: Int) -> ShotLayout { shot >= 0 && shot < layouts.count ? layouts[shot] : .follow }

    /// How the shot holding frame `index` is shown.
    public func layout(frame index: Int) -> ShotLayout {
        layout(shot: shots.firstIndex { $0.contains(index) } ?? -1)
    }

    public static func == (lhs: CropPath, rhs: CropPath) -> Bool {
        lhs.axis == rhs.axis && lhs.offsets == rhs.offsets && lhs.shots == rhs.shots
            && lhs.cropWidth == rhs.cropWidth && lhs.cropHeight == rhs.cropHeight
            && lhs.shots.indices.map(lhs.layout(shot:)) == rhs.shots.indices.map(rhs.layout(shot:))
            && lhs.offsets.indices.map(lhs.split(frame:)) == rhs.offsets.indices.map(rhs.split(frame:))
    }

    /// The crop rectangle of frame `index` in source (display-orientation) pixels.
    public func rect(frame index: Int) -> FrameRect {
        let offset = Double(offsets[index])
        return axis == .horizontal
            ? FrameRect(x: offset, y: 0, width: Double(cropWidth), height: Double(cropHeight))
            : FrameRect(x: 0, y: offset, width: Double(cropWidth), height: Double(cropHeight))
    }
}

/// Plans a camera path that follows the subject's face like a camera operator would, per shot:
/// 1. the subject is the strongest face track of the shot (other faces fill in only outside its lifetime;
///    where no face is found, the person nearest the subject's last position; in a shot where nobody is
///    found at all, where the picture moves);
/// 2. where the subject rests (its face stays within `restRange` of the crop for at least `restSeconds`,
///    with no steady drift) the crop centre must sit on the composition target, within `restTolerance`:
///    the face centred across the crop (a third from the top when the crop slides vertically); while it
///    moves, anywhere within `trackingBand` crop lengths of the target, so the face stays in the central
///    40 %; held at the last known band while the face is lost, released a moment before it is found again;
/// 3. the shortest path through those bands (`TautString`) is perfectly still through every rest and
///    whenever the moving subject stays within its band, and otherwise moves only as much as needed,
///    without overshoot: constant and linear pieces, as in an L1-optimal camera path (Grundmann et al.,
///    CVPR 2011), whose corners the smoothing then rounds into parabolic ones;
/// 4. a speed limit (forward and backward passes averaged, so it neither lags nor leads) and a smoothing
///    of the corners (three moving averages) bound speed and acceleration; where rounding a corner would
///    let the face leave the central 40 % (or the crop), the crop is nudged back;
/// 5. offsets are quantised to even pixels with a dead band, so a still path never flickers.
/// The path may jump only at a cut; it is always inside the frame (near the frame's edge the target may
/// be out of reach: the crop then rests against the edge).
public struct CameraPathPlanner: Sendable {
    public struct Settings: Sendable {
        /// While the subject moves, how far (in crop lengths) the crop centre may lag or lead the target
        /// before the camera moves: 0.1 keeps the face centre within the central 20 %, leaving room for
        /// the smoothing and for the face's moves between two detections inside the central 40 %.
        public var trackingBand: Double = 0.1
        /// While the subject moves, the face centre is kept (by nudging after smoothing) within this many crop
        /// lengths of the target: 0.2 is the central 40 %.
        public var centralBand: Double = 0.2
        /// The subject rests while its face centre stays within this range (in crop lengths)...
        public var restRange: Double = 0.06
        /// ...drifts by no more than this many crop lengths per second (least-squares slope)...
        public var restDrift: Double = 0.02
        /// ...for at least this long (seconds).
        public var restSeconds: Double = 1.0
        /// At rest the crop centre is within this many crop lengths of the target (the middle of the range).
        public var restTolerance: Double = 0.01
        /// Where the face centre goes when the crop slides vertically, as a fraction of the crop height from
        /// its top (head room above, the body below). Across the crop the face is centred.
        public var verticalTarget: Double = 1.0 / 3
        /// Room kept between the face and the crop edge, as a fraction of the face size.
        public var faceMarginFraction: Double = 0.15
        /// Top speed of the crop, in source widths (along the axis) per second.
        public var maximumSpeed: Double = 0.75
        /// Length of each of the three moving averages that round the path's corners, in seconds.
        public var smoothingSeconds: Double = 0.25
        /// When the face is lost for longer than this, the crop holds its last band until this long before
        /// the face is found again, then moves to meet it (look-ahead: the whole clip is known).
        public var reacquireSeconds: Double = 1.0
        /// Once nobody (no face, no person) has been found for this long in a shot where someone was, what
        /// moves stands in for them until someone is found again: a person who came in with their back to
        /// the camera, or whose face is too small, is followed to where they stop (backs_to_camera's man).
        /// Shorter gaps hold the crop, as a face briefly lost should.
        public var motionTakeoverSeconds: Double = 2.0
        public var tracker = FaceTracker()

        public init() {}
    }

    public var sourceWidth: Int
    public var sourceHeight: Int
    public var cropWidth: Int
    public var cropHeight: Int
    public var settings: Settings

    /// Crop size for a target aspect ratio: the largest window of that aspect that fits, even-sized.
    public static func cropSize(sourceWidth: Int, sourceHeight: Int, aspectWidth: Int, aspectHeight: Int) -> PixelSize {
        let even = { (value: Double) in max(2, Int((value / 2).rounded()) * 2) }
        if sourceWidth * aspectHeight > sourceHeight * aspectWidth {
            return PixelSize(width: min(sourceWidth, even(Double(sourceHeight * aspectWidth) / Double(aspectHeight))), height: sourceHeight)
        }
        return PixelSize(width: sourceWidth, height: min(sourceHeight, even(Double(sourceWidth * aspectHeight) / Double(aspectWidth))))
    }

    public init(sourceWidth: Int, sourceHeight: Int, cropWidth: Int, cropHeight: Int, settings: Settings = Settings()) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.cropWidth = min(cropWidth, sourceWidth)
        self.cropHeight = min(cropHeight, sourceHeight)
        self.settings = settings
    }

    public var axis: CropAxis { cropWidth < sourceWidth ? .horizontal : .vertical }
    private var sourceLength: Double { Double(axis == .horizontal ? sourceWidth : sourceHeight) }
    private var cropLength: Double { Double(axis == .horizontal ? cropWidth : cropHeight) }

    /// Plans the path for frames shown at `frameTimes` (seconds, presentation order), faces found at
    /// `samples`, and shots starting at `cuts`.
    /// `appearance`: colour thumbnails that find the subject between the frames where it was found (`SubjectAppearance`).
    public func plan(frameTimes rawTimes: [Double], samples: [DetectionSample], cuts: [Int], appearance: SubjectAppearance? = nil) -> CropPath {
        let frameTimes = Self.strictlyIncreasing(rawTimes)
        let frameCount = frameTimes.count
        let usable = samples.filter { $0.frameIndex >= 0 && $0.frameIndex < frameCount }
        let shots = ShotDetector.shots(frameCount: frameCount, cuts: cuts)
        let tracks = settings.tracker.link(usable, frameTimes: frameTimes, shotStarts: shots.map(\.lowerBound))
        var offsets = [Int](repeating: 0, count: frameCount)
        var subjects: [Int?] = []
        var subjectFaces: [Sighting] = [], colourSightings: [Sighting] = [], followedSightings: [Sighting] = []
        var previousCentre = sourceLength / 2
        for shot in shots {
            let subject = tracks.filter { shot.contains($0.firstFrame) }.max { $0.weight < $1.weight }
            subjects.append(subject?.id)
            var (faces, standIns) = subjectPositions(in: shot, samples: usable, tracks: tracks, subject: subject, frameTimes: frameTimes)
            let nobodyFound = faces.isEmpty
            if nobodyFound {
                // Nobody found in the whole shot: follow what moves.
                faces = usable.compactMap { sample in
                    guard shot.contains(sample.frameIndex), let motion = sample.motion else { return nil }
                    return motionSighting(motion, frame: sample.frameIndex)
                }
            }
            if let appearance, faces.contains(where: { !standIns.contains($0.frameIndex) }), !nobodyFound {
                // Between sightings, where the subject's clothes are: those stand-ins replace what moved nearby.
                let found = appearance.standIns(shot: shot, sightings: faces.filter { !standIns.contains($0.frameIndex) }, frameTimes: frameTimes)
                let foundTimes = (found.moved.map(\.frameIndex) + found.stayed).map { frameTimes[$0] }
                faces.removeAll { face in
                    standIns.contains(face.frameIndex) && foundTimes.contains { abs($0 - frameTimes[face.frameIndex]) < 0.5 }
                }
                let kept = Set(faces.map(\.frameIndex))
                faces = (faces + found.moved.filter { !kept.contains($0.frameIndex) }).sorted { $0.frameIndex < $1.frameIndex }
                standIns.formUnion(found.moved.map(\.frameIndex))
                colourSightings += found.moved.filter { !kept.contains($0.frameIndex) }
            }
            // What moved while nobody was found is followed, but is not the subject's face: not counted as one;
            // nor is a detection held on a still frame after it.
            let held = Set(usable.filter { $0.held && shot.contains($0.frameIndex) }.map(\.frameIndex))
            subjectFaces += faces.filter { !standIns.contains($0.frameIndex) && !held.contains($0.frameIndex) }
            let followed = Set(usable.filter { $0.followed && shot.contains($0.frameIndex) }.map(\.frameIndex))
            followedSightings += faces.filter { followed.contains($0.frameIndex) }
            let centres = shotCentres(shot, faces: faces, frameTimes: frameTimes, fallback: previousCentre)
            let quantised = quantise(centres)
            for (offset, frame) in zip(quantised, shot) { offsets[frame] = offset }
            previousCentre = centres.last ?? previousCentre
        }
        var path = CropPath(axis: axis, sourceWidth: sourceWidth, sourceHeight: sourceHeight, cropWidth: cropWidth,
                            cropHeight: cropHeight, offsets: offsets, shots: shots, subjectTracks: subjects,
                            subjectFaces: subjectFaces)
        path.colourSightings = colourSightings
        path.followedSightings = followedSightings
        return path
    }

    /// The subject's face at each analysed frame of the shot: its own track where that track lives; outside
    /// its lifetime (left and came back as a new track, or not yet seen) the strongest face present. Where
    /// no face was found but people were (backs to the camera, faces too small), the head of the person
    /// nearest the subject's last position (the strongest one before any is known) stands in.
    /// What moved, as a stand-in face: a box no wider than a fifth of the crop at the motion's centre.
    private func motionSighting(_ motion: FrameRect, frame: Int) -> Sighting {
        let span = motion.span(along: axis)
        let width = min(span.length, cropLength / 5), centre = span.start + span.length / 2
        let box = axis == .horizontal ? FrameRect(x: centre - width / 2, y: motion.y, width: width, height: width)
                                      : FrameRect(x: motion.x, y: centre - width / 2, width: width, height: width)
        return Sighting(frameIndex: frame, box: box)
    }

    private func subjectPositions(in shot: Range<Int>, samples: [DetectionSample], tracks: [FaceTrack],
                                  subject: FaceTrack?, frameTimes: [Double]) -> (positions: [Sighting], standIns: Set<Int>) {
        let subjectPoints = Dictionary((subject?.points ?? []).map { ($0.frameIndex, $0.detection.box) }, uniquingKeysWith: { a, _ in a })
        var positions: [Sighting] = []
        /// When and where a face or a person was last found (motion stands in only long after), and whether
        /// motion has taken over since.
        var lastFound: (time: Double, box: FrameRect)?
        var motionLeads = false
        var standIns: Set<Int> = []
        for sample in samples.sorted(by: { $0.frameIndex < $1.frameIndex }) where shot.contains(sample.frameIndex) {
            let found = positions.count
            defer {
                if positions.count > found, !(sample.faces.isEmpty && sample.people.isEmpty), let box = positions.last?.box {
                    lastFound = (frameTimes[sample.frameIndex], box)
                    motionLeads = false
                }
            }
            if sample.faces.isEmpty, sample.people.isEmpty, let motion = sample.motion, let lastFound,
               frameTimes[sample.frameIndex] - lastFound.time >= settings.motionTakeoverSeconds {
                // One mover, not several or a pan: a motion wider than three quarters of the crop is not one person
                // (basketball_running's two players: the crop went to the empty court between them). It takes
                // over only once it is half a crop away from where the person was last found: the undetected
                // person's own small movements there (backs_to_camera's woman at her table) move nothing.
                let sighting = motionSighting(motion, frame: sample.frameIndex)
                func centre(_ box: FrameRect) -> Double { axis == .horizontal ? box.midX : box.midY }
                let away = abs(centre(sighting.box) - centre(lastFound.box))
                if motion.span(along: axis).length <= 0.75 * cropLength, motionLeads || away >= cropLength / 2 {
                    motionLeads = true
                    positions.append(sighting)
                    standIns.insert(sample.frameIndex)
                }
            } else if let box = subjectPoints[sample.frameIndex] {
                positions.append(Sighting(frameIndex: sample.frameIndex, box: box))
            } else if let subject, !(subject.firstFrame...subject.lastFrame).contains(sample.frameIndex),
                      let strongest = sample.faces.max(by: { $0.box.area * Double($0.confidence) < $1.box.area * Double($1.confidence) }) {
                positions.append(Sighting(frameIndex: sample.frameIndex, box: strongest.box))
            } else if sample.faces.isEmpty, !sample.people.isEmpty {
                let heads = sample.people.map { (box: DetectionSample.head(ofPerson: $0.box), confidence: $0.confidence) }
                let chosen: (box: FrameRect, confidence: Int)?
                if let last = positions.last?.box {
                    func distance(_ box: FrameRect) -> Double { abs(box.midX - last.midX) + abs(box.midY - last.midY) }
                    chosen = heads.min { distance($0.box) < distance($1.box) }
                } else {
                    chosen = heads.max { $0.confidence < $1.confidence }
                }
                if let chosen { positions.append(Sighting(frameIndex: sample.frameIndex, box: chosen.box)) }
            }
        }
        return (positions, standIns)
    }

    /// Crop centres (along the axis, unquantised) for every frame of the shot.
    private func shotCentres(_ shot: Range<Int>, faces: [Sighting], frameTimes: [Double],
                             fallback: Double) -> [Double] {
        let lowest = cropLength / 2, highest = sourceLength - cropLength / 2
        guard !faces.isEmpty else {
            return [Double](repeating: min(max(fallback, lowest), highest), count: shot.count)
        }
        let corridor = self.corridor(faces: faces, frameTimes: frameTimes)
        let preferred = faces.map { target(for: $0.box) }.sorted()[faces.count / 2]
        let string = TautString.solve(corridor, preferred: preferred)
        var hint = 0
        var centres = shot.map { TautString.value(of: string, at: frameTimes[$0], from: &hint) }
        let shotTimes = Array(frameTimes[shot])
        centres = limitSpeed(centres, times: shotTimes, maximum: settings.maximumSpeed * sourceLength)
        let frameDuration = shotTimes.count > 1 ? (shotTimes[shotTimes.count - 1] - shotTimes[0]) / Double(shotTimes.count - 1) : 1
        let window = max(1, Int((settings.smoothingSeconds / max(frameDuration, 1e-3)).rounded()) | 1)
        for _ in 0..<3 { centres = movingAverage(centres, window: window) }
        centres = keepFaceInside(centres, shot: shot, faces: faces, frameTimes: frameTimes, window: window)
        return centres.map { min(max($0, lowest), highest) }
    }

    /// Smoothing cuts corners; where that would push the face (interpolated between analysed frames at most
    /// 0.75 s apart, moving no faster than the speed limit) out of the crop or its centre out of the central
    /// band around the target, the crop is nudged just enough.
    /// The nudges are widened and averaged over the smoothing window, so they fade in and out smoothly.
    private func keepFaceInside(_ centres: [Double], shot: Range<Int>, faces: [Sighting],
                                frameTimes: [Double], window: Int) -> [Double] {
        var push = [Double](repeating: 0, count: centres.count), pull = push
        let lowest = cropLength / 2, highest = sourceLength - cropLength / 2
        let speedLimit = settings.maximumSpeed * sourceLength
        // Near a move faster than the speed limit the face cannot stay inside anyway; nudging there would
        // only turn the limited pan into a jump, so those stretches (±1 s) are left to the pan.
        let pairs = Array(zip(faces, faces.dropFirst()))
        let tooFast = pairs.compactMap { a, b -> Double? in
            let duration = frameTimes[b.frameIndex] - frameTimes[a.frameIndex]
            let distance = abs(b.box.span(along: axis).start - a.box.span(along: axis).start)
            return duration <= 0.75 && distance > speedLimit * max(duration, 1e-6) ? frameTimes[a.frameIndex] : nil
        }
        for (a, b) in pairs {
            let duration = frameTimes[b.frameIndex] - frameTimes[a.frameIndex]
            let spanA = a.box.span(along: axis), spanB = b.box.span(along: axis)
            guard duration > 0, duration <= 0.75, abs(spanB.start - spanA.start) / duration <= speedLimit,
                  !tooFast.contains(where: { abs($0 - frameTimes[a.frameIndex]) < 1 }) else { continue }
            for frame in a.frameIndex...b.frameIndex where shot.contains(frame) {
                let fraction = (frameTimes[frame] - frameTimes[a.frameIndex]) / duration
                let start = spanA.start + (spanB.start - spanA.start) * fraction
                let length = spanA.length + (spanB.length - spanA.length) * fraction
                let margin = 0.05 * length
                let target = self.target(for: axis == .horizontal
                    ? FrameRect(x: start, y: 0, width: length, height: 1) : FrameRect(x: 0, y: start, width: 1, height: length))
                let central = settings.centralBand * cropLength * 0.95
                // Inside the crop, and in its central band where the frame's edge allows that too.
                var low = max(start + length + margin - cropLength / 2, lowest)
                var high = min(start - margin + cropLength / 2, highest)
                guard low <= high else { continue }
                if max(low, target - central) <= min(high, target + central) {
                    low = max(low, target - central)
                    high = min(high, target + central)
                }
                let index = frame - shot.lowerBound
                push[index] = max(push[index], low - centres[index])
                pull[index] = max(pull[index], centres[index] - high)
            }
        }
        guard push.contains(where: { $0 > 0 }) || pull.contains(where: { $0 > 0 }) else { return centres }
        // Dilate then average over the same window: every frame keeps at least the nudge it needs.
        func spread(_ values: [Double]) -> [Double] {
            let half = window / 2
            let dilated = values.indices.map { index in
                values[max(0, index - half)...min(values.count - 1, index + half)].max() ?? 0
            }
            return movingAverage(dilated.map { max(0, $0) }, window: window)
        }
        let pushes = spread(push), pulls = spread(pull)
        return centres.indices.map { centres[$0] + pushes[$0] - pulls[$0] }
    }

    /// The band the crop centre must stay in at each analysed frame, with holds while the face is lost.
    func corridor(faces: [Sighting], frameTimes: [Double]) -> [CorridorPoint] {
        let times = faces.map { frameTimes[$0.frameIndex] }
        let targets = faces.map { target(for: $0.box) }
        var bands = faces.map { band(around: $0.box) }
        let tolerance = settings.restTolerance * cropLength
        for rest in restRuns(targets: targets, times: times) {
            let values = targets[rest]
            let level = ((values.min() ?? 0) + (values.max() ?? 0)) / 2
            for index in rest { bands[index] = clamped(low: level - tolerance, high: level + tolerance) }
        }
        var points: [CorridorPoint] = []
        for (time, band) in zip(times, bands) {
            if let previous = points.last {
                // Lost for a while: hold the last band until shortly before the face is found again.
                let holdUntil = time - settings.reacquireSeconds
                if holdUntil > previous.time + 1e-6 {
                    points.append(CorridorPoint(time: holdUntil, low: previous.low, high: previous.high))
                }
            }
            points.append(CorridorPoint(time: time, low: band.low, high: band.high))
        }
        return points
    }

    /// Where the crop centre should be for this face (the composition target): the face centred across the
    /// crop; `verticalTarget` of the way down when the crop slides vertically.
    func target(for face: FrameRect) -> Double {
        let span = face.span(along: axis)
        let centre = span.start + span.length / 2
        return axis == .horizontal ? centre : centre + (0.5 - settings.verticalTarget) * cropLength
    }

    /// Runs of samples (indices into `targets`) over which the subject rests: its target stays within
    /// `restRange`, drifts less than `restDrift` per second (least-squares slope), for `restSeconds` or
    /// longer, with no gap longer than the tracker's. Greedy from the left; runs do not overlap.
    func restRuns(targets: [Double], times: [Double]) -> [ClosedRange<Int>] {
        let range = settings.restRange * cropLength, drift = settings.restDrift * cropLength
        let longestGap = settings.tracker.maximumGapSeconds
        func slope(_ run: ClosedRange<Int>) -> Double {
            let meanTime = run.reduce(0) { $0 + times[$1] } / Double(run.count)
            let meanValue = run.reduce(0) { $0 + targets[$1] } / Double(run.count)
            var covariance = 0.0, variance = 0.0
            for index in run {
                covariance += (times[index] - meanTime) * (targets[index] - meanValue)
                variance += (times[index] - meanTime) * (times[index] - meanTime)
            }
            return variance > 0 ? covariance / variance : 0
        }
        func isRest(_ run: ClosedRange<Int>) -> Bool {
            times[run.upperBound] - times[run.lowerBound] >= settings.restSeconds && abs(slope(run)) <= drift
        }
        var runs: [ClosedRange<Int>] = []
        var start = 0
        while start < targets.count {
            var end = start, low = targets[start], high = targets[start]
            while end + 1 < targets.count, times[end + 1] - times[end] <= longestGap,
                  max(high, targets[end + 1]) - min(low, targets[end + 1]) <= range {
                end += 1
                low = min(low, targets[end])
                high = max(high, targets[end])
            }
            // A run that starts to drift at its end: shorten it while it stays long enough.
            while end > start, !isRest(start...end), times[end - 1] - times[start] >= settings.restSeconds { end -= 1 }
            if isRest(start...end) {
                runs.append(start...end)
                start = end + 1
            } else {
                start += 1
            }
        }
        return runs
    }

    /// Where the crop centre may be for this face while it moves: within `trackingBand` of the target (less
    /// for a face so large that the band would push it out of the crop), clamped inside the frame.
    private func band(around face: FrameRect) -> (low: Double, high: Double) {
        let length = face.span(along: axis).length
        let room = max(0, (cropLength - length) / 2 - settings.faceMarginFraction * length)
        let halfBand = min(settings.trackingBand * cropLength, room)
        let centre = target(for: face)
        return clamped(low: centre - halfBand, high: centre + halfBand)
    }

    private func clamped(low: Double, high: Double) -> (low: Double, high: Double) {
        let lowest = cropLength / 2, highest = sourceLength - cropLength / 2
        return (min(max(low, lowest), highest), max(min(high, highest), lowest))
    }

    /// Caps speed without lag: a forward and a backward rate limiter, averaged.
    private func limitSpeed(_ values: [Double], times: [Double], maximum: Double) -> [Double] {
        guard values.count > 1 else { return values }
        func limited(_ order: [Int]) -> [Double] {
            var result = values
            for (previous, current) in zip(order, order.dropFirst()) {
                let step = maximum * abs(times[current] - times[previous])
                result[current] = result[previous] + min(max(values[current] - result[previous], -step), step)
            }
            return result
        }
        let forward = limited(Array(values.indices)), backward = limited(values.indices.reversed())
        return zip(forward, backward).map { ($0 + $1) / 2 }
    }

    /// Centred moving average with the ends padded by their own values (keeps flat parts exactly flat).
    private func movingAverage(_ values: [Double], window: Int) -> [Double] {
        guard window > 1, values.count > 1 else { return values }
        let half = window / 2
        let padded = [Double](repeating: values[0], count: half) + values
            + [Double](repeating: values[values.count - 1], count: half)
        return values.indices.map { index in padded[index..<(index + window)].reduce(0, +) / Double(window) }
    }

    /// Centres to even top-left offsets; the offset moves only when the centre has moved at least 1.5 px
    /// from it, so rounding noise can never make a still crop flicker.
    private func quantise(_ centres: [Double]) -> [Int] {
        let maximumOffset = (Int(sourceLength - cropLength) / 2) * 2
        func even(_ centre: Double) -> Int { min(max(Int(((centre - cropLength / 2) / 2).rounded()) * 2, 0), maximumOffset) }
        var result: [Int] = []
        result.reserveCapacity(centres.count)
        var current = centres.first.map(even) ?? 0
        for centre in centres {
            if abs(centre - cropLength / 2 - Double(current)) >= 1.5 { current = even(centre) }
            result.append(current)
        }
        return result
    }

    static func strictlyIncreasing(_ times: [Double]) -> [Double] {
        var result = times
        for index in result.indices.dropFirst() where !(result[index] > result[index - 1]) {
            result[index] = result[index - 1] + 1e-6
        }
        return result
    }
}

extension CropPath {
    /// A path given frame by frame (an edited plan): no subject known.
    public init(axis: CropAxis, sourceWidth: Int, sourceHeight: Int, cropWidth: Int, cropHeight: Int, offsets: [Int], shots: [Range<Int>]) {
        self.init(axis: axis, sourceWidth: sourceWidth, sourceHeight: sourceHeight, cropWidth: cropWidth, cropHeight: cropHeight,
                  offsets: offsets, shots: shots, subjectTracks: shots.map { _ in nil }, subjectFaces: [])
    }
}
