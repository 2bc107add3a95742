/// How one shot is shown in the vertical output.
public enum ShotLayout: String, Sendable, CaseIterable {
    /// A crop of the output's aspect following the subject (or a group that fits in it).
    case follow
    /// The whole picture scaled into the output, over a blurred, darkened copy of itself.
    case fit
    /// Two people stacked: each half of the output a window following one of them (`SplitGeometry`).
    case split
}

/// What `--layout` asks for: one layout for every shot, or a choice per shot.
public enum LayoutMode: String, Sendable, CaseIterable {
    case follow
    case fit
    /// Two people stacked in every shot where at least two people matter (the two most important); follow elsewhere.
    case split
    /// Per shot: follow when one person dominates or the people who matter share one crop; split when exactly
    /// two people dominate and stand apart (`SubjectChoice.Settings.splitShare`, `splitApart`); fit otherwise.
    case auto
}

/// Who matters in a shot, who the camera follows at each analysed frame, and the layout of the shot.
///
/// Importance of a face at one analysed frame is its detector confidence × its size (the square root of its
/// area over the frame height) × its centrality (1 at the frame's centre, 0.5 at a corner); a person's
/// importance in a shot is the sum over the frames they are seen in divided by the shot's analysed frames,
/// so persistence counts as much as size.
///
/// The layout rests only on evidence that persists, so that one detection more or less cannot change it: a
/// person is a face track together with the tracks that continue it (the same face lost and found again); who
/// matters is judged by how prominent they typically are (their median sighting's importance, against the
/// most prominent person's) and by being seen on a minimum share of the shot's analysed frames and on at
/// least `minimumSightings` of them — not by a sum one detection can tip; people who matter but are never seen
/// together need no shared layout (the camera follows one at a time); and a group fits one crop even if one
/// of the frames where they are seen together does not fit. The subject starts as the most important of the people seen first
/// and changes only when another person has been at least `hysteresis` times as important over the surrounding
/// `windowSeconds` (look-ahead: the whole clip is known) and the current subject has been held for
/// `minimumHoldSeconds`, or when the current subject's track has ended; two people of similar weight never
/// take turns.
public struct SubjectChoice: Sendable {
    public struct Settings: Sendable {
        /// A challenger must be this many times as important as the subject (over the window) to take over.
        public var hysteresis = 1.5
        /// A subject is kept at least this long (seconds) before another may take over.
        public var minimumHoldSeconds = 2.0
        /// Importance over time is measured over this many seconds on each side of an analysed frame.
        public var windowSeconds = 1.5
        /// People whose typical sighting is at least this fraction as important as the most prominent person's
        /// (among those seen often enough) matter...
        public var matterFraction = 0.35
        /// ...when they are seen on at least this fraction of the shot's analysed frames...
        public var minimumPresence = 0.3
        /// ...and on at least this many of them (all of them in a shot analysed fewer times): one sighting is
        /// never enough.
        public var minimumSightings = 2
        /// Around each face of a group, this many face widths must fit in the crop too (head and shoulders).
        public var groupMarginInFaceWidths = 0.6
        /// The people who matter share one crop when their group fits on at least this fraction of the
        /// analysed frames where two or more of them are seen.
        public var shareFraction = 0.9
        /// auto splits a shot only when its two people who matter hold at least this fraction of the importance
        /// of everyone seen in it (the others are background, not an audience)...
        public var splitShare = 0.75
        /// ...are each seen on at least this fraction of its analysed frames...
        public var splitPresence = 0.5
        /// ...and their median faces are at least this many crop lengths apart along the axis (two windows of
        /// the crop's width would overlap by less than half), so each half shows one person.
        public var splitApart = 1.0
        /// auto follows in a shot shorter than this (seconds): a split or fit that lasts a moment flashes between
        /// two followed shots, and such a shot has two or three detections to decide on (stage_cuts_audience's
        /// 0.66 s wide shot, where one face less turned split into follow).
        public var minimumLayoutShotSeconds = 1.0

        public init() {}
    }

    /// One person (a face track) of a shot.
    public struct Person: Equatable, Sendable {
        public var track: Int
        public var importance: Double
        /// Fraction of the shot's analysed frames the person is seen in.
        public var presence: Double
        /// Analysed frames the person is seen in.
        public var sightings: Int = 0
        /// The median importance of one of the person's sightings (`score`): what one detection more or less
        /// barely moves. Who matters is decided on it and on `presence`.
        public var typicalScore: Double = 0
    }

