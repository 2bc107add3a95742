/// Between two detections the planner knows nothing of when the subject moved, and the taut string spreads
/// the move over the whole gap: a person who stood still and then stepped away was left early (the crop cut
/// them off while they still stood) and reached late. The analysis sees every analysed frame, though: where
/// nothing changed around the people a detection found (their heads and bodies, on the 64×36 grid of luma
/// block means), between that detection and a frame, they are there on that frame.
public struct StillPictures: Equatable, Sendable {
    /// How an analysed frame differs from a detection's picture: the blocks whose mean moved by 16 or more
    /// (row-major indices), or nil when more than `listed` did (nothing can have stood still there).
    public struct Difference: Equatable, Sendable {
        public var frame: Int
        public var changedBlocks: [UInt16]?

        public init(frame: Int, changedBlocks: [UInt16]?) {
            self.frame = frame
            self.changedBlocks = changedBlocks
        }
    }

    /// The grid's block size in display pixels; nil when the grid is not the display's (a rotated picture):
    /// then the whole grid must stand still.
    public struct Grid: Equatable, Sendable {
        public var columns: Int, rows: Int
        public var blockWidth: Double, blockHeight: Double
        /// Where the grid's first block starts (display pixels): not at 0 when a rotated picture's grid, which
        /// starts at the stored picture's corner, is turned upright and the picture is not a whole number of blocks.
        public var originX: Double, originY: Double

        public init(columns: Int, rows: Int, blockWidth: Double, blockHeight: Double, originX: Double = 0, originY: Double = 0) {
            (self.columns, self.rows, self.blockWidth, self.blockHeight) = (columns, rows, blockWidth, blockHeight)
            (self.originX, self.originY) = (originX, originY)
        }
    }

    public static let listed = 64
    /// At most this many bytes of differences are kept (`record`; a frame is kept at most twice, after one
    /// detection and before the next): 50 minutes of 30 frames a second whose every difference lists 64 blocks,
    /// 9 hours of still ones; past it, no more stretches are found.
    public static let budget = 32 << 20
    /// The bytes of differences kept so far, about.
    public private(set) var bytes = 0

    /// Detection frame → the analysed frames after it, in order, until the next detection or a likely cut
    /// (and no further than the first frame that changed in more than `listed` blocks).
    public var after: [Int: [Difference]] = [:]
    /// Detection frame → the analysed frames before it, nearest first, back to the previous detection or a likely cut.
    public var before: [Int: [Difference]] = [:]
    public var grid: Grid?

    public init(grid: Grid? = nil) { self.grid = grid }

    /// Keeps `difference` after (or before) detection `look`; false, keeping nothing, once `budget` is spent.
    public mutating func record(_ difference: Difference, after look: Int) -> Bool {
        guard charge(difference) else { return false }
        after[look, default: []].append(difference)
        return true
    }

    /// `differences`: the frames before detection `look`, nearest first; as many as the budget allows.
    public mutating func record(_ differences: [Difference], before look: Int) {
        let kept = differences.prefix { charge($0) }
        if !kept.isEmpty { before[look] = Array(kept) }
    }

    private mutating func charge(_ difference: Difference) -> Bool {
        let blocks = difference.changedBlocks?.count ?? 0
        let cost = MemoryLayout<Difference>.stride + (blocks > 0 ? 32 + 2 * blocks : 0)  // an array's header and elements
        guard bytes + cost <= Self.budget else { return false }
        bytes += cost
        return true
    }

    /// The blocks around what `sample` found: each face with the body below it, each person's box; nil for the whole grid.
    func region(of sample: DetectionSample) -> Set<UInt16>? {
        guard let grid else { return nil }
        var blocks = Set<UInt16>()
        func add(_ rect: FrameRect) {
            let low = (x: max(0, Int(rect.x / grid.blockWidth)), y: max(0, Int(rect.y / grid.blockHeight)))
            let high = (x: min(grid.columns - 1, Int(rect.maxX / grid.blockWidth)), y: min(grid.rows - 1, Int(rect.maxY / grid.blockHeight)))
            guard low.x <= high.x, low.y <= high.y else { return }
            for row in low.y...high.y { for column in low.x...high.x { blocks.insert(UInt16(row * grid.columns + column)) } }
        }
        for face in sample.faces {
            add(face.box)
            add(SubjectAppearance.body(below: face.box))
        }
        for person in sample.people { add(person.box) }
        return blocks
    }

    /// The farthest frame of `differences` (in their order) up to which no more than one block of `region` changed.
    static func lastStill(_ differences: [Difference], region: Set<UInt16>?) -> Int? {
        var last: Int?
        for difference in differences {
            guard let changed = difference.changedBlocks else { break }
            let moved = region.map { region in changed.lazy.filter { region.contains($0) }.count } ?? changed.count
            guard moved < 2 else { break }
            last = difference.frame
        }
        return last
    }
}

extension DetectionSample {
    /// `samples` and, for each one with findings, copies of them on the ends of the stretches around it where
    /// nothing changed around what it found (`StillPictures`), marked `held` (not where another sample is).
    public static func holding(_ samples: [DetectionSample], still: StillPictures) -> [DetectionSample] {
        guard !still.after.isEmpty || !still.before.isEmpty else { return samples }
        var taken = Set(samples.map(\.frameIndex))
        var result = samples
        for sample in samples where !(sample.faces.isEmpty && sample.people.isEmpty) {
            let region = still.region(of: sample)
            let ends = [still.before[sample.frameIndex].flatMap { StillPictures.lastStill($0, region: region) },
                        still.after[sample.frameIndex].flatMap { StillPictures.lastStill($0, region: region) }]
            for frame in ends {
                guard let frame, frame != sample.frameIndex, taken.insert(frame).inserted else { continue }
                var copy = DetectionSample(frameIndex: frame, faces: sample.faces, people: sample.people)
                copy.held = true
                result.append(copy)
            }
        }
        return result.sorted { $0.frameIndex < $1.frameIndex }
    }
}
