/// Between two detections a small clip gets few looks (the budget is a fraction of its cheap encode), and a
/// large face can cross half the picture in between: stage_cuts_audience's over-the-shoulder head swings
/// 260 px right and back within 1.4 s with no look at all. The analysis has every analysed frame's 64×36 grid
/// of luma block means, though, and a face many blocks large can be followed on it: each frame's blocks under
/// the face are matched against the frame before, a few blocks either way. A detection's faces are followed
/// so until the next detection or a likely cut, and only faces large enough on the grid (`minimumBlocks`).
public struct FaceFollowing: Sendable {
    /// One detected face's positions on the analysed frames after its detection.
    public struct Followed: Equatable, Sendable {
        /// The detection's frame and the face as it found it.
        public var detectionFrame: Int
        public var face: FrameRect
        /// Where it was on later frames (the part inside the picture), in frame order.
        public var positions: [(frame: Int, box: FrameRect)]

        public init(detectionFrame: Int, face: FrameRect, positions: [(frame: Int, box: FrameRect)]) {
            self.detectionFrame = detectionFrame
            self.face = face
            self.positions = positions
        }

        public static func == (a: Followed, b: Followed) -> Bool {
            a.detectionFrame == b.detectionFrame && a.face == b.face && a.positions.map(\.frame) == b.positions.map(\.frame)
                && a.positions.map(\.box) == b.positions.map(\.box)
        }
    }

    /// A face is followed when it covers at least this many blocks both ways (stage's head: 17 × 26).
    public static let minimumBlocks = 8
    /// A frame's match may move the face this many blocks either way, more when frames were skipped.
    static let reach = 4
    /// Mean block difference (luma levels) added per block of movement: a tie stays where it was.
    static let movePenalty = 0.3
    /// Above this mean block difference the face is lost (it turned away, something passed in front).
    static let lostDifference = 32.0
    /// At most this many faces of a detection are followed (the largest), so the positions kept stay bounded:
    /// about 35 MB for two hours at 30 frames a second.
    public static let mostFaces = 4
    /// Frames of one stretch kept while its detection is not known yet, and followed at most.
    public static let longestStretch = 600

    public let grid: StillPictures.Grid
    /// Faces followed so far, in the order their detections were learnt.
    public private(set) var followed: [Followed] = []

    /// A stretch of analysed frames from a detection (its own picture first) to the next detection or cut.
    private struct Stretch {
        var frames: [(frame: Int, thumbnail: [UInt8])]
        var open: Bool
    }
    /// The stretches of detections submitted and not learnt yet, in submission order.
    private var waiting: [Stretch] = []
    /// Detections submitted so far.
    private var submitted = 0
    /// Detections learnt so far.
    private var learnt = 0
    /// The faces of the latest learnt detection, followed while its stretch is open.
    private var active: [Int] = []
    private var activePrevious: [UInt8] = []
    private var activeFrames = 0
    private var activeGapStart = 0

    public init(grid: StillPictures.Grid) { self.grid = grid }

    /// A detection was submitted on `frame`: the stretch before it ends and its own begins.
    public mutating func detected(frame: Int, thumbnail: [UInt8]) {
        closeOpenStretch()
        waiting.append(Stretch(frames: [(frame, thumbnail)], open: true))
        submitted += 1
    }

    /// An analysed frame without a detection; `likelyCut`: it may begin a new shot (nothing is followed across).
    public mutating func analysed(frame: Int, thumbnail: [UInt8], likelyCut: Bool) {
        if likelyCut {
            closeOpenStretch()
            return
        }
        if let last = waiting.indices.last, waiting[last].open {
            waiting[last].frames.append((frame, thumbnail))
            if waiting[last].frames.count >= Self.longestStretch { waiting[last].open = false }
        } else if !active.isEmpty {
            step(frame: frame, thumbnail: thumbnail)
        }
    }

    /// What the next detection (in submission order) found, in display pixels: its large faces are followed
    /// over the frames since it, and on while its stretch lasts.
    public mutating func learn(faces: [FrameRect]) {
        guard learnt < submitted, !waiting.isEmpty else { return }
        learnt += 1
        let stretch = waiting.removeFirst()
        active = []
        guard let first = stretch.frames.first else { return }
        let large = faces.filter { face in
            let span = blockSpan(of: face)
            return span.columns >= Self.minimumBlocks && span.rows >= Self.minimumBlocks
        }
        for face in large.sorted(by: { $0.area > $1.area }).prefix(Self.mostFaces) {
            followed.append(Followed(detectionFrame: first.frame, face: face, positions: []))
            active.append(followed.count - 1)
        }
        guard !active.isEmpty else { return }
        activePrevious = first.thumbnail
        activeFrames = 1
        activeGapStart = first.frame
        for frame in stretch.frames.dropFirst() { step(frame: frame.frame, thumbnail: frame.thumbnail) }
        // Still open (no later detection submitted yet): later frames are followed as they come.
        if !(stretch.open && waiting.isEmpty) { active = [] }
    }

