/// An axis-aligned rectangle in pixels of a frame (origin top-left, y down).
public struct FrameRect: Equatable, Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public var area: Double { max(0, width) * max(0, height) }

    /// The same rectangle in a frame scaled by `factor` (detections run on downscaled frames).
    public func scaled(by factor: Double) -> FrameRect {
        FrameRect(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }

    /// True when `other` lies entirely inside this rectangle.
    public func contains(_ other: FrameRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    /// The part of this rectangle inside `other`; nil when they do not overlap.
    public func intersection(_ other: FrameRect) -> FrameRect? {
        let left = max(x, other.x), top = max(y, other.y), right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return nil }
        return FrameRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Intersection over union, 0 when disjoint.
    public func intersectionOverUnion(_ other: FrameRect) -> Double {
        let overlapWidth = min(maxX, other.maxX) - max(x, other.x)
        let overlapHeight = min(maxY, other.maxY) - max(y, other.y)
        guard overlapWidth > 0, overlapHeight > 0 else { return 0 }
        let overlap = overlapWidth * overlapHeight
        return overlap / (area + other.area - overlap)
    }

    /// Start and length along one axis.
    public func span(along axis: CropAxis) -> AxisSpan {
        axis == .horizontal ? AxisSpan(start: x, length: width) : AxisSpan(start: y, length: height)
    }
}

/// A stretch of one axis: where it starts and how long it is.
public struct AxisSpan: Equatable, Sendable {
    public var start: Double
    public var length: Double

    public init(start: Double, length: Double) {
        self.start = start
        self.length = length
    }
}

/// A size in whole pixels.
public struct PixelSize: Equatable, Hashable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A box seen at one analysed frame: the subject's face, a head standing in for it, or what moves.
public struct Sighting: Equatable, Sendable {
    public var frameIndex: Int
    public var box: FrameRect

    public init(frameIndex: Int, box: FrameRect) {
        self.frameIndex = frameIndex
        self.box = box
    }
}

/// One face found in one frame, in that frame's (display-orientation) pixels.
public struct FaceDetection: Equatable, Sendable {
    public var box: FrameRect
    /// Detector confidence, 0...100.
    public var confidence: Int

    public init(box: FrameRect, confidence: Int) {
        self.box = box
        self.confidence = confidence
    }
}

/// The faces found in one analysed frame. Frames are analysed a few times per second, not all of them.
/// Where no face was found, `people` may hold whole people (bodies, seen from any side) found instead.
/// `motion` is where the picture changed, for shots in which nobody is found at all.
public struct DetectionSample: Equatable, Sendable {
    public var frameIndex: Int
    public var faces: [FaceDetection]
    public var people: [FaceDetection]
    /// Where the picture changed since the previous analysed frame (the subject when nobody is found).
    public var motion: FrameRect?
    /// Not a look of the detector's own: a detection's findings carried to a frame where nothing around them
    /// had changed since, or would change until it (`holding(_:still:)`), or followed there (`followed`).
    public var held = false
    /// Held: a detected face followed on the luma grid to this frame (`FaceFollowing`).
    public var followed = false

    public init(frameIndex: Int, faces: [FaceDetection], people: [FaceDetection] = [], motion: FrameRect? = nil) {
        self.frameIndex = frameIndex
        self.faces = faces
        self.people = people
        self.motion = motion
    }

    /// Where a person's head is in a person detector's box (OpenCV's HOG window: the body fills the middle
    /// half of the width and about the 12–88 % of the height): a face-sized box at the top, centred.
    public static func head(ofPerson person: FrameRect) -> FrameRect {
        FrameRect(x: person.midX - 0.125 * person.width, y: person.y + 0.1 * person.height,
                  width: 0.25 * person.width, height: 0.14 * person.height)
    }
}

/// The direction in which the crop window can slide: horizontal when the target is narrower than the source.
public enum CropAxis: String, Sendable {
    case horizontal
    case vertical
}
