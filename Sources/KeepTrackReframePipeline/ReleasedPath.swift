import Foundation
import KeepTrackFraming
import KeepTrackTranscode

/// The camera path as far as it is settled, handed from the analysis to an encoding pass that runs beside it.
/// The analysis releases the path of every complete shot as soon as it has passed the cut that ends it
/// (`Reframer.ShotRelease`), then the whole path; the producer waits for the frames it needs.
final class ReleasedPath: @unchecked Sendable {
    private let condition = NSCondition()
    private var path: CropPath?
    private var uncertainCuts: [UncertainCut] = []
    private var whole = false
    private var cancelled = false

    /// A path for all frames at once (an encoding pass after the analysis).
    convenience init(whole path: CropPath, uncertainCuts: [UncertainCut]) {
        self.init()
        release(path, uncertainCuts: uncertainCuts, whole: true)
    }

    init() {}

    /// `path` covers its first `path.offsets.count` frames (all of them when `whole`); it must agree with what
    /// was released before on the frames that covered.
    func release(_ path: CropPath, uncertainCuts: [UncertainCut], whole: Bool) {
        condition.withLock {
            self.path = path
            self.uncertainCuts = uncertainCuts
            self.whole = whole
            condition.broadcast()
        }
    }

    /// The latest path, once it covers frame `index` (or is the whole path), and the cuts the encoding pass is
    /// to settle; nil when cancelled.
    func waitFor(frame index: Int) -> (path: CropPath, uncertainCuts: [UncertainCut])? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled, !whole, (path?.offsets.count ?? 0) <= index { condition.wait() }
        guard !cancelled, let path else { return nil }
        return (path, uncertainCuts)
    }

    /// No more path will come: a producer waiting stops.
    func cancel() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
        }
    }
}
