/// One person's face followed over time: detections in successive analysed frames linked by position and size.
public struct FaceTrack: Equatable, Sendable {
    public struct Point: Equatable, Sendable {
        public var frameIndex: Int
        public var detection: FaceDetection
    }

    public var id: Int
    public var points: [Point]

    public var firstFrame: Int { points.first?.frameIndex ?? 0 }
    public var lastFrame: Int { points.last?.frameIndex ?? 0 }
    /// How much this track looks like the subject: confident, large and long-lived faces weigh more.
    public var weight: Double {
        points.reduce(0) { $0 + Double($1.detection.confidence) / 100 * $1.detection.box.area.squareRoot() }
    }
}

/// Links per-frame detections into tracks: greedy nearest-neighbour matching between successive samples,
/// tolerating short gaps (missed detections) but never across a shot cut.
public struct FaceTracker: Sendable {
    /// A track that has not been seen for longer than this (seconds) ends; a face seen later starts a new one.
    public var maximumGapSeconds: Double
    /// Faces farther apart than this many face widths (per second of gap, at least one) are not the same face.
    public var maximumJumpInFaceWidths: Double

    public init(maximumGapSeconds: Double = 1.5, maximumJumpInFaceWidths: Double = 1.5) {
        self.maximumGapSeconds = maximumGapSeconds
        self.maximumJumpInFaceWidths = maximumJumpInFaceWidths
    }

    /// Tracks over `samples` (in frame order); `shotStarts` are the frame indices where shots begin.
    public func link(_ samples: [DetectionSample], frameTimes: [Double], shotStarts: [Int]) -> [FaceTrack] {
        var tracks: [FaceTrack] = []
        var active: [Int] = []  // indices into tracks
        var nextShot = 0
        let cuts = shotStarts.sorted()
        for sample in samples.sorted(by: { $0.frameIndex < $1.frameIndex }) {
            let time = frameTimes[sample.frameIndex]
            while nextShot < cuts.count, cuts[nextShot] <= sample.frameIndex {
                nextShot += 1
                active.removeAll()  // a cut ends every track
            }
            active.removeAll { time - frameTimes[tracks[$0].lastFrame] > maximumGapSeconds }
            var candidates: [(cost: Double, track: Int, face: Int)] = []
            for trackIndex in active {
                let last = tracks[trackIndex].points[tracks[trackIndex].points.count - 1].detection.box
                let gap = max(1, time - frameTimes[tracks[trackIndex].lastFrame])
                for (faceIndex, face) in sample.faces.enumerated() {
                    let size = max(last.width, face.box.width, 1)
                    let ratio = face.box.width / max(last.width, 1)
                    let distance = hypot(face.box.midX - last.midX, face.box.midY - last.midY) / size
                    guard ratio > 0.5, ratio < 2, distance <= maximumJumpInFaceWidths * gap else { continue }
                    candidates.append((distance, trackIndex, faceIndex))
                }
            }
            var usedTracks = Set<Int>(), usedFaces = Set<Int>()
            for candidate in candidates.sorted(by: { $0.cost < $1.cost })
            where !usedTracks.contains(candidate.track) && !usedFaces.contains(candidate.face) {
                usedTracks.insert(candidate.track)
                usedFaces.insert(candidate.face)
                tracks[candidate.track].points.append(.init(frameIndex: sample.frameIndex,
                                                            detection: sample.faces[candidate.face]))
            }
            for (faceIndex, face) in sample.faces.enumerated() where !usedFaces.contains(faceIndex) {
                tracks.append(FaceTrack(id: tracks.count, points: [.init(frameIndex: sample.frameIndex, detection: face)]))
                active.append(tracks.count - 1)
            }
        }
        return tracks
    }
}

private func hypot(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }
