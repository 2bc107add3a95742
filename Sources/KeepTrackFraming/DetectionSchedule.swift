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
///
/// With a `Reduction`, a detection may look at less than the whole picture while the latest known detection
/// found faces: at a smaller picture (`Decision.detectReduced`, costing `Costs.reducedFace`) when those faces
/// are all large enough to be found there too, or only at the regions around them (`Decision.detectRegions`,
/// at the cost the caller gives: the faces are where they were, or where their motion takes them), whichever
/// is cheaper; the full picture again at a likely cut, once nobody (or only a small face) was found, and at
/// least every `Reduction.refreshInterval` frames (a newcomer elsewhere is not missed for long). These
/// cheaper detections keep the rhythm full ones would have (the same count). Reduced ones put what they
/// save in a reserve that only urgent full detections draw on — at a likely cut, and while nobody is
/// found: a cut or a returning person is looked at sooner. The refresh waits for credit like any detection,
/// so the saving is CPU not spent rather than more detections. What regions save is only CPU not spent:
/// the rhythm, and the search for a person who left, stay what they are without regions (a reserve fed by
/// them moved the search for a returning person off its beat and found them later, scene leave-return). A
/// region that lost its face is followed by a whole look at the same picture (`Known.lookedWhole`), and
/// the region's cost is then charged as well.
public struct DetectionSchedule: Sendable, Equatable {
    /// Estimated costs in one unit (any: the measured defaults use nanoseconds of CPU on the reference machine).
    public struct Costs: Sendable, Equatable {
        public var earnedPerFrame: Double
        public var face: Double
        public var people: Double
        /// A face detection on the reduced picture (`Reduction`); the full cost when there is none.
        public var reducedFace: Double
        public init(earnedPerFrame: Double, face: Double, people: Double, reducedFace: Double? = nil) {
            self.earnedPerFrame = earnedPerFrame
            self.face = face
            self.people = people
            self.reducedFace = reducedFace ?? face
        }

        /// Measured on this project's 2-core reference machine (CPU time, FFmpeg 5.1, yuface 2023.5.1,
        /// OpenCV 4.6): libx264 `medium` spends about 1.7 ms per frame plus 62 ns per output pixel on 9:16
        /// crops of 240p–720p (3.7 ms a frame at 136×240, 19.7 ms at 406×720); YuNet (libfacedetection) about
        /// 245 ns per pixel of its picture on one thread; OpenCV's HOG people detector (scale step 1.05)
        /// about 485 ns per pixel of its enlarged picture. (At 1080p the encode estimate is about 3× high:
        /// 13.8 ms a frame measured; a lower one starved the re-detection of a returning face, BENCHMARKS.md.)
        public static let encodeNanosecondsPerFrame = 1_700_000.0
        public static let encodeNanosecondsPerPixel = 62.0
        public static let faceNanosecondsPerPixel = 245.0
        public static let peopleNanosecondsPerPixel = 485.0

        /// Costs for an output of `outputPixels` per frame, face pictures of `facePixels` (reduced ones of
        /// `reducedFacePixels`), body-detector pictures of `peoplePixels`, spending `fraction` of a
        /// medium-preset encode on detection.
        public static func measured(outputPixels: Int, facePixels: Int, peoplePixels: Int, fraction: Double,
                                    reducedFacePixels: Int? = nil) -> Costs {
            Costs(earnedPerFrame: fraction * (encodeNanosecondsPerFrame + encodeNanosecondsPerPixel * Double(outputPixels)),
                  face: faceNanosecondsPerPixel * Double(facePixels), people: peopleNanosecondsPerPixel * Double(peoplePixels),
                  reducedFace: reducedFacePixels.map { faceNanosecondsPerPixel * Double($0) })
        }
    }

    /// When a detection may look at less than the whole picture (the reduced one, or regions around faces).
    public struct Reduction: Sendable, Equatable {
        /// The smallest face (height, in the unit of `Known.smallestFace`) the reduced picture still finds
        /// reliably; infinity when there is no reduced picture (only regions).
        public var minimumFace: Double
        /// A full-picture detection at least this many frames after the last one.
        public var refreshInterval: Int
        public init(minimumFace: Double, refreshInterval: Int) {
            self.minimumFace = minimumFace
            self.refreshInterval = max(1, refreshInterval)
        }
    }