    /// What was decided for one shot.
    public struct Shot: Equatable, Sendable {
        public var frames: Range<Int>
        /// Everyone seen in the shot, most important first (a person's `track` is the first of the tracks that
        /// continue one another).
        public var people: [Person]
        /// The people who matter (their `Person.track`, most important first).
        public var mattering: [Int]
        /// Whether the people who matter fit in one crop (then the crop follows the group).
        public var groupFits: Bool
        /// The subject's track at each analysed frame of the shot where one was chosen (frame order).
        public var subjects: [Subject]
        public var layout: ShotLayout
        /// For a split shot: the two people shown, upper half first (the one further left, or up).
        public var pair: [Int] = []

        /// Times the subject changed to a different person (not a new track of the same face).
        public var switches: Int

        public static func == (lhs: Shot, rhs: Shot) -> Bool {
            lhs.frames == rhs.frames && lhs.people == rhs.people && lhs.mattering == rhs.mattering && lhs.groupFits == rhs.groupFits
                && lhs.subjects.map(\.frameIndex) == rhs.subjects.map(\.frameIndex) && lhs.subjects.map(\.track) == rhs.subjects.map(\.track)
                && lhs.layout == rhs.layout && lhs.switches == rhs.switches && lhs.pair == rhs.pair
        }
    }

    public var sourceWidth: Int
    public var sourceHeight: Int
    /// The crop's length along its axis, and the axis.
    public var cropLength: Double
    public var axis: CropAxis
    public var settings: Settings