    private mutating func closeOpenStretch() {
        if let last = waiting.indices.last { waiting[last].open = false }
        if waiting.isEmpty { active = [] }
    }

    /// Follows every active face from the previous frame's grid to this one's.
    private mutating func step(frame: Int, thumbnail: [UInt8]) {
        let skipped = max(0, frame - activeGapStart - 1)
        activeGapStart = frame
        activeFrames += 1
        guard activeFrames <= Self.longestStretch else { active = []; return }
        var still: [Int] = []
        for index in active {
            let last = followed[index].positions.last?.box ?? followed[index].face
            guard let moved = match(last, from: activePrevious, to: thumbnail, reach: Self.reach + 2 * min(skipped, 4)) else { continue }
            followed[index].positions.append((frame, moved))
            still.append(index)
        }
        active = still
        activePrevious = thumbnail
    }

    /// The blocks `box` covers inside the grid.
    func blockSpan(of box: FrameRect) -> (columns: Int, rows: Int) {
        let cells = blocks(of: box)
        return (max(0, cells.x.count), max(0, cells.y.count))
    }

    private func blocks(of box: FrameRect) -> (x: Range<Int>, y: Range<Int>) {
        // A grid without blocks (a picture too small for one) or a box that is not finite covers nothing.
        guard grid.blockWidth >= 1, grid.blockHeight >= 1, grid.originX.isFinite, grid.originY.isFinite, box.x.isFinite, box.y.isFinite, box.width.isFinite, box.height.isFinite,
              abs(box.x) + abs(box.width) < 1e9, abs(box.y) + abs(box.height) < 1e9 else { return (0..<0, 0..<0) }
        let x = box.x - grid.originX, y = box.y - grid.originY
        let left = max(0, Int((x / grid.blockWidth).rounded())), right = min(grid.columns, Int(((x + box.width) / grid.blockWidth).rounded()))
        let top = max(0, Int((y / grid.blockHeight).rounded())), bottom = min(grid.rows, Int(((y + box.height) / grid.blockHeight).rounded()))
        return (left..<max(left, right), top..<max(top, bottom))
    }

    /// Where `box` (display pixels, on grid `a`) is on grid `b`: the shift of its blocks whose mean difference
    /// (plus `movePenalty` per block moved) is least, refined between blocks by fitting a V to the differences
    /// either side. Nil when the box has too few blocks inside the picture or nothing matches well enough.
    func match(_ box: FrameRect, from a: [UInt8], to b: [UInt8], reach: Int) -> FrameRect? {
        let columns = grid.columns, rows = grid.rows
        guard a.count == columns * rows, b.count == a.count else { return nil }
        let cells = blocks(of: box)
        guard cells.x.count >= 2, cells.y.count >= 2 else { return nil }
        /// Mean absolute difference of the box's blocks of `a` against `b` moved by (dx, dy), over the blocks that stay inside.
        func difference(_ dx: Int, _ dy: Int) -> Double? {
            // (Bounds first: moved far enough, the blocks left inside make an empty, or reversed, range.)
            let left = max(cells.x.lowerBound, -dx), right = min(cells.x.upperBound, columns - dx)
            let top = max(cells.y.lowerBound, -dy), bottom = min(cells.y.upperBound, rows - dy)
            guard right - left >= max(2, cells.x.count / 3), bottom - top >= max(2, cells.y.count / 3) else { return nil }
            var sum = 0
            for y in top..<bottom {
                let rowA = y * columns, rowB = (y + dy) * columns + dx
                for x in left..<right { sum += abs(Int(a[rowA + x]) - Int(b[rowB + x])) }
            }
            return Double(sum) / Double((right - left) * (bottom - top))
        }
        let verticalReach = max(1, (reach + 1) / 2)
        var table: [Int: Double] = [:]
        var best: (dx: Int, dy: Int, score: Double, difference: Double)?
        for dy in -verticalReach...verticalReach {
            for dx in -reach...reach {
                guard let found = difference(dx, dy) else { continue }
                table[dy * 1000 + dx] = found
                let score = found + Self.movePenalty * Double(abs(dx) + abs(dy))
                if best == nil || score < best!.score { best = (dx, dy, score, found) }
            }
        }
        guard let best, best.difference <= Self.lostDifference else { return nil }
        /// Where between the blocks the least difference lies, from the differences either side (equiangular fit).
        func refined(_ centre: Double, _ before: Double?, _ after: Double?) -> Double {
            guard let before, let after else { return 0 }
            let rise = max(before, after) - centre
            return rise > 0 ? max(-0.5, min(0.5, (before - after) / (2 * rise))) : 0
        }
        let fx = refined(best.difference, table[best.dy * 1000 + best.dx - 1], table[best.dy * 1000 + best.dx + 1])
        let fy = refined(best.difference, table[(best.dy - 1) * 1000 + best.dx], table[(best.dy + 1) * 1000 + best.dx])
        var moved = box
        moved.x += (Double(best.dx) + fx) * grid.blockWidth
        moved.y += (Double(best.dy) + fy) * grid.blockHeight
        return moved
    }
}
