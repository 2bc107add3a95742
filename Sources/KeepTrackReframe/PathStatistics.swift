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

    public init(path: CropPath, faces: [(frameIndex: Int, box: FrameRect)]) {
        let frame = FrameRect(x: 0, y: 0, width: Double(path.sourceWidth), height: Double(path.sourceHeight))
        possibleFrames = 0
        framesInside = 0
        for face in faces where face.frameIndex >= 0 && face.frameIndex < path.offsets.count {
            guard frame.contains(face.box), face.box.width <= Double(path.cropWidth),
                  face.box.height <= Double(path.cropHeight) else { continue }
            possibleFrames += 1
            if path.rect(frame: face.frameIndex).contains(face.box) { framesInside += 1 }
        }
    }
}
