import Foundation
import KeepTrackFaces
import KeepTrackFraming
import KeepTrackPeople
import KeepTrackTranscode

/// Runs the face detector (and, where it finds no face and the schedule asks, the people detector) on a
/// background thread while the analysis decodes, always on one OpenMP thread: the wheel's OpenMP workers
/// spin-wait between layers, and two of them on a busy 2-core machine made a detection 4× slower than one
/// (measured: 434 vs 93 ms at 480×270 under load). Up to 32 small pictures wait (about 12 MB at 480×270).
///
/// The analysis adapts its rhythm to what the detector saw, but only to detections at least `lag`
/// submissions old (waiting for them when the detector is that far behind), so the rhythm, and with it
/// the whole plan, is the same on every run whatever the threads' timing.
final class BackgroundDetections: @unchecked Sendable {
    /// What the analysis may know when it submits a picture: the detections up to this many submissions ago.
    /// One: detections are at least a few frames apart (`DetectionSchedule`), so the previous one is nearly
    /// always done when the next is submitted, and waiting for it costs little.
    static let lag = 1

    struct State: Sendable {
        /// The detection found no face at all.
        var foundNothing = false
        /// Its strongest face was within a tenth of its width of the strongest face the time before.
        var steady = false
        /// The people detector ran on this picture (it was asked to and no face was found).
        var ranPeople = false

        var known: DetectionSchedule.Known {
            DetectionSchedule.Known(foundFace: foundFace, ranPeople: ranPeople, foundNobody: foundNothing, smallestFace: smallestFace,
                                    lookedWhole: regionsLost)
        }
        var foundFace = false
        /// Height of the smallest face found, in display pixels.
        var smallestFace: Double?
        /// The faces found (display pixels), and the frame they were found on: where the next detection may look.
        var faces: [FrameRect] = []
        var frameIndex = 0
        /// A detection around the faces lost one and looked at the whole picture too.
        var regionsLost = false
    }

    /// Finds faces in a BGR picture.
    typealias Detect = @Sendable (_ picture: DetectionPicture) throws -> [FaceDetection]
    /// Finds whole people in a BGR picture (run where no face was found).
    typealias DetectPeople = @Sendable (_ picture: DetectionPicture) throws -> [FaceDetection]
    private let detect: Detect
    private let detectPeople: DetectPeople?
    private let queue = DispatchQueue(label: "keeptrack.face-detection")
    private let slots = DispatchSemaphore(value: 32)
    private let condition = NSCondition()
    private var abandoned = false
    private var samples: [DetectionSample] = []
    /// One per finished submission, in submission order (the queue is serial).
    private var states: [State] = []
    private var lastFace: FrameRect?
    private var failure: Error?
    private var seconds = 0.0
    /// Pictures submitted so far (only the analysis thread submits).
    private(set) var submitted = 0

    init(detector: FaceDetector, people: PersonDetector? = nil) {
        var oneThread = detector
        oneThread.threads = 1
        let detector = oneThread
        detect = { picture in
            try picture.bgr.withUnsafeBytes {
                try detector.detect(bgr: UnsafeRawBufferPointer(rebasing: $0[picture.offset...]), width: picture.width,
                                    height: picture.height, rowStride: picture.rowStride)
            }
        }
        if let people {
            detectPeople = { picture in
                try picture.bgr.withUnsafeBytes {
                    try people.detect(bgr: $0, width: picture.width, height: picture.height, rowStride: picture.rowStride)
                }
            }
        } else {
            detectPeople = nil
        }
    }

    /// For tests: any detectors.
    init(detect: @escaping Detect, people: DetectPeople? = nil) {
        self.detect = detect
        detectPeople = people
    }

    /// The analysis failed or starts over: pictures still waiting are not looked at.
    func abandon() { condition.withLock { abandoned = true } }

