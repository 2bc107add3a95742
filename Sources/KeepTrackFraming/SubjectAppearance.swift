/// Small colour pictures of analysed frames: the chroma (U, V) of a `columns`×`rows` grid of blocks over the
/// whole displayed picture. Between the frames where a detector finds the subject (a few a second at most,
/// none at all for a player whose face is 10 px tall), the colours of what the subject wears still show
/// where they are (`SubjectAppearance`).
public struct ColourThumbnails: Sendable {
    public var columns: Int
    public var rows: Int
    /// The picture the grid covers, in display pixels.
    public var width: Int
    public var height: Int
    /// Per analysed frame (shown-frame index): `columns`×`rows` U block means, then as many V ones (8-bit scale).
    public var frames: [Int: [UInt8]]

    public init(columns: Int, rows: Int, width: Int, height: Int, frames: [Int: [UInt8]] = [:]) {
        self.columns = columns
        self.rows = rows
        self.width = width
        self.height = height
        self.frames = frames
    }

    /// Bytes one frame's thumbnail takes.
    public static func bytes(columns: Int, rows: Int) -> Int { 2 * columns * rows }
}

/// Finds the subject between detections by the colours below its head (the clothes), as a colour histogram
/// back-projection does (Swain and Ballard's colour indexing; the ratio histogram of Bradski's CamShift):
/// blocks are weighed by how much more common their colour is on the subject's body than in the whole picture,
/// and the subject is where the weights, summed across the body's rows, peak, within the distance the subject
/// could have moved. Where the clothes share the background's colours (nothing stands out at the sightings
/// themselves), or the peak is weak (the subject hidden), nothing is said.
public struct SubjectAppearance: Sendable {
    public struct Settings: Sendable {
        /// Stand-ins only where the subject was not found for longer than this (seconds) on either side.
        public var gapSeconds: Double = 0.25
        /// How far the subject may move (source lengths along the crop's axis per second) between two looks.
        public var reach: Double = 0.75
        /// At the sightings, the body's weight must be this many times the picture's median column's.
        public var minimumContrast: Double = 3
        /// A stand-in needs at least this share of the body's weight at the sightings.
        public var minimumScore: Double = 0.3
        public init() {}
    }

    public var thumbnails: ColourThumbnails
    public var axis: CropAxis
    public var settings: Settings

    public init(thumbnails: ColourThumbnails, axis: CropAxis, settings: Settings = Settings()) {
        self.thumbnails = thumbnails
        self.axis = axis
        self.settings = settings
    }

    /// The body below a head (face) box: about two heads wide, from just under the chin to two heads down.
    static func body(below head: FrameRect) -> FrameRect {
        FrameRect(x: head.midX - 0.9 * head.width, y: head.maxY + 0.4 * head.height, width: 1.8 * head.width, height: 2 * head.height)
    }

    /// Blocks of the grid a rectangle (display pixels) covers, as column and row ranges (empty when outside).
    func blocks(_ rect: FrameRect) -> (columns: Range<Int>, rows: Range<Int>) {
        let t = thumbnails
        let sx = Double(t.columns) / Double(max(t.width, 1)), sy = Double(t.rows) / Double(max(t.height, 1))
        func range(_ start: Double, _ end: Double, _ count: Int) -> Range<Int> {
            let low = max(0, min(count, Int((start).rounded(.down)))), high = max(low, min(count, Int(end.rounded(.up))))
            return low..<high
        }
        return (range(rect.x * sx, rect.maxX * sx, t.columns), range(rect.y * sy, rect.maxY * sy, t.rows))
    }

    /// The colour bin (16×16 over U, V) of block `index` of a thumbnail.
    @inline(__always) func bin(_ picture: [UInt8], _ index: Int, blocks: Int) -> Int {
        Int(picture[index] >> 4) << 4 | Int(picture[blocks + index] >> 4)
    }