    /// What the analysis knows about one earlier detection (in submission order).
    public struct Known: Sendable, Equatable {
        public var foundFace: Bool
        public var ranPeople: Bool
        /// Neither a face nor a person.
        public var foundNobody: Bool
        /// The height of the smallest face found (any unit: the one of `Reduction.minimumFace`); nil: none.
        public var smallestFace: Double?
        /// A detection around the faces lost one and looked at the whole picture as well.
        public var lookedWhole: Bool
        public init(foundFace: Bool, ranPeople: Bool, foundNobody: Bool = false, smallestFace: Double? = nil, lookedWhole: Bool = false) {
            self.foundFace = foundFace
            self.ranPeople = ranPeople
            self.foundNobody = foundNobody && !foundFace
            self.smallestFace = foundFace ? smallestFace : nil
            self.lookedWhole = lookedWhole
        }
    }

    public enum Decision: Sendable, Equatable {
        case skip
        /// Run the face detector; `people`: and the body detector if it finds no face.
        case detect(people: Bool)
        /// Run the face detector on the reduced picture (never the body detector: faces are known).
        case detectReduced
        /// Run the face detector only on the regions around the faces known (never the body detector).
        case detectRegions
    }

    public var costs: Costs
    public var minimumInterval: Int
    public var stillInterval: Int
    public var peopleInterval: Int
    /// Most credit kept (a long stretch without detections does not buy a burst later).
    public var maximumCredit: Double
    /// When detections may look at less than the whole picture; nil: never.
    public var reduction: Reduction?

    public private(set) var credit: Double
    /// What cheaper detections saved against the full cost they were budgeted at: spent by full detections
    /// (cuts, a returning person, refreshes) where the credit falls short. At most `maximumCredit`.
    public private(set) var reserve = 0.0
    public private(set) var lastDetected: Int?
    public private(set) var lastPeople: Int?
    /// The last detection on the full picture.
    public private(set) var lastFull: Int?
    /// Detections decided so far, and whether each asked for people (for refunds).
    public private(set) var decided = 0
    private var askedPeople: [Bool] = []
    /// What each detection's regions cost (0: it looked at a whole picture), charged again when they lost a face.
    private var regionCosts: [Double] = []
    /// Until a detection is known, nobody has been found.
    private var latestFoundFace = false
    private var latestFoundNobody = false
    private var latestSmallestFace: Double?
    private var lastEarned = 0
    /// Detections learnt about so far (`learn` must be called in submission order).
    public private(set) var learnt = 0

    public init(costs: Costs, minimumInterval: Int, stillInterval: Int, peopleInterval: Int, reduction: Reduction? = nil) {
        self.costs = costs
        self.reduction = reduction
        self.minimumInterval = max(1, minimumInterval)
        self.stillInterval = max(self.minimumInterval, stillInterval)
        self.peopleInterval = max(1, peopleInterval)
        maximumCredit = max(2 * (costs.face + costs.people), costs.earnedPerFrame * Double(self.stillInterval) * 2)
        // The first frame can always be looked at, faces and people.
        credit = costs.face + costs.people
    }