    public init(sourceWidth: Int, sourceHeight: Int, cropLength: Double, axis: CropAxis, settings: Settings = Settings()) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.cropLength = cropLength
        self.axis = axis
        self.settings = settings
    }

    /// Seconds from the shot's first frame to the frame after its last (one frame's length when it is the clip's end).
    func duration(of shot: Range<Int>, frameTimes: [Double]) -> Double {
        guard !shot.isEmpty, shot.lowerBound >= 0, shot.upperBound <= frameTimes.count else { return .infinity }
        let start = frameTimes[shot.lowerBound]
        if shot.upperBound < frameTimes.count { return frameTimes[shot.upperBound] - start }
        let frame = shot.count > 1 ? (frameTimes[shot.upperBound - 1] - start) / Double(shot.count - 1) : 0
        return frameTimes[shot.upperBound - 1] - start + frame
    }

    /// A face's importance at one analysed frame.
    public func score(_ face: FaceDetection) -> Double {
        let width = Double(max(sourceWidth, 1)), height = Double(max(sourceHeight, 1))
        let dx = (face.box.midX - width / 2) / (width / 2), dy = (face.box.midY - height / 2) / (height / 2)
        let centrality = 1 - 0.5 * min(1, (dx * dx + dy * dy).squareRoot() / 2.0.squareRoot())
        return Double(max(0, min(face.confidence, 100))) / 100 * face.box.area.squareRoot() / height * centrality
    }

    /// Decides one shot: `samples` are the shot's analysed frames, `tracks` the face tracks starting in it.
    public func decide(shot: Range<Int>, samples: [DetectionSample], tracks: [FaceTrack], frameTimes: [Double],
                       mode: LayoutMode) -> Shot {
        let inShot = samples.filter { shot.contains($0.frameIndex) }.sorted { $0.frameIndex < $1.frameIndex }
        let sampleCount = Double(max(inShot.count, 1))
        let own = tracks.filter { shot.contains($0.firstFrame) }
        let persons = Self.persons(of: own, choice: self)
        let people = persons.map { person -> Person in
            let scores = person.points.map { score($0.detection) }.sorted()
            let middle = scores.count / 2
            return Person(track: person.id, importance: scores.reduce(0, +) / sampleCount,
                          presence: Double(person.points.count) / sampleCount, sightings: person.points.count,
                          typicalScore: scores.count % 2 == 1 ? scores[middle] : (scores[middle - 1] + scores[middle]) / 2)
        }.sorted { ($0.importance, -$0.track) > ($1.importance, -$1.track) }
        let sightingsNeeded = min(settings.minimumSightings, inShot.count)
        let present = people.filter { $0.presence >= settings.minimumPresence && $0.sightings >= sightingsNeeded }
        let top = present.map(\.typicalScore).max() ?? 0
        let mattering = present.filter { $0.typicalScore >= settings.matterFraction * top }.map(\.track)
        let byID = Dictionary(persons.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let group = mattering.compactMap { byID[$0] }
        let together = mattering.count > 1 && seenTogether(group, samples: inShot)
        let groupFits = together && fits(group, samples: inShot)
        let pair = splitPair(mattering: mattering, people: people, tracks: byID)
        let layout: ShotLayout
        switch mode {
        case .follow: layout = .follow
        case .fit: layout = .fit
        case .split: layout = together ? .split : .follow
        case .auto:
            if !together || groupFits || duration(of: shot, frameTimes: frameTimes) < settings.minimumLayoutShotSeconds {
                layout = .follow
            } else if pair.apart { layout = .split } else { layout = .fit }
        }
        // Every track of a person weighs what the person does when the first subject is picked.
        var importance: [Int: Double] = [:]
        for person in people { for track in persons.first(where: { $0.id == person.track })?.members ?? [] { importance[track] = person.importance } }
        let (subjects, switches) = timeline(samples: inShot, tracks: own, frameTimes: frameTimes, importance: importance)
        return Shot(frames: shot, people: people, mattering: mattering, groupFits: groupFits, subjects: subjects,
                    layout: layout, pair: layout == .split ? pair.tracks : [], switches: switches)
    }

    /// One person of a shot: the points of face tracks that continue one another (each starting after the
    /// previous one ended, where it ended — `isDifferentPerson` false — at a similar size), under the first
    /// track's id.
    public struct PersonTrack: Sendable {
        public var track: FaceTrack
        /// The ids of the tracks it is made of, in time order.
        public var members: [Int]
        public var id: Int { track.id }
        public var points: [FaceTrack.Point] { track.points }
    }

    /// The people of `tracks` (one shot's): tracks that continue one another joined, in order of first sighting.
    public static func persons(of tracks: [FaceTrack], choice: SubjectChoice) -> [PersonTrack] {
        var persons: [PersonTrack] = []
        for track in tracks.sorted(by: { ($0.firstFrame, $0.id) < ($1.firstFrame, $1.id) }) {
            let continued = persons.indices.filter { index in
                let before = persons[index].track
                guard let last = before.points.last?.detection.box.width, let next = track.points.first?.detection.box.width,
                      next > last / 2, next < last * 2 else { return false }  // a face of another size: someone else
                return before.lastFrame < track.firstFrame && !choice.isDifferentPerson(from: before, to: track)
            }.max { persons[$0].track.lastFrame < persons[$1].track.lastFrame }
            if let continued {
                persons[continued].track.points += track.points
                persons[continued].members.append(track.id)
            } else {
                persons.append(PersonTrack(track: track, members: [track.id]))
            }
        }
        return persons
    }

    /// Whether at least two of `group` are seen on one analysed frame, on two frames at least (one, in a shot
    /// analysed once): people who are never on screen together need no layout showing them together.
    func seenTogether(_ group: [PersonTrack], samples: [DetectionSample]) -> Bool {
        let frames = samples.filter { sample in group.filter { $0.points.contains { $0.frameIndex == sample.frameIndex } }.count > 1 }.count
        return frames >= min(2, samples.count)
    }

    /// The two most important people who matter, upper half first (further left, or up), and whether auto may
    /// split for them: exactly two matter, they hold `splitShare` of everyone's importance, each is seen on
    /// `splitPresence` of the frames and their median faces are `splitApart` crop lengths apart.
    func splitPair(mattering: [Int], people: [Person], tracks: [Int: PersonTrack]) -> (tracks: [Int], apart: Bool) {
        guard mattering.count >= 2, let a = tracks[mattering[0]], let b = tracks[mattering[1]] else { return ([], false) }
        func median(_ track: PersonTrack) -> Double {
            let values = track.points.map { axis == .horizontal ? $0.detection.box.midX : $0.detection.box.midY }.sorted()
            return values[values.count / 2]
        }
        let (first, second) = median(a) <= median(b) ? (a, b) : (b, a)
        let chosen = people.filter { $0.track == a.id || $0.track == b.id }
        let share = chosen.reduce(0) { $0 + $1.importance } / max(people.reduce(0) { $0 + $1.importance }, 1e-12)
        let apart = mattering.count == 2 && share >= settings.splitShare
            && chosen.allSatisfy { $0.presence >= settings.splitPresence }
            && abs(median(second) - median(first)) >= settings.splitApart * cropLength
        return ([first.id, second.id], apart)
    }

    /// Whether the people of `group` fit in one crop (with room around each face) on `shareFraction` of the
    /// frames where two or more are seen, one such frame not counted against them when there are three or more
    /// (one stray detection).
    func fits(_ group: [PersonTrack], samples: [DetectionSample]) -> Bool {
        var together = 0, fitting = 0
        for sample in samples {
            let boxes = group.compactMap { track in track.points.first { $0.frameIndex == sample.frameIndex }?.detection.box }
            guard boxes.count > 1 else { continue }
            together += 1
            if span(of: boxes) <= cropLength { fitting += 1 }
        }
        let forgiven = together >= 3 ? min(fitting + 1, together) : fitting
        return together > 0 && Double(forgiven) >= settings.shareFraction * Double(together)
    }

    /// The length along the axis that `boxes` need, with the group margin around each face.
    func span(of boxes: [FrameRect]) -> Double {
        let spans = boxes.map { box -> (Double, Double) in
            let span = box.span(along: axis)
            let margin = settings.groupMarginInFaceWidths * span.length
            return (span.start - margin, span.start + span.length + margin)
        }
        return (spans.map(\.1).max() ?? 0) - (spans.map(\.0).min() ?? 0)
    }

    /// The smallest box holding `boxes` (a group followed as one).
    public static func union(_ boxes: [FrameRect]) -> FrameRect? {
        guard let first = boxes.first else { return nil }
        var x0 = first.x, y0 = first.y, x1 = first.maxX, y1 = first.maxY
        for box in boxes.dropFirst() {
            x0 = min(x0, box.x); y0 = min(y0, box.y); x1 = max(x1, box.maxX); y1 = max(y1, box.maxY)
        }
        return FrameRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The subject at each analysed frame where a face track lives, with hysteresis and a minimum hold.
    /// The first subject is the most important person (over the whole shot) among those seen first.
    func timeline(samples: [DetectionSample], tracks: [FaceTrack], frameTimes: [Double], importance: [Int: Double])
        -> (subjects: [Subject], switches: Int) {
        guard !tracks.isEmpty else { return ([], 0) }
        let byID = Dictionary(tracks.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let scores = Dictionary(tracks.map { track in
            (track.id, track.points.map { (time: frameTimes[$0.frameIndex], score: score($0.detection)) })
        }, uniquingKeysWith: { a, _ in a })
        let sampleTimes = samples.map { frameTimes[$0.frameIndex] }
        func windowed(_ id: Int, at time: Double) -> Double {
            let low = time - settings.windowSeconds, high = time + settings.windowSeconds
            let count = sampleTimes.filter { $0 >= low && $0 <= high }.count
            let sum = (scores[id] ?? []).filter { $0.time >= low && $0.time <= high }.reduce(0) { $0 + $1.score }
            return sum / Double(max(count, 1))
        }
        var result: [Subject] = []
        var current: Int?
        var heldSince = 0.0
        var switches = 0
        for (sample, time) in zip(samples, sampleTimes) {
            let alive = tracks.filter { $0.firstFrame <= sample.frameIndex && $0.lastFrame >= sample.frameIndex }
            guard let chosen = current, let currentTrack = byID[chosen] else {
                current = alive.max { ((importance[$0.id] ?? 0), -$0.id) < ((importance[$1.id] ?? 0), -$1.id) }?.id
                heldSince = time
                if let current { result.append(Subject(frameIndex: sample.frameIndex, track: current)) }
                continue
            }
            let ended = currentTrack.lastFrame < sample.frameIndex
            let others = alive.filter { $0.id != chosen }
            // A subject lost and found again (a new track where the old one ended) comes before anyone else.
            let continuation = ended ? others.first { !isDifferentPerson(from: currentTrack, to: $0) } : nil
            if let challenger = continuation ?? others.max(by: { (windowed($0.id, at: time), -$0.id) < (windowed($1.id, at: time), -$1.id) }) {
                let takeOver = ended
                    || (time - heldSince >= settings.minimumHoldSeconds
                        && windowed(challenger.id, at: time) > settings.hysteresis * windowed(chosen, at: time))
                if takeOver {
                    if isDifferentPerson(from: currentTrack, to: challenger) { switches += 1 }
                    current = challenger.id
                    heldSince = time
                }
            }
            if let current, byID[current]!.points.contains(where: { $0.frameIndex == sample.frameIndex }) {
                result.append(Subject(frameIndex: sample.frameIndex, track: current))
            }
        }
        return (result, switches)
    }

    /// A new track that starts where the old one ended (the same face, lost for a moment) is not a switch.
    func isDifferentPerson(from old: FaceTrack, to new: FaceTrack) -> Bool {
        guard let last = old.points.last?.detection.box, let next = new.points.first?.detection.box,
              new.firstFrame > old.lastFrame else { return true }
        let size = max(last.width, next.width, 1)
        return abs(last.midX - next.midX) + abs(last.midY - next.midY) > 1.5 * size
    }
}

extension SubjectChoice {
    /// The subject chosen at one analysed frame: the face track followed there.
    public struct Subject: Equatable, Sendable {
        public var frameIndex: Int
        public var track: Int

        public init(frameIndex: Int, track: Int) {
            self.frameIndex = frameIndex
            self.track = track
        }
    }
}