    /// What detection number `submission` (0-based) saw; waits for it. Before the first: nothing known.
    func state(after submission: Int) -> State {
        guard submission >= 0 else { return State() }
        condition.lock()
        defer { condition.unlock() }
        while states.count <= submission && failure == nil && !abandoned { condition.wait() }
        return submission < states.count ? states[submission] : State()
    }

    /// Looks for faces in `picture` (and for people, if `people` and no face is found); with `regions`, only
    /// there (never for people: the faces were known).
    func submit(frameIndex: Int, picture: DetectionPicture, scale: Double, motion: FrameRect? = nil, people lookForPeople: Bool = true,
                regions: [DetectionRegions.Region]? = nil) {
        slots.wait()
        submitted += 1
        queue.async { [self] in
            defer { slots.signal() }
            let skip = condition.withLock { abandoned || failure != nil }
            var faces: [FaceDetection] = [], people: [FaceDetection] = []
            var error: Error?
            var ranPeople = false, lookedWhole = false
            let started = Date()
            if !skip {
                do {
                    var lost = false
                    if let regions {
                        for region in regions {
                            let found = try detect(picture.region(region))
                            lost = lost || found.isEmpty
                            faces += found.map {
                                var box = $0.box
                                box.x += Double(region.x)
                                box.y += Double(region.y)
                                return FaceDetection(box: box.scaled(by: scale), confidence: $0.confidence)
                            }
                        }
                    }
                    // A region that lost its face (it moved further, or left): the whole picture, as if no
                    // region had been tried, so the plan sees what a full detection sees.
                    if regions == nil || lost {
                        lookedWhole = regions != nil
                        faces = try detect(picture).map {
                            FaceDetection(box: $0.box.scaled(by: scale), confidence: $0.confidence)
                        }
                    }
                    // Nobody's face: look for whole people, when the schedule asked.
                    if faces.isEmpty, lookForPeople, regions == nil, let detectPeople {
                        ranPeople = true
                        people = try detectPeople(picture).map { FaceDetection(box: $0.box.scaled(by: scale), confidence: $0.confidence) }
                    }
                } catch let thrown {
                    error = thrown
                }
            }
            condition.withLock {
                if let error { failure = failure ?? error }
                if !skip && error == nil { samples.append(DetectionSample(frameIndex: frameIndex, faces: faces, people: people, motion: motion)) }
                let strongest = faces.max { $0.box.area * Double($0.confidence) < $1.box.area * Double($1.confidence) }?.box
                var state = State(foundNothing: faces.isEmpty && people.isEmpty, ranPeople: ranPeople, foundFace: !faces.isEmpty,
                                  smallestFace: faces.map(\.box.height).min(), faces: faces.map(\.box), frameIndex: frameIndex,
                                  regionsLost: lookedWhole)
                if let strongest, let lastFace {
                    let moved = ((strongest.midX - lastFace.midX) * (strongest.midX - lastFace.midX)
                        + (strongest.midY - lastFace.midY) * (strongest.midY - lastFace.midY)).squareRoot()
                    state.steady = moved < 0.1 * max(strongest.width, 1)
                }
                lastFace = strongest
                states.append(state)
                seconds += Date().timeIntervalSince(started)
                condition.broadcast()
            }
        }
    }

    /// The finished detections on frames before `frame`, in frame order (the analysis asks once it has learnt
    /// every detection it submitted, so none before `frame` is missing).
    func samples(before frame: Int) -> [DetectionSample] {
        condition.withLock { samples.filter { $0.frameIndex < frame }.sorted { $0.frameIndex < $1.frameIndex } }
    }

    /// Waits for every submitted picture; samples in frame order, the detector's busy time, and how many
    /// detections around faces lost one (and looked at the whole picture).
    func finish() throws -> (samples: [DetectionSample], seconds: Double, regionsLost: Int) {
        queue.sync {}
        return try condition.withLock {
            if let failure { throw failure }
            return (samples.sorted { $0.frameIndex < $1.frameIndex }, seconds, states.filter(\.regionsLost).count)
        }
    }
}