    /// Where the subject was found between its sightings.
    public struct Found: Equatable, Sendable {
        /// Frames where it had moved away from the sighting before (or after) it, with its head box moved as far.
        public var moved: [Sighting] = []
        /// Frames where it was still where that sighting saw it (within a block): nothing new for the path, but
        /// the subject is known to be there (so what else moves is not followed).
        public var stayed: [Int] = []

        public init(moved: [Sighting] = [], stayed: [Int] = []) {
            self.moved = moved
            self.stayed = stayed
        }
    }

    /// The subject in the gaps of `sightings` (the subject's face, or a person's head, at analysed frames of one
    /// shot, in frame order) on frames of `shot` that have a thumbnail, where its body colours peak. Empty when
    /// the body's colours do not stand out from the picture.
    public func standIns(shot: Range<Int>, sightings: [Sighting], frameTimes: [Double]) -> Found {
        let t = thumbnails
        let count = t.columns * t.rows
        let learnt = sightings.filter { t.frames[$0.frameIndex]?.count == 2 * count }
        guard !learnt.isEmpty, t.columns > 0, t.rows > 0 else { return Found() }
        // The ratio of each colour's share on the body to its share in the whole picture, at the sightings.
        var body = [Double](repeating: 0, count: 256), picture = [Double](repeating: 0, count: 256)
        for sighting in learnt {
            let frame = t.frames[sighting.frameIndex]!
            let (columns, rows) = blocks(Self.body(below: sighting.box))
            for row in rows { for column in columns { body[bin(frame, row * t.columns + column, blocks: count)] += 1 } }
            for index in 0..<count { picture[bin(frame, index, blocks: count)] += 1 }
        }
        let bodyTotal = body.reduce(0, +), pictureTotal = picture.reduce(0, +)
        guard bodyTotal >= 4 else { return Found() }
        let weights = (0..<256).map { index -> Double in
            guard body[index] > 0 else { return 0 }
            return min(8, (body[index] / bodyTotal) / (picture[index] / pictureTotal)) / 8
        }
        // How strongly the body shows at the sightings, against the picture's typical column (or row).
        var reference: [Double] = []
        for sighting in learnt {
            let profile = self.profile(t.frames[sighting.frameIndex]!, weights: weights, around: sighting.box)
            let at = position(of: sighting.box)
            let median = profile.sorted()[profile.count / 2]
            let score = profile[max(0, min(profile.count - 1, at))]
            guard score >= settings.minimumContrast * max(median, 1e-9) else { continue }
            reference.append(score)
        }
        // Most sightings must show the body standing out, or the colours are not the subject's own.
        guard reference.count * 2 >= learnt.count, let strength = reference.sorted().dropFirst(reference.count / 2).first else { return Found() }

        let looks = t.frames.keys.filter { shot.contains($0) && $0 < frameTimes.count }.sorted()
        let found = Set(sightings.map(\.frameIndex))
        var standIns: [Sighting] = [], stayed: [Int] = []
        let length = Double(axis == .horizontal ? t.columns : t.rows)
        let blockSize = axis == .horizontal ? Double(t.width) / Double(t.columns) : Double(t.height) / Double(t.rows)
        /// Walks `frames` from the sighting `anchor`, each look within reach of where the subject was last found (the
        /// reach grows while it is hidden). A stand-in is the anchor's box moved as far as the body's peak moved from
        /// its place at the anchor, in whole blocks; by no more than one block counts as not moved, so a subject at
        /// rest keeps its exact box.
        func follow(from anchor: Sighting, through frames: [Int]) {
            let at = position(of: anchor.box)
            var anchorPeak = at
            if let picture = t.frames[anchor.frameIndex] {
                let profile = self.profile(picture, weights: weights, around: anchor.box)
                anchorPeak = (max(0, at - 2)...min(profile.count - 1, at + 2)).max { profile[$0] < profile[$1] } ?? at
            }
            var last = (peak: anchorPeak, time: frameTimes[anchor.frameIndex])
            for frame in frames {
                let profile = self.profile(t.frames[frame]!, weights: weights, around: anchor.box)
                let reach = Int((settings.reach * length * abs(frameTimes[frame] - last.time)).rounded(.up)) + 1
                let window = max(0, last.peak - reach)...min(profile.count - 1, last.peak + reach)
                guard !window.isEmpty, let best = window.max(by: { profile[$0] < profile[$1] }) else { continue }
                let median = profile.sorted()[profile.count / 2]
                guard profile[best] >= settings.minimumScore * strength, profile[best] >= settings.minimumContrast * max(median, 1e-9) else {
                    continue  // hidden or blurred here: the next look reaches further
                }
                last = (best, frameTimes[frame])
                guard abs(best - anchorPeak) > 1 else {
                    stayed.append(frame)
                    continue
                }
                let moved = Double(best - anchorPeak) * blockSize
                var box = anchor.box
                if axis == .horizontal { box.x += moved } else { box.y += moved }
                standIns.append(Sighting(frameIndex: frame, box: box))
            }
        }
        let times = sightings.map { frameTimes[$0.frameIndex] }
        func farFromSightings(_ frame: Int) -> Bool {
            !found.contains(frame) && !times.contains { abs($0 - frameTimes[frame]) < settings.gapSeconds }
        }
        // Before the first sighting, backwards from it; after each one, forwards to the next.
        if let first = sightings.first {
            follow(from: first, through: looks.filter { $0 < first.frameIndex && farFromSightings($0) }.reversed())
        }
        for (index, sighting) in sightings.enumerated() {
            let next = index + 1 < sightings.count ? sightings[index + 1].frameIndex : shot.upperBound
            follow(from: sighting, through: looks.filter { $0 > sighting.frameIndex && $0 < next && farFromSightings($0) })
        }
        return Found(moved: standIns.sorted { $0.frameIndex < $1.frameIndex }, stayed: stayed.sorted())
    }

