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
    /// Shots shorter than this many frames are merged into the previous one.
    public var minimumShotFrames: Int

    public init(minimumDifference: Double = 0.3, relativeFactor: Double = 4, neighbourhood: Int = 6,
                minimumShotFrames: Int = 6) {
        self.minimumDifference = minimumDifference
        self.relativeFactor = relativeFactor
        self.neighbourhood = neighbourhood
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
        let window = max(1, index - neighbourhood)..<min(differences.count, index + neighbourhood + 1)
        var others = window.filter { $0 != index }.map { differences[$0] }.sorted()
        if others.isEmpty { others = [0] }
        guard differences[index] >= relativeFactor * others[others.count / 2] else { return false }
        return index - (lastCut ?? 0) >= minimumShotFrames
    }

    /// Frame ranges of the shots of a clip of `frameCount` frames cut at `cuts`.
    public static func shots(frameCount: Int, cuts: [Int]) -> [Range<Int>] {
        let bounds = [0] + cuts.filter { $0 > 0 && $0 < frameCount }.sorted() + [frameCount]
        return zip(bounds, bounds.dropFirst()).compactMap { $0 < $1 ? $0..<$1 : nil }
    }
}