    /// Whether frame `frame` (presentation index, increasing) is detected on. `likelyCut`: its picture
    /// differs from the previous frame's like a new shot; `still`: nothing changed since the last detection
    /// (only looked at when `needsStillness(frame:)`). `regionsCost`: what a detection only around the faces
    /// known would cost on this frame (nil: none possible). Frames the analysis never sees still earn.
    public mutating func decide(frame: Int, likelyCut: Bool, still: Bool = false, regionsCost: Double? = nil) -> Decision {
        earn(frames: frame - lastEarned)
        lastEarned = max(lastEarned, frame)
        let cheaper = likelyCut ? nil : cheaperLook(frame: frame, regionsCost: regionsCost)
        let urgent = likelyCut || latestFoundNobody
        // A cheaper detection keeps the rhythm the budget gives full ones; what it saves goes to `reserve`,
        // which only urgent detections spend.
        let available = urgent && cheaper == nil ? credit + reserve : credit
        let due: Bool
        if let lastDetected {
            due = likelyCut ? available >= 0 : frame - lastDetected >= (still ? stillInterval : movingInterval) && available >= costs.face
        } else {
            due = true  // the first frame: the credit starts with one face and one people detection
        }
        guard due else { return .skip }
        lastDetected = frame
        decided += 1
        if let cheaper {
            credit -= costs.face
            if cheaper.decision == .detectReduced { reserve = min(maximumCredit, reserve + costs.face - cheaper.cost) }
            askedPeople.append(false)
            regionCosts.append(cheaper.decision == .detectRegions ? cheaper.cost : 0)
            return cheaper.decision
        }
        spend(costs.face, fromReserve: urgent)
        lastFull = frame
        // Not on a picture that has not changed: the body detector would find what it found before.
        let people = !latestFoundFace && !(still && !likelyCut) && credit + (urgent ? reserve : 0) >= costs.people
            && lastPeople.map { frame - $0 >= peopleInterval } ?? true
        if people {
            spend(costs.people, fromReserve: urgent)
            lastPeople = frame
        }
        askedPeople.append(people)
        regionCosts.append(0)
        return .detect(people: people)
    }

    /// Takes `cost` from the credit, and what the credit lacks from the reserve when `fromReserve`.
    private mutating func spend(_ cost: Double, fromReserve: Bool) {
        credit -= cost
        guard fromReserve, credit < 0, reserve > 0 else { return }
        let taken = min(reserve, -credit)
        reserve -= taken
        credit += taken
    }

    /// Whether a detection on `frame` that is not at a cut may look at less than the whole picture: the
    /// latest known detection found faces and a full one is not yet due.
    public func mayLookCheaper(frame: Int) -> Bool {
        guard let reduction, latestFoundFace, let lastFull else { return false }
        return frame - lastFull < reduction.refreshInterval
    }

    /// The cheapest way to look at `frame` short of the whole picture, when one may be used and costs less:
    /// the reduced picture (every face known is large enough for it) or the regions around the faces.
    func cheaperLook(frame: Int, regionsCost: Double?) -> (decision: Decision, cost: Double)? {
        guard mayLookCheaper(frame: frame), let reduction else { return nil }
        var best: (decision: Decision, cost: Double)?
        if let smallest = latestSmallestFace, smallest >= reduction.minimumFace {
            best = (.detectReduced, costs.reducedFace)
        }
        if let regionsCost, regionsCost < (best?.cost ?? costs.face) {
            best = (.detectRegions, max(0, regionsCost))
        }
        return best
    }

    /// While nobody is in view, three times as often (budget permitting), to find a returning person sooner.
    var movingInterval: Int { latestFoundNobody ? max(1, minimumInterval / 3) : minimumInterval }

    /// Whether `decide(frame:)` would look at the `still` argument for this frame (it is worth computing).
    public func needsStillness(frame: Int) -> Bool {
        guard let lastDetected else { return false }
        let available = credit + (mayLookCheaper(frame: frame) || !latestFoundNobody ? 0 : reserve) + costs.earnedPerFrame * Double(frame - lastEarned)
        return frame - lastDetected >= movingInterval && available >= costs.face
    }

    /// What detection number `learnt` (0-based, in submission order) found.
    public mutating func learn(_ known: Known) {
        guard learnt < askedPeople.count else { return }
        if askedPeople[learnt] && !known.ranPeople { credit = min(maximumCredit, credit + costs.people) }
        // A lost region was followed by the whole look the rhythm paid for: the region itself is extra.
        if known.lookedWhole { credit -= regionCosts[learnt] }
        latestFoundFace = known.foundFace
        latestFoundNobody = known.foundNobody
        latestSmallestFace = known.smallestFace
        learnt += 1
    }

    private mutating func earn(frames: Int) {
        guard frames > 0 else { return }
        credit = min(maximumCredit, credit + costs.earnedPerFrame * Double(frames))
    }
}
