/// Numbers that say how a crop path behaves, for tests, the `--json` summary and tuning.
public struct PathStatistics: Equatable, Sendable {
    public var frames: Int
    public var shots: Int
    /// Shots in which the crop never moves.
    public var steadyShots: Int
    /// Frames whose crop differs from the previous frame's in the same shot.
    public var movingFrames: Int
    /// Largest crop speed in pixels per second, over `window` frames.
    public var maximumSpeed: Double
    /// Largest change of that speed, in pixels per second squared.
    public var maximumAcceleration: Double
    /// Times the crop changed direction within a shot.
    public var reversals: Int
    /// Largest crop move between two frames of the same shot, in pixels.
    public var largestStep: Int

    /// Speeds are measured over this many frames on each side, so 2-pixel quantisation steps do not read as
    /// huge accelerations.
    public static let window = 3

    public init(path: CropPath, frameTimes: [Double]) {
        let times = CameraPathPlanner.strictlyIncreasing(frameTimes)
        frames = path.offsets.count
        shots = path.shots.count
        steadyShots = 0
        movingFrames = 0
        maximumSpeed = 0
        maximumAcceleration = 0
        reversals = 0
        largestStep = 0
        let k = Self.window
        for shot in path.shots {
            let offsets = path.offsets[shot].map(Double.init)
            let shotTimes = Array(times[shot])
            var lastDirection = 0.0
            var moved = false
            for index in offsets.indices.dropFirst() {
                let step = offsets[index] - offsets[index - 1]
                guard step != 0 else { continue }
                moved = true
                movingFrames += 1
                largestStep = max(largestStep, Int(abs(step)))
                if lastDirection != 0, step.sign != lastDirection.sign { reversals += 1 }
                lastDirection = step
            }
            if !moved { steadyShots += 1 }
            guard offsets.count > 2 * k else { continue }
            var speeds: [Double] = []
            var speedTimes: [Double] = []
            for index in k..<(offsets.count - k) {
                speeds.append((offsets[index + k] - offsets[index - k]) / (shotTimes[index + k] - shotTimes[index - k]))
                speedTimes.append(shotTimes[index])
            }
            maximumSpeed = max(maximumSpeed, speeds.map(abs).max() ?? 0)
            if speeds.count > 2 * k {
                for index in k..<(speeds.count - k) {
                    let change = (speeds[index + k] - speeds[index - k]) / (speedTimes[index + k] - speedTimes[index - k])
                    maximumAcceleration = max(maximumAcceleration, abs(change))
                }
            }
        }
    }
}

/// How often a face (ground truth or detected) is entirely inside the crop.
public struct SubjectCoverage: Equatable, Sendable {
    /// Frames considered: the face is known there and could be inside the crop (it is inside the frame and
    /// not larger than the crop).
    public var possibleFrames: Int
    public var framesInside: Int
    public var fraction: Double { possibleFrames == 0 ? 1 : Double(framesInside) / Double(possibleFrames) }

    public init(path: CropPath, faces: [Sighting]) {
        let frame = FrameRect(x: 0, y: 0, width: Double(path.sourceWidth), height: Double(path.sourceHeight))
        possibleFrames = 0
        framesInside = 0
        for face in faces where face.frameIndex >= 0 && face.frameIndex < path.offsets.count {
            guard frame.contains(face.box), face.box.width <= Double(path.cropWidth),
                  face.box.height <= Double(path.cropHeight) else { continue }
            possibleFrames += 1
            // A fit shot shows the whole picture; a split one its two windows.
            let windows = path.splitRects(frame: face.frameIndex)
            if path.layout(frame: face.frameIndex) == .fit || path.rect(frame: face.frameIndex).contains(face.box)
                || windows.map({ $0.top.contains(face.box) || $0.bottom.contains(face.box) }) == true { framesInside += 1 }
        }
    }
}

/// How one window of the split shots (the upper or the lower half) behaves, as the main crop's statistics
/// do for a followed crop: its own path over the split shots (moving frames, largest step and reversals: no
/// jitter; speed and acceleration), how often the face it follows is inside it, and how it centres that face.
public struct SplitWindowStatistics: Equatable, Sendable {
    public var path: PathStatistics
    public var coverage: SubjectCoverage
    public var framing: FramingStatistics

    /// The statistics of the lower window (`lower`) or the upper one; nil when no shot is split.
    public init?(path: CropPath, lower: Bool, frameTimes: [Double]) {
        guard let window = path.splitWindowPath(lower: lower) else { return nil }
        self.path = PathStatistics(path: window, frameTimes: frameTimes)
        framing = FramingStatistics(path: window, faces: Self.everyFrame(window.subjectFaces, frameTimes: frameTimes, shots: window.shots),
                                    frameTimes: frameTimes)
        // Inside the window's rectangle (its position across the axis too), on the frames of split shots.
        var coverage = SubjectCoverage(path: window, faces: [])
        let frame = FrameRect(x: 0, y: 0, width: Double(path.sourceWidth), height: Double(path.sourceHeight))
        for face in window.subjectFaces {
            guard let rects = path.splitRects(frame: face.frameIndex), frame.contains(face.box),
                  face.box.width <= Double(path.splitSize.width), face.box.height <= Double(path.splitSize.height) else { continue }
            coverage.possibleFrames += 1
            if (lower ? rects.bottom : rects.top).contains(face.box) { coverage.framesInside += 1 }
        }
        self.coverage = coverage
    }

