/// When the analysis runs its detectors: a pure function of frame numbers, picture changes and detections
/// old enough to wait for, so every run of the same clip detects on the same frames and plans the same path.
///
/// Detection is paid for from a budget. Every frame earns `Costs.earnedPerFrame` — a fixed fraction of
/// what encoding that frame costs — and every detection spends its estimated cost (the detector's cost
/// per pixel × the pixels it looks at), so the analysis stays a bounded fraction of the encode whatever
/// the picture size: a small, cheap-to-encode clip gets fewer detections, not a slower reframe. Within the
/// budget, frames are chosen in this order:
/// - a likely cut: at once (it may overdraw the budget by one face detection: a new shot needs its subject);
/// - the first frame;
/// - otherwise no sooner than `minimumInterval` frames after the last detection (a third of that while the
///   latest known detection found nobody, to find a returning person sooner), and while the picture has
///   not changed since then (nothing moved beyond noise), no sooner than `stillInterval`: the detector would
///   find the same faces again. A still stretch saves budget for the moves after it.
/// Whole people (the slower body detector) are looked for on a detection only while the latest known
/// detection found no face, no more often than `peopleInterval`, not on a picture that has not changed
/// since the last detection, and only when the budget holds both costs;
/// their cost is charged up front and refunded when the face detector did find a face on that picture
/// (the body detector then does not run).
public struct DetectionSchedule: Sendable, Equatable {
    /// Estimated costs in one unit (any: the measured defaults use nanoseconds of CPU on the reference machine).
    public struct Costs: Sendable, Equatable {
        public var earnedPerFrame: Double
        public var face: Double
        public var people: Double
        public init(earnedPerFrame: Double, face: Double, people: Double) {
            self.earnedPerFrame = earnedPerFrame
            self.face = face
            self.people = people
        }

        /// Measured on this project's 2-core reference machine (CPU time, FFmpeg 5.1, yuface 2023.5.1,
        /// OpenCV 4.6): libx264 `medium` spends about 1.7 ms per frame plus 62 ns per output pixel on 9:16
        /// crops of 240p–720p (3.7 ms a frame at 136×240, 19.7 ms at 406×720); YuNet (libfacedetection) about
        /// 245 ns per pixel of its picture on one thread; OpenCV's HOG people detector (scale step 1.05)
        /// about 485 ns per pixel of its enlarged picture.
        public static let encodeNanosecondsPerFrame = 1_700_000.0
        public static let encodeNanosecondsPerPixel = 62.0
        public static let faceNanosecondsPerPixel = 245.0
        public static let peopleNanosecondsPerPixel = 485.0

        /// Costs for an output of `outputPixels` per frame, face pictures of `facePixels`, body-detector
        /// pictures of `peoplePixels`, spending `fraction` of a medium-preset encode on detection.
        public static func measured(outputPixels: Int, facePixels: Int, peoplePixels: Int, fraction: Double) -> Costs {
            Costs(earnedPerFrame: fraction * (encodeNanosecondsPerFrame + encodeNanosecondsPerPixel * Double(outputPixels)),
                  face: faceNanosecondsPerPixel * Double(facePixels), people: peopleNanosecondsPerPixel * Double(peoplePixels))
        }
    }

    /// What the analysis knows about one earlier detection (in submission order).
    public struct Known: Sendable, Equatable {
        public var foundFace: Bool
        public var ranPeople: Bool
        /// Neither a face nor a person.
        public var foundNobody: Bool
        public init(foundFace: Bool, ranPeople: Bool, foundNobody: Bool = false) {
            self.foundFace = foundFace
            self.ranPeople = ranPeople
            self.foundNobody = foundNobody && !foundFace
        }
    }

    public enum Decision: Sendable, Equatable {
        case skip
        /// Run the face detector; `people`: and the body detector if it finds no face.
        case detect(people: Bool)
    }

    public var costs: Costs
    public var minimumInterval: Int
    public var stillInterval: Int
    public var peopleInterval: Int
    /// Most credit kept (a long stretch without detections does not buy a burst later).
    public var maximumCredit: Double

    public private(set) var credit: Double
    public private(set) var lastDetected: Int?
    public private(set) var lastPeople: Int?
    /// Detections decided so far, and whether each asked for people (for refunds).
    public private(set) var decided = 0
    private var askedPeople: [Bool] = []
    /// Until a detection is known, nobody has been found.
    private var latestFoundFace = false
    private var latestFoundNobody = false
    private var lastEarned = 0
    /// Detections learnt about so far (`learn` must be called in submission order).
    public private(set) var learnt = 0

    public init(costs: Costs, minimumInterval: Int, stillInterval: Int, peopleInterval: Int) {
        self.costs = costs
        self.minimumInterval = max(1, minimumInterval)
        self.stillInterval = max(self.minimumInterval, stillInterval)
        self.peopleInterval = max(1, peopleInterval)
        maximumCredit = max(2 * (costs.face + costs.people), costs.earnedPerFrame * Double(self.stillInterval) * 2)
        // The first frame can always be looked at, faces and people.
        credit = costs.face + costs.people
    }

    /// Whether frame `frame` (presentation index, increasing) is detected on. `likelyCut`: its picture
    /// differs from the previous frame's like a new shot; `still`: nothing changed since the last detection
    /// (only looked at when `needsStillness(frame:)`). Frames the analysis never sees still earn.
    public mutating func decide(frame: Int, likelyCut: Bool, still: Bool = false) -> Decision {
        earn(frames: frame - lastEarned)
        lastEarned = max(lastEarned, frame)
        let due: Bool
        if let lastDetected {
            due = likelyCut ? credit >= 0 : frame - lastDetected >= (still ? stillInterval : movingInterval) && credit >= costs.face
        } else {
            due = true  // the first frame: the credit starts with one face and one people detection
        }
        guard due else { return .skip }
        credit -= costs.face
        // Not on a picture that has not changed: the body detector would find what it found before.
        let people = !latestFoundFace && !(still && !likelyCut) && credit >= costs.people
            && lastPeople.map { frame - $0 >= peopleInterval } ?? true
        if people {
            credit -= costs.people
            lastPeople = frame
        }
        lastDetected = frame
        askedPeople.append(people)
        decided += 1
        return .detect(people: people)
    }

    /// While nobody is in view, three times as often (budget permitting), to find a returning person sooner.
    var movingInterval: Int { latestFoundNobody ? max(1, minimumInterval / 3) : minimumInterval }

    /// Whether `decide(frame:)` would look at the `still` argument for this frame (it is worth computing).
    public func needsStillness(frame: Int) -> Bool {
        guard let lastDetected else { return false }
        return frame - lastDetected >= movingInterval && credit + costs.earnedPerFrame * Double(frame - lastEarned) >= costs.face
    }

    /// What detection number `learnt` (0-based, in submission order) found.
    public mutating func learn(_ known: Known) {
        guard learnt < askedPeople.count else { return }
        if askedPeople[learnt] && !known.ranPeople { credit = min(maximumCredit, credit + costs.people) }
        latestFoundFace = known.foundFace
        latestFoundNobody = known.foundNobody
        learnt += 1
    }

    private mutating func earn(frames: Int) {
        guard frames > 0 else { return }
        credit = min(maximumCredit, credit + costs.earnedPerFrame * Double(frames))
    }
}
