/// Which of a video track's frames a player shows, and when, from the track's edit list. A clip cut with
/// `ffmpeg -ss X -c copy` starts at the keyframe before X and its edit list starts the presentation at X: the
/// frames before X are decoded (later frames need them) but never shown; an edit list may also end before the
/// last frame, and start with an empty edit (a delay). The plan is made for the shown frames only; the hidden
/// ones are still encoded (the output keeps the edit list), cropped like the shown frame nearest them.
///
/// Times are the movie's: where a player's clock is when it shows the frame (the first shown frame at 0, or at
/// the delay of an empty first edit). The frame on screen when an edit starts is shown from the edit's start
/// even when it began before it (ISO/IEC 14496-12 8.6.6; ffmpeg's reader instead drops such a frame, so its
/// count can be one lower when a cut falls inside a frame's duration).
public struct ShownFrames: Equatable, Sendable {
    /// One presented stretch of the media: from `mediaStart` (media time scale) for `mediaDuration` (nil: to the
    /// end of the media), shown from `movieStart` seconds on.
    public struct Edit: Equatable, Sendable {
        public var mediaStart: Int64
        public var mediaDuration: Int64?
        public var movieStart: Double
        public init(mediaStart: Int64, mediaDuration: Int64?, movieStart: Double) {
            self.mediaStart = mediaStart
            self.mediaDuration = mediaDuration
            self.movieStart = movieStart
        }
    }

    /// Every frame's presentation time in the media, in presentation order (ascending).
    public let presentationTimes: [Int64]
    /// The frames shown (indices into `presentationTimes`), in order.
    public let shown: [Int]
    /// The movie time (seconds) of each shown frame, increasing.
    public let times: [Double]
    /// For every frame, its position in `shown`; for a hidden one, minus one minus the position of the shown
    /// frame whose crop it takes (the last shown before it; the first shown when none is before it).
    private let positions: [Int]

    /// `presentationTimes`: every frame's presentation time in media units (any order); `edits`: the presented
    /// stretches in movie order, nil when the track has no edit list (every frame shown at its media time).
    /// Nil when the edits go back in the media or overlap (a frame shown twice): not a plan of one pass.
    public init?(presentationTimes: [Int64], timescale: Int64, edits: [Edit]?) {
        let sorted = presentationTimes.sorted()
        let scale = Double(max(timescale, 1))
        var shown: [Int] = [], times: [Double] = []
        if let edits {
            var mediaEnd = Int64.min
            for edit in edits {
                let end = edit.mediaDuration.map { edit.mediaStart + $0 } ?? Int64.max
                guard edit.mediaStart >= mediaEnd, end > edit.mediaStart || edit.mediaDuration == 0 else { return nil }
                mediaEnd = end
                guard end > edit.mediaStart else { continue }
                // The first frame starting at or after the edit's start; the one before it is on screen at the
                // start when it begins before it.
                var first = Self.firstIndex(in: sorted, notBefore: edit.mediaStart)
                if first > 0, first == sorted.count || sorted[first] > edit.mediaStart { first -= 1 }
                var index = first
                while index < sorted.count, sorted[index] < end {
                    if shown.last.map({ index > $0 }) ?? true {
                        shown.append(index)
                        times.append(edit.movieStart + Double(max(0, sorted[index] - edit.mediaStart)) / scale)
                    }
                    index += 1
                }
            }
        } else {
            shown = Array(sorted.indices)
            times = sorted.map { Double($0) / scale }
        }
        self.presentationTimes = sorted
        self.shown = shown
        self.times = times
        var positions = [Int](repeating: -1, count: sorted.count)
        var next = 0
        for index in sorted.indices {
            if next < shown.count, shown[next] == index {
                positions[index] = next
                next += 1
            } else {
                positions[index] = -1 - max(0, next - 1)
            }
        }
        self.positions = positions
    }

    /// Every frame shown at its media time (no edit list).
    public init(presentationTimes: [Int64], timescale: Int64) {
        self = ShownFrames(presentationTimes: presentationTimes, timescale: timescale, edits: nil)!
    }

    public var frameCount: Int { presentationTimes.count }
    public var hiddenCount: Int { presentationTimes.count - shown.count }

    /// The position among the shown frames of frame `index` (presentation order), nil when it is hidden or
    /// not a frame of the track.
    public func position(ofFrame index: Int) -> Int? {
        guard positions.indices.contains(index), positions[index] >= 0 else { return nil }
        return positions[index]
    }

    /// The shown frame (its position) whose crop frame `index` takes: itself when shown; for a hidden frame the
    /// last shown frame before it, or the first when none is before it; past the track's frames, the last.
    public func standIn(forFrame index: Int) -> Int {
        guard positions.indices.contains(index) else { return max(0, shown.count - 1) }
        let value = positions[index]
        return value >= 0 ? value : -1 - value
    }

    private static func firstIndex(in sorted: [Int64], notBefore time: Int64) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < time { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