    /// Faces on every frame between two sightings of one shot at most `gap` seconds apart, interpolated (the
    /// detections are sparse; rests are judged on consecutive frames).
    static func everyFrame(_ faces: [Sighting], frameTimes: [Double], shots: [Range<Int>], gap: Double = 0.75) -> [Sighting] {
        let sorted = faces.filter { $0.frameIndex >= 0 && $0.frameIndex < frameTimes.count }.sorted { $0.frameIndex < $1.frameIndex }
        var result: [Sighting] = []
        for (index, face) in sorted.enumerated() {
            result.append(face)
            guard index + 1 < sorted.count else { continue }
            let next = sorted[index + 1]
            let duration = frameTimes[next.frameIndex] - frameTimes[face.frameIndex]
            guard duration > 0, duration <= gap, shots.contains(where: { $0.contains(face.frameIndex) && $0.contains(next.frameIndex) }) else { continue }
            for frame in (face.frameIndex + 1)..<next.frameIndex {
                let t = (frameTimes[frame] - frameTimes[face.frameIndex]) / duration
                func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * t }
                result.append(Sighting(frameIndex: frame, box: FrameRect(x: mix(face.box.x, next.box.x), y: mix(face.box.y, next.box.y),
                                                                         width: mix(face.box.width, next.box.width),
                                                                         height: mix(face.box.height, next.box.height))))
            }
        }
        return result
    }
}

/// How the crop frames the face, the way a camera operator is judged: at rest the face on the crop's
/// centre line, while moving within the central 40 %. `faces` are per-frame boxes (ground truth or another
/// detector's), in frame order; frames without a face are simply absent.
public struct FramingStatistics: Equatable, Sendable {
    /// Frames inside a rest (the face centre within `stillness` crop lengths for at least `restSeconds`,
    /// and `settleSeconds` away from the rest's start and end) where the crop could centre the face.
    public var restFrames: Int
    /// At those frames: the largest and the mean distance of the face centre from the crop's centre line,
    /// in crop lengths (0.05: within 5 % of the crop width).
    public var largestRestOffset: Double
    public var meanRestOffset: Double
    /// Frames not at rest (where a crop inside the frame could hold the face in its central 40 %), and how
    /// many of them have the face centre within the central 40 % of the crop.
    public var movingFrames: Int
    public var movingFramesCentral: Int
    public var centralFraction: Double { movingFrames == 0 ? 1 : Double(movingFramesCentral) / Double(movingFrames) }

    public init(path: CropPath, faces: [Sighting], frameTimes: [Double], target: Double = 0.5,
                restSeconds: Double = 1, settleSeconds: Double = 0.5, stillness: Double = 0.02) {
        let horizontal = path.axis == .horizontal
        let cropLength = Double(horizontal ? path.cropWidth : path.cropHeight)
        let sourceLength = Double(horizontal ? path.sourceWidth : path.sourceHeight)
        let known = faces.filter { $0.frameIndex >= 0 && $0.frameIndex < path.offsets.count && $0.frameIndex < frameTimes.count }
        let centres = known.map { horizontal ? $0.box.midX : $0.box.midY }
        let times = known.map { frameTimes[$0.frameIndex] }
        // Maximal still windows: every face centre within `stillness` of the others, consecutive frames.
        var resting = [Bool](repeating: false, count: known.count)
        var start = 0
        while start < known.count {
            var end = start, low = centres[start], high = centres[start]
            while end + 1 < known.count, known[end + 1].frameIndex == known[end].frameIndex + 1,
                  max(high, centres[end + 1]) - min(low, centres[end + 1]) <= stillness * cropLength {
                end += 1
                low = min(low, centres[end])
                high = max(high, centres[end])
            }
            if times[end] - times[start] >= restSeconds {
                for index in start...end where times[index] - times[start] >= settleSeconds && times[end] - times[index] >= settleSeconds {
                    resting[index] = true
                }
            }
            start = end + 1
        }
        restFrames = 0
        largestRestOffset = 0
        meanRestOffset = 0
        movingFrames = 0
        movingFramesCentral = 0
        for (index, face) in known.enumerated() {
            let crop = path.rect(frame: face.frameIndex)
            let cropStart = horizontal ? crop.x : crop.y
            let offset = (centres[index] - (cropStart + target * cropLength)) / cropLength
            if resting[index] {
                // Only where the target is reachable: not so close to the frame's edge that the crop cannot centre it.
                let wanted = centres[index] + (0.5 - target) * cropLength
                guard wanted >= cropLength / 2, wanted <= sourceLength - cropLength / 2 else { continue }
                restFrames += 1
                largestRestOffset = max(largestRestOffset, abs(offset))
                meanRestOffset += abs(offset)
            } else {
                // Only where the central 40 % can reach the face at all.
                let reach = 0.2 * cropLength
                guard centres[index] >= cropLength / 2 - reach, centres[index] <= sourceLength - cropLength / 2 + reach else { continue }
                movingFrames += 1
                if abs((centres[index] - cropStart) / cropLength - 0.5) <= 0.2 { movingFramesCentral += 1 }
            }
        }
        if restFrames > 0 { meanRestOffset /= Double(restFrames) }
    }
}
