/// Where a detection that looks only around the faces found last looks (`DetectionSchedule.Decision.detectRegions`).
///
/// Why: between cuts a face is where it was, or where its motion takes it, and the face detector's cost is
/// proportional to the pixels it looks at. On the 1080p scenes a face 42 px tall in the 480 px detection
/// picture needs a region of about 80×85 px: 5 % of the picture, and YuNet then takes 2 ms instead of 25
/// on one thread, finding the same face within 3 px (every tenth frame of scene:drift). The regions stay at
/// the full detection picture's scale, so small faces are found as reliably as there; the periodic full
/// detection finds newcomers elsewhere, and a region that loses its face makes the next detection a full one.
public enum DetectionRegions {
    /// A rectangle of the detection picture, in whole pixels.
    public struct Region: Equatable, Sendable {
        public var x: Int, y: Int, width: Int, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
        public var pixels: Int { width * height }
        var maxX: Int { x + width }
        var maxY: Int { y + height }
        func overlaps(_ other: Region) -> Bool {
            x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
        }
        func union(_ other: Region) -> Region {
            let left = min(x, other.x), top = min(y, other.y)
            return Region(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
        }
    }

    /// Room around a face on every side, in face heights: the detector needs some context, and the face
    /// moves between two detections (a third of a second apart while it moves). With half a face height,
    /// YuNet found every face the whole picture found, within 8 px, on every tenth frame of the footage and
    /// scene:drift (the wheel's yuface module, regions from the detection ten frames before).
    public static let marginInFaceHeights = 0.5
    /// Regions covering more of the picture than this are not worth it: the whole picture is looked at.
    public static let largestShare = 0.5
    /// A face that moved further than this many face heights between the two detections is taken for
    /// another face (a jump, a different person), not extrapolated; a walk across the picture moves 1–3 face
    /// heights between two detections.
    public static let largestStepInFaceHeights = 4.0

    /// The regions to look at on frame `frame` of a `width`×`height` detection picture, given the faces the
    /// latest known detection found on frame `seenOn` (boxes in that picture's pixels) and, when known, the
    /// strongest face of the detection before it (`previous`, on frame `previousFrame`) to extrapolate the
    /// motion. Each face's region covers it where it was and where its motion would take it, with a margin of
    /// `marginInFaceHeights` face heights plus half the predicted move; overlapping regions merge; each is at
    /// least `minimumSide` pixels a side. Nil when there is no face, when a face is (or is predicted to be)
    /// partly outside the picture, or when the regions would cover more than `largestShare` of the picture.
    public static func around(faces: [FrameRect], seenOn: Int, previous: FrameRect?, previousFrame: Int?, frame: Int,
                              width: Int, height: Int, minimumSide: Int = 32) -> [Region]? {
        guard !faces.isEmpty, width > 0, height > 0 else { return nil }
        var shiftX = 0.0, shiftY = 0.0
        if let previous, let previousFrame, previousFrame < seenOn, frame > seenOn,
           let strongest = faces.max(by: { $0.area < $1.area }) {
            let stepX = strongest.midX - previous.midX, stepY = strongest.midY - previous.midY
            if (stepX * stepX + stepY * stepY).squareRoot() <= largestStepInFaceHeights * max(strongest.height, 1) {
                let ahead = Double(frame - seenOn) / Double(seenOn - previousFrame)
                shiftX = stepX * ahead
                shiftY = stepY * ahead
            }
        }
        let shift = (shiftX * shiftX + shiftY * shiftY).squareRoot()
        var regions: [Region] = []
        for face in faces where face.width > 0 && face.height > 0 {
            // A face leaving the picture may be anywhere next: the whole picture.
            guard min(face.x, face.x + shiftX) >= 0, min(face.y, face.y + shiftY) >= 0,
                  max(face.maxX, face.maxX + shiftX) <= Double(width), max(face.maxY, face.maxY + shiftY) <= Double(height) else { return nil }
            let margin = marginInFaceHeights * face.height + shift / 2
            let left = min(face.x, face.x + shiftX) - margin, right = max(face.maxX, face.maxX + shiftX) + margin
            let top = min(face.y, face.y + shiftY) - margin, bottom = max(face.maxY, face.maxY + shiftY) + margin
            guard let region = clamped(left: left, top: top, right: right, bottom: bottom, width: width, height: height,
                                       minimumSide: minimumSide) else { continue }
            regions.append(region)
        }
        guard !regions.isEmpty else { return nil }
        regions = merged(regions)
        let pixels = regions.reduce(0) { $0 + $1.pixels }
        guard Double(pixels) <= largestShare * Double(width * height) else { return nil }
        return regions
    }

    /// The rectangle in whole pixels inside the picture, grown about its centre to `minimumSide` where the
    /// picture allows; nil when nothing of it is inside.
    static func clamped(left: Double, top: Double, right: Double, bottom: Double, width: Int, height: Int,
                        minimumSide: Int) -> Region? {
        func span(_ low: Double, _ high: Double, limit: Int) -> (Int, Int)? {
            guard high > 0, low < Double(limit) else { return nil }
            var start = max(0, Int(low.rounded(.down))), end = min(limit, Int(high.rounded(.up)))
            let side = min(minimumSide, limit)
            if end - start < side {
                let centre = (start + end) / 2
                start = max(0, min(limit - side, centre - side / 2))
                end = start + side
            }
            return (start, end)
        }
        guard let (x0, x1) = span(left, right, limit: width), let (y0, y1) = span(top, bottom, limit: height) else { return nil }
        return Region(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Overlapping regions replaced by their bounding rectangles until none overlap.
    static func merged(_ regions: [Region]) -> [Region] {
        var result = regions
        var changed = true
        while changed {
            changed = false
            outer: for i in result.indices {
                for j in result.indices where j > i && result[i].overlaps(result[j]) {
                    result[i] = result[i].union(result[j])
                    result.remove(at: j)
                    changed = true
                    break outer
                }
            }
        }
        return result
    }
}
