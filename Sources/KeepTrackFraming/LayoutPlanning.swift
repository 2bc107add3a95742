/// A camera path planned with a layout per shot, and the decisions behind it.
public struct LayoutPlan: Sendable {
    /// The path, with `layouts` (and the split windows of split shots).
    public var path: CropPath
    /// Per shot: who mattered, whom the camera followed, the layout.
    public var shots: [SubjectChoice.Shot]

    public init(path: CropPath, shots: [SubjectChoice.Shot]) {
        self.path = path
        self.shots = shots
    }
}

extension CameraPathPlanner {
    /// Plans the path with a deliberate choice of subject and a layout per shot (`SubjectChoice`): the camera
    /// follows, at each analysed frame, only the face chosen there (or, when the people who matter fit in one
    /// crop, the box holding all of them, each held at its nearest sighting while undetected), so it never
    /// turns to another face on its own. Shots where nobody's face is found keep the people and motion
    /// fallbacks of `plan(frameTimes:samples:cuts:)`. Returns the path (with `layouts`) and the decisions.
    /// Split shots get their two windows (`addSplitWindows`) of `splitWindow` (default: for an output of the
    /// crop's own size).
    /// `motions`: what moved between detections (motion-only samples), followed in a shot where someone was
    /// found once nobody has been for `Settings.motionTakeoverSeconds`; they weigh in no decision.
    /// `appearance`: where the followed subject's colours are between its sightings (`SubjectAppearance`).
    /// `followed`: where detected faces went between detections (`FaceFollowing`); the chosen subject's positions
    /// join its sightings in a followed shot (marked `held`: not looks of the detector's own), and weigh in no decision.
    public func plan(frameTimes rawTimes: [Double], samples: [DetectionSample], cuts: [Int], layout mode: LayoutMode,
                     choice settings: SubjectChoice.Settings = SubjectChoice.Settings(),
                     splitWindow: SplitSize? = nil, motions: [DetectionSample] = [], appearance: SubjectAppearance? = nil,
                     followed: [FaceFollowing.Followed] = []) -> LayoutPlan {
        let frameTimes = Self.strictlyIncreasing(rawTimes)
        let usable = samples.filter { $0.frameIndex >= 0 && $0.frameIndex < frameTimes.count }.sorted { $0.frameIndex < $1.frameIndex }
        let shots = ShotDetector.shots(frameCount: frameTimes.count, cuts: cuts)
        let tracks = self.settings.tracker.link(usable, frameTimes: frameTimes, shotStarts: shots.map(\.lowerBound))
        let chooser = SubjectChoice(sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                    cropLength: Double(axis == .horizontal ? cropWidth : cropHeight), axis: axis, settings: settings)
        let byID = Dictionary(tracks.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var followedFrom: [Int: [FaceFollowing.Followed]] = [:]
        for face in followed where !face.positions.isEmpty { followedFrom[face.detectionFrame, default: []].append(face) }
        var decisions: [SubjectChoice.Shot] = []
        var chosen: [DetectionSample] = []
        var persons: [FaceTrack] = []  // the people of every shot (tracks that continue one another joined)
        for shot in shots {
            let decision = chooser.decide(shot: shot, samples: usable, tracks: tracks, frameTimes: frameTimes, mode: mode)
            decisions.append(decision)
            let people = SubjectChoice.persons(of: tracks.filter { shot.contains($0.firstFrame) }, choice: chooser).map(\.track)
            persons += people
            let personByID = Dictionary(people.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let inShot = usable.filter { shot.contains($0.frameIndex) }
            guard !decision.people.isEmpty else {
                chosen += inShot  // nobody's face: people and motion as before
                continue
            }
            let subjectAt = Dictionary(decision.subjects.map { ($0.frameIndex, $0.track) }, uniquingKeysWith: { a, _ in a })
            let group = decision.groupFits ? decision.mattering.compactMap { personByID[$0] } : []
            for sample in inShot {
                var kept = DetectionSample(frameIndex: sample.frameIndex, faces: [], people: [], motion: sample.motion)
                if !group.isEmpty {
                    let boxes = group.map { Self.nearestSighting(of: $0, to: sample.frameIndex, times: frameTimes) }
                    let confidence = group.compactMap { $0.points.first?.detection.confidence }.max() ?? 100
                    if let union = SubjectChoice.union(boxes) { kept.faces = [FaceDetection(box: union, confidence: confidence)] }
                } else if let track = subjectAt[sample.frameIndex].flatMap({ byID[$0] }),
                          let point = track.points.first(where: { $0.frameIndex == sample.frameIndex }) {
                    kept.faces = [point.detection]
                    if decision.layout == .follow, !sample.held,
                       let face = followedFrom[sample.frameIndex]?.first(where: { $0.face == point.detection.box }) {
                        // The next look of the shot, where it found the same person, says where the following should have ended.
                        let nextLook = inShot.first { !$0.held && $0.frameIndex > sample.frameIndex }?.frameIndex
                        let found = nextLook.flatMap { look in track.points.first { $0.frameIndex == look }.map { (look, $0.detection.box) } }
                        chosen += followedPositions(face, in: shot, confidence: point.detection.confidence, nextSighting: found)
                    }
                } else if sample.faces.isEmpty {
                    kept.people = sample.people  // nobody's face here: the person nearest the subject stands in
                }
                chosen.append(kept)
            }
            // Between the analysed frames of a followed shot, what moved (used only once nobody has been found for a while).
            if decision.layout == .follow {
                let analysed = Set(inShot.map(\.frameIndex))
                chosen += motions.filter { shot.contains($0.frameIndex) && !analysed.contains($0.frameIndex) && $0.motion != nil }
                    .map { DetectionSample(frameIndex: $0.frameIndex, faces: [], motion: $0.motion) }
            }
        }
        // A followed position never stands where a look or a held copy of one is.
        let looked = Set(chosen.filter { !$0.followed }.map(\.frameIndex))
        chosen.removeAll { $0.followed && looked.contains($0.frameIndex) }
        var path = plan(frameTimes: rawTimes, samples: chosen.sorted { $0.frameIndex < $1.frameIndex }, cuts: cuts, appearance: appearance)
        path.layouts = decisions.map(\.layout)
        let crop = SplitSize(width: cropWidth, height: cropHeight)
        addSplitWindows(to: &path, decisions: decisions, samples: usable, tracks: persons, frameTimes: frameTimes, cuts: cuts,
                        window: splitWindow ?? SplitGeometry(crop: crop, output: crop).window)
        return LayoutPlan(path: path, shots: decisions)
    }

    /// `face`'s positions inside `shot` as samples (the part of the face inside the picture), marked held and
    /// followed; none when the last of them, a few frames before the next look that found the same person
    /// (`nextSighting`), is more than half a face width from where it found them: the following went astray
    /// (another head passed in front), so the path keeps to the looks alone.
    func followedPositions(_ face: FaceFollowing.Followed, in shot: Range<Int>, confidence: Int,
                           nextSighting: (frame: Int, box: FrameRect)? = nil) -> [DetectionSample] {
        let picture = FrameRect(x: 0, y: 0, width: Double(sourceWidth), height: Double(sourceHeight))
        let samples = face.positions.compactMap { position -> DetectionSample? in
            guard shot.contains(position.frame), let visible = position.box.intersection(picture) else { return nil }
            var sample = DetectionSample(frameIndex: position.frame, faces: [FaceDetection(box: visible, confidence: confidence)])
            sample.held = true
            sample.followed = true
            return sample
        }
        if let nextSighting, let lastSample = samples.last, nextSighting.frame - lastSample.frameIndex <= Self.followedCheckFrames,
           let last = lastSample.faces.first?.box {
            let seen = nextSighting.box.intersection(picture) ?? nextSighting.box
            let apart = ((last.midX - seen.midX) * (last.midX - seen.midX) + (last.midY - seen.midY) * (last.midY - seen.midY)).squareRoot()
            if apart > 0.5 * max(seen.width, 1) { return [] }
        }
        return samples
    }

    /// Followed positions are checked against the next look when they reach this close to it (frames: I- and
    /// P-frames only are at most 4 apart).
    static let followedCheckFrames = 4

    /// The track's face at `frame`, or at its sighting nearest in time.
    static func nearestSighting(of track: FaceTrack, to frame: Int, times: [Double]) -> FrameRect {
        track.points.min { abs(times[$0.frameIndex] - times[frame]) < abs(times[$1.frameIndex] - times[frame]) }!.detection.box
    }
}