    /// The block index along the axis at a head's centre.
    func position(of head: FrameRect) -> Int {
        let (columns, rows) = blocks(FrameRect(x: head.midX, y: head.midY, width: 0, height: 0))
        return axis == .horizontal ? min(columns.lowerBound, thumbnails.columns - 1) : min(rows.lowerBound, thumbnails.rows - 1)
    }

    /// The body's weight along the axis: per column (or row), the weights summed across the body's band (the rows,
    /// or columns, below `head` with a margin of two blocks), averaged over the body's width.
    func profile(_ frame: [UInt8], weights: [Double], around head: FrameRect) -> [Double] {
        let t = thumbnails
        let count = t.columns * t.rows
        let body = Self.body(below: head)
        let (columns, rows) = blocks(body)
        var sums: [Double]
        let width: Int
        if axis == .horizontal {
            let band = max(0, rows.lowerBound - 2)..<min(t.rows, max(rows.upperBound + 2, rows.lowerBound + 1))
            sums = (0..<t.columns).map { column in band.reduce(0) { $0 + weights[bin(frame, $1 * t.columns + column, blocks: count)] } }
            width = max(1, columns.count)
        } else {
            let band = max(0, columns.lowerBound - 2)..<min(t.columns, max(columns.upperBound + 2, columns.lowerBound + 1))
            sums = (0..<t.rows).map { row in band.reduce(0) { $0 + weights[bin(frame, row * t.columns + $1, blocks: count)] } }
            width = max(1, rows.count)
        }
        // A moving average over the body's width, centred (the head's centre is the body's).
        let half = width / 2
        var prefix = [0.0]
        for value in sums { prefix.append(prefix.last! + value) }
        sums = sums.indices.map { index in
            let low = max(0, index - half), high = min(sums.count, index + half + 1)
            return (prefix[high] - prefix[low]) / Double(high - low)
        }
        return sums
    }
}
