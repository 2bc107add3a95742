/// Every frame's presentation time, in presentation order, taken from the sample table. The analysis
/// decodes only the frames other frames reference; this gives the frames it skips their place and time.
public struct PresentationTimeline: Equatable, Sendable {
    /// Strictly increasing presentation times (media time scale).
    public let times: [Int64]

    /// nil when two frames share a presentation time (frames could not be told apart by time).
    public init?(presentationTimes: [Int64]) {
        let sorted = presentationTimes.sorted()
        for (earlier, later) in zip(sorted, sorted.dropFirst()) where earlier >= later { return nil }
        times = sorted
    }

    public var count: Int { times.count }

    /// The largest distance, in frames of presentation order, between two successive frames that are shown
    /// later than every frame decoded before them (from the start, for the first): with B-frames, the I- and
    /// P-frames, which a decoder skipping B-frames still outputs. 1 without reordering. `decodingOrder`: every
    /// frame's presentation time, in decoding order (this timeline's times, unsorted).
    public func anchorSpacing(decodingOrder: [Int64]) -> Int {
        var largest = 0, previous = -1
        var latest = Int64.min
        for time in decodingOrder where time > latest {
            latest = time
            guard let position = index(of: time) else { continue }
            largest = max(largest, position - previous)
            previous = position
        }
        return max(largest, times.count - 1 - previous)
    }

    /// The presentation index of the frame shown at `time`, if a frame is.
    public func index(of time: Int64) -> Int? {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < time { low = middle + 1 } else { high = middle }
        }
        return low < times.count && times[low] == time ? low : nil
    }
}

/// A cut found between two analysed frames with frames between them that the analysis skipped. The plan
/// starts the new shot at `firstAfter`; the encoding pass, which sees every frame, moves the cut back to the
/// first skipped frame that looks like the new shot.
public struct UncertainCut: Equatable, Sendable {
    /// Last analysed frame of the old shot.
    public var lastBefore: Int
    /// First analysed frame of the new shot, where the plan puts the cut.
    public var firstAfter: Int
    /// Normalised luma histograms of those two frames.
    public var before: [Double]
    public var after: [Double]

    public init(lastBefore: Int, firstAfter: Int, before: [Double], after: [Double]) {
        self.lastBefore = lastBefore
        self.firstAfter = firstAfter
        self.before = before
        self.after = after
    }

    /// The skipped frames between the two analysed ones.
    public var skipped: Range<Int> { (lastBefore + 1)..<firstAfter }

    /// Whether a frame with this histogram belongs to the new shot: nearer to its first analysed frame.
    public func belongsToNewShot(_ histogram: [Double]) -> Bool {
        Self.distance(histogram, after) < Self.distance(histogram, before)
    }

    /// Half the L1 distance of two normalised histograms: 0 identical, 1 disjoint.
    public static func distance(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) } / 2
    }
}

extension CropPath {
    /// Starts the shot that begins at `planned` at the earlier frame `actual` instead: those frames take the
    /// new shot's first crop (the camera holds there a moment), and the old shot ends where the new begins.
    public mutating func moveCut(from planned: Int, to actual: Int) {
        guard actual < planned, actual >= 0, planned < offsets.count,
              let shot = shots.firstIndex(where: { $0.lowerBound == planned }), shot > 0,
              actual > shots[shot - 1].lowerBound else { return }
        for frame in actual..<planned { offsets[frame] = offsets[planned] }
        shots[shot - 1] = shots[shot - 1].lowerBound..<actual
        shots[shot] = actual..<shots[shot].upperBound
    }
}
