/// Finds shot cuts from per-frame picture differences (0 = identical, 1 = nothing in common), e.g. the
/// L1 distance between luma histograms of successive frames that the pipeline computes while decoding.
/// A cut is a difference that is both large and far above its neighbourhood, so fast motion or a flash
/// spread over several frames does not count.
public struct ShotDetector: Sendable {
    /// Differences below this are never cuts.
    public var minimumDifference: Double
    /// A cut must be this many times the median difference of the frames around it.
    public var relativeFactor: Double
    /// Frames on each side considered for that median.
    public var neighbourhood: Int
    /// Or: this many times the median of the busier side alone (and `relativeFactor` times the calmer side's).
    /// A hard cut into a shot that moves on every frame (stage_cuts_audience's over-the-shoulder head: 0.40 at
    /// the cut, 0.12–0.16 on each frame after it) sits below 4× the median of both sides together once the calm
    /// side no longer holds the majority; a motion that starts is no spike above the side that moves.
    public var busySideFactor: Double
    /// Shots shorter than this many frames are merged into the previous one.
    public var minimumShotFrames: Int

    public init(minimumDifference: Double = 0.3, relativeFactor: Double = 4, neighbourhood: Int = 6,
                minimumShotFrames: Int = 6, busySideFactor: Double = 2) {
        self.minimumDifference = minimumDifference
        self.relativeFactor = relativeFactor
        self.neighbourhood = neighbourhood
        self.busySideFactor = busySideFactor
        self.minimumShotFrames = minimumShotFrames
    }

    /// Frame indices (> 0) where a new shot starts. `differences[i]` compares frame i-1 with frame i.
    public func cuts(differences: [Double]) -> [Int] {
        var cuts: [Int] = []
        for index in differences.indices.dropFirst() where isCut(at: index, differences: differences, after: cuts.last) {
            cuts.append(index)
        }
        return cuts
    }

    /// Whether a new shot starts at `index`, given the cut before it (nil: none yet): `cuts(differences:)` one
    /// index at a time, for a caller that learns the differences as it goes. Settled once the differences
    /// up to `index + neighbourhood` are known: later ones never change the answer.
    public func isCut(at index: Int, differences: [Double], after lastCut: Int?) -> Bool {
        guard index > 0, index < differences.count, differences[index] >= minimumDifference else { return false }
        let before = (max(1, index - neighbourhood)..<index).map { differences[$0] }
        let after = (index + 1..<min(differences.count, index + neighbourhood + 1)).map { differences[$0] }
        let difference = differences[index]
        let aboveBoth = difference >= relativeFactor * Self.median(before + after)
        var aboveEachSide = false
        if !before.isEmpty, !after.isEmpty {
            let sides = (Self.median(before), Self.median(after))
            aboveEachSide = difference >= relativeFactor * min(sides.0, sides.1) && difference >= busySideFactor * max(sides.0, sides.1)
        }
        guard aboveBoth || aboveEachSide else { return false }
        return index - (lastCut ?? 0) >= minimumShotFrames
    }

    /// The upper median (0 for none).
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return values.sorted()[values.count / 2]
    }

    /// Frame ranges of the shots of a clip of `frameCount` frames cut at `cuts`.
    public static func shots(frameCount: Int, cuts: [Int]) -> [Range<Int>] {
        let bounds = [0] + cuts.filter { $0 > 0 && $0 < frameCount }.sorted() + [frameCount]
        return zip(bounds, bounds.dropFirst()).compactMap { $0 < $1 ? $0..<$1 : nil }
    }
}
