import Foundation

/// `trim`: a lossless, sample-exact piece `[start, end)` of a movie. No sample is re-encoded: each
/// track keeps the samples its decoder needs for the range (video from a sync sample, audio with its
/// pre-roll) and an edit list presents exactly the range. Every kept sample's bytes are copied as
/// they are; the rest of the media data is never read.
///
/// Times: the cut is made on the movie's own clock, raised to a time scale in which every track's
/// samples are exact (the least common multiple of every time scale: 600, 48000 and 10000 give
/// 240000). With a video track, start and end fall on frame boundaries of the first enabled video
/// track (the frame shown at the requested start is the first one presented; the end is the start
/// of the first frame not shown), so audio and every other track start and end with the pictures.
public enum Trim {
    /// What was asked: seconds on the movie timeline.
    public struct Request: Sendable, Equatable {
        public var start: Double
        public var end: Double
        /// Start at the sync sample at or before `start`, presented from itself (no leading media skip).
        public var keyframe = false
        public init(start: Double, end: Double, keyframe: Bool = false) {
            self.start = start
            self.end = end
            self.keyframe = keyframe
        }
    }

    /// How one track was cut.
    public struct TrackCut: Sendable, Equatable {
        public var trackID: UInt32
        public var kind: TrackKind
        /// 0-based source sample indexes kept (decode order); empty when the track shows nothing in the range.
        public var samples: Range<Int>
        /// Kept samples that decode before the first presented one (sync lead-in, pre-roll, warm-up).
        public var leadingSamples: Int
        /// The output edit list.
        public var edits: [EditListBox.Entry]
        /// Source bytes of the kept samples.
        public var bytes: UInt64
    }

    /// A planned trim: the output movie's clock, the exact range and the writer that writes it.
    public struct Plan {
        /// Time scale of the output movie (mvhd, tkhd and elst durations).
        public var movieTimescale: UInt32
        /// The presented range in `movieTimescale` units on the source timeline.
        public var start: UInt64
        public var end: UInt64
        public var tracks: [TrackCut]
        public var writer: MovieWriter

        public var startSeconds: Double { Double(start) / Double(movieTimescale) }
        public var endSeconds: Double { Double(end) / Double(movieTimescale) }
        public var duration: Double { Double(end - start) / Double(movieTimescale) }
    }

    /// The source movie's presented length, in seconds (for messages and range checks).
    public static func movieDuration(_ movie: Movie) -> Double { movie.duration ?? 0 }

    /// Plans the cut; throws `usage` (64) for a range outside the movie, `unsupported` (65) for what
    /// trim cannot cut exactly (several presented edits, encrypted or per-sample boxes it cannot slice).
    public static func plan(_ movie: Movie, _ request: Request, options: MovieWriter.Options = MovieWriter.Options()) throws -> Plan {
        try Planner(movie).plan(request, options: options)
    }

    /// The pieces `[0, p1)`, `[p1, p2)`, ..., `[pn, end)` of a movie, planned from one reading of its
    /// tables; consecutive pieces meet exactly (each cut point is snapped once, the same for both).
    public static func split(_ movie: Movie, at points: [Double], options: MovieWriter.Options = MovieWriter.Options()) throws -> [Plan] {
        let planner = try Planner(movie)
        let sorted = points.sorted()
        guard !sorted.isEmpty else { throw KeepTrackError.usage("split needs at least one cut point") }
        let lasts = "the movie lasts \(format(seconds: planner.duration)) s"
        for point in sorted where !(point > 0 && point < planner.duration) {
            throw KeepTrackError.usage("the cut point \(format(seconds: point)) s is outside the movie: \(lasts)")
        }
        let bounds = [0] + sorted + [planner.duration]
        var plans: [Plan] = []
        for (start, end) in zip(bounds, bounds.dropFirst()) {
            let plan = try planner.plan(Request(start: start, end: min(end, planner.duration)), options: options)
            if let previous = plans.last, plan.start < previous.end || plan.start == previous.start {
                throw KeepTrackError.usage("the cut points \(format(seconds: start)) s and the one before fall on the same frame; pieces must hold at least one")
            }
            if let previous = plans.last, plan.start != previous.end {
                throw KeepTrackError.usage("the cut point \(format(seconds: start)) s does not snap to where the piece before it ends")
            }
            plans.append(plan)
        }
        return plans
    }

    /// Cut points every `interval` seconds (a last piece shorter than a frame is not made).
    public static func points(every interval: Double, duration: Double) throws -> [Double] {
        guard interval.isFinite, interval > 0 else { throw KeepTrackError.usage("a piece length must be above 0 s") }
        guard interval < duration else { throw KeepTrackError.usage("pieces of \(format(seconds: interval)) s are not shorter than the movie (\(format(seconds: duration)) s)") }
        let count = Int((duration / interval).rounded(.up))
        guard count <= 100_000 else { throw KeepTrackError.usage("pieces of \(format(seconds: interval)) s would be \(count) pieces (at most 100000)") }
        return (1..<count).map { Double($0) * interval }.filter { $0 < duration - 1e-6 }
    }

    /// Path of piece `number` (1-based) of `input` in `folder`: `NAME-001.ext`, the input's extension.
    public static func piecePath(input: String, folder: String, number: Int, of count: Int) -> String {
        let file = (input as NSString).lastPathComponent
        let ext = (file as NSString).pathExtension
        let name = (file as NSString).deletingPathExtension
        let digits = max(3, String(count).count)
        let numberText = String(repeating: "0", count: max(0, digits - String(number).count)) + String(number)
        return (folder as NSString).appendingPathComponent("\(name)-\(numberText)" + (ext.isEmpty ? ".mov" : "." + ext))
    }

    /// Plans every piece first (nothing is written when one cannot be cut), then writes each atomically.
    public static func writeSplit(input: String, folder: String, points: [Double]? = nil, every: Double? = nil,
                                  options: MovieOutput.Options = MovieOutput.Options()) throws -> [Written] {
        let movie = try Movie.open(path: input)
        let cuts = try points ?? Trim.points(every: every ?? 0, duration: Planner(movie).duration)
        let plans = try split(movie, at: cuts, options: options.writer)
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw KeepTrackError.cannotCreate("\(folder): \(error.localizedDescription)")
            }
        } else if !isFolder.boolValue {
            throw KeepTrackError.cannotCreate("\(folder) is not a folder")
        }
        let paths = plans.indices.map { piecePath(input: input, folder: folder, number: $0 + 1, of: plans.count) }
        if !options.overwrite, let existing = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            throw KeepTrackError.outputExists(existing)
        }
        return try zip(paths, plans).map { path, plan in
            Written(path: path, plan: plan, summary: try MovieOutput.write(plan.writer, to: path, inputs: [input], options: options))
        }
    }

    /// The clock and every track's timeline, read once for any number of cuts.
    struct Planner {
        let movie: Movie
        let clock: Clock
        let timelines: [Timeline]
        let movieEnd: UInt64
        var duration: Double { Double(movieEnd) / Double(clock.scale) }

        init(_ movie: Movie) throws {
            self.movie = movie
            clock = try Clock(movie)
            let clock = clock
            timelines = try movie.tracks.map { try Timeline($0, clock: clock) }
            movieEnd = timelines.map(\.presentedEnd).max() ?? 0
        }

        func plan(_ request: Request, options: MovieWriter.Options) throws -> Plan {
            let lasts = "the movie lasts \(format(seconds: duration)) s"
            guard request.start.isFinite, request.end.isFinite, request.start >= 0 else {
                throw KeepTrackError.usage("the start must be a time from 0 (\(lasts))")
            }
            guard request.end > request.start else {
                throw KeepTrackError.usage("the end (\(format(seconds: request.end)) s) must come after the start (\(format(seconds: request.start)) s)")
            }
            let tolerance = 0.5 / Double(clock.scale)
            guard request.start < duration - tolerance else {
                throw KeepTrackError.usage("the start \(format(seconds: request.start)) s is outside the movie: \(lasts)")
            }
            guard request.end <= duration + max(tolerance, 0.0005) else {
                throw KeepTrackError.usage("the end \(format(seconds: request.end)) s is outside the movie: \(lasts)")
            }
            var start = UInt64((request.start * Double(clock.scale)).rounded())
            var end = min(UInt64((request.end * Double(clock.scale)).rounded()), movieEnd)
            // The reference for snapping: the first enabled video track (else any video, else audio).
            let reference = timelines.first { $0.track.kind == .video && $0.track.isEnabled && !$0.frames.isEmpty }
                ?? timelines.first { $0.track.kind == .video && !$0.frames.isEmpty }
            if let video = reference {
                start = video.boundary(atOrBefore: start) ?? start
                end = video.boundary(atOrBefore: end) ?? end
                if end <= start { end = video.boundary(after: start) ?? movieEnd }
                if request.keyframe, let sync = video.syncStart(presenting: start, end: end) {
                    start = max(video.moviePosition(ofMedia: sync.presentation), video.presentedStart)
                }
            } else if let audio = timelines.first(where: { $0.track.kind == .audio && $0.track.isEnabled }) ?? timelines.first(where: { $0.track.kind == .audio }) {
                let unit = UInt64(clock.scale / max(audio.track.mediaHeader.timescale, 1))
                if unit > 1 { start -= start % unit; end -= end % unit }
            }
            guard end > start else { throw KeepTrackError.usage("the range \(format(seconds: request.start))-\(format(seconds: request.end)) s holds no frame (\(lasts))") }

            var cuts: [TrackCut] = []
            var outputs: [OutputTrack] = []
            for timeline in timelines {
                let (cut, output) = try timeline.cut(start: start, end: end, in: movie, keyframe: request.keyframe)
                cuts.append(cut)
                outputs.append(output)
            }
            var writer = MovieWriter(fileType: movie.boxes.first { $0.type == "ftyp" }, moovTemplate: movie.moov,
                                     otherTopLevel: MovieWriter.keptTopLevel(movie.boxes), topLevelSource: movie.source,
                                     tracks: outputs, options: options)
            writer.notes = MovieWriter.droppedIndexNotes(movie.boxes) + MovieWriter.sourceNotes(movie)
            let longest = outputs.compactMap { $0.trak.first("tkhd").flatMap { try? TrackHeaderBox(box: $0) }?.duration }.max() ?? 0
            var chapterNotes: [String] = []
            try writer.moovTemplate.modifyChildren { children in
                for index in children.indices where children[index].type == "mvhd" {
                    children[index] = try children[index].reencoded(MovieHeaderBox.self) { mvhd in
                        let sourceScale = mvhd.timescale > 0 ? mvhd.timescale : clock.source
                        mvhd.timescale = clock.scale
                        if longest > UInt64(UInt32.max) { mvhd.header.version = 1 }
                        mvhd.duration = longest
                        mvhd.quickTimeTimes = Trim.movedTimes(mvhd.quickTimeTimes, from: sourceScale, to: clock.scale, start: start, duration: longest)
                    }
                }
                // A fragmented source's mvex describes fragments the output does not have.
                children.removeAll { $0.type == "mvex" }
                for index in children.indices where children[index].type == "udta" {
                    let units = ChapterListBox.unitsPerSecond
                    children[index].modifyChildren { udta in
                        chapterNotes += Trim.cutChapterLists(&udta, start: TimeScale.convert(start, from: clock.scale, to: units, rounding: .down),
                                                             end: TimeScale.convert(end, from: clock.scale, to: units, rounding: .down),
                                                             untouched: start == 0 && end == movieEnd)
                    }
                }
            }
            writer.notes += chapterNotes
            return Plan(movieTimescale: clock.scale, start: start, end: end, tracks: cuts, writer: writer)
        }
    }

    /// A piece written: where, what was planned and what the writer reports.
    public struct Written {
        public let path: String
        public let plan: Plan
        public let summary: MovieOutput.Summary
    }

    /// Plans and writes atomically through `MovieOutput`.
    @discardableResult
    public static func write(input: String, output: String, _ request: Request, options: MovieOutput.Options = MovieOutput.Options()) throws -> Written {
        try write(Movie.open(path: input), inputs: [input], output: output, request, options: options)
    }

    /// The same for a movie already open (an init segment with its media segments: `inputs` are their paths).
    @discardableResult
    public static func write(_ movie: Movie, inputs: [String], output: String, _ request: Request, options: MovieOutput.Options = MovieOutput.Options()) throws -> Written {
        let plan = try plan(movie, request, options: options.writer)
        return Written(path: output, plan: plan, summary: try MovieOutput.write(plan.writer, to: output, inputs: inputs, options: options))
    }

    /// Seconds with up to 6 decimals, trailing zeros removed.
    public static func format(seconds: Double) -> String {
        var text = String(format: "%.6f", seconds)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    // MARK: Clock

    /// The output movie time scale: the least common multiple of the movie's and every track's time
    /// scale, so that each track's sample times are whole numbers of movie units.
    struct Clock {
        let scale: UInt32
        let source: UInt32

        init(_ movie: Movie) throws {
            source = movie.header.timescale > 0 ? movie.header.timescale : Movie.fallbackTimescale(mediaTimescales: movie.tracks.map(\.mediaHeader.timescale))
            var scale = UInt64(source)
            var fits = true
            for track in movie.tracks where track.mediaHeader.timescale > 0 {
                let next = Self.lcm(scale, UInt64(track.mediaHeader.timescale))
                if next > UInt64(UInt32.max) { fits = false; break }
                scale = next
            }
            if !fits {
                // Too many unrelated clocks: the audio (or largest) one keeps audio exact.
                let audio = movie.tracks.filter { $0.kind == .audio }.map(\.mediaHeader.timescale).max()
                scale = UInt64(audio ?? movie.tracks.map(\.mediaHeader.timescale).max() ?? source)
            }
            self.scale = UInt32(max(scale, 1))
        }

        static func lcm(_ a: UInt64, _ b: UInt64) -> UInt64 {
            func gcd(_ x: UInt64, _ y: UInt64) -> UInt64 { y == 0 ? x : gcd(y, x % y) }
            return a / gcd(a, b) * b
        }
    }

    /// `value` × `to` / `from`, rounded down (or up), without overflow (saturating: TimeScale).
    static func scale(_ value: UInt64, from: UInt32, to: UInt32, up: Bool = false) -> UInt64 {
        TimeScale.convert(value, from: from, to: to, rounding: up ? .up : .down)
    }

    // MARK: One track's timeline

    /// A track's samples and how the source presents them: an optional empty edit, then one edit
    /// from `mediaStart` lasting `presentedLength` movie units.
    struct Timeline {
        let track: Track
        let clock: Clock
        let mediaScale: UInt32
        /// Per sample in decode order (from 0 even for a fragmented track).
        let decodeTimes: [UInt64]
        let durations: [UInt64]
        let compositionOffsets: [Int64]
        let syncs: [Bool]
        let sizes: [UInt32]
        let offsets: [UInt64]
        let chunks: [Int]
        let descriptions: [UInt32]
        /// Presentation start (media units) of each video frame, sorted; empty for other kinds.
        let frames: [Int64]
        /// Movie units before the presented edit, and the presented edit.
        let emptyBefore: UInt64
        let mediaStart: Int64
        let presentedLength: UInt64

        var presentedStart: UInt64 { emptyBefore }
        var presentedEnd: UInt64 { emptyBefore + presentedLength }

        /// `severalEdits`: read a track whose edit list presents several edits (join copies them) instead of refusing
        /// it; `emptyBefore`, `mediaStart` and `presentedLength` then describe only the first presented edit.
        init(_ track: Track, clock: Clock, severalEdits: Bool = false) throws {
            self.track = track
            self.clock = clock
            mediaScale = track.mediaHeader.timescale
            guard mediaScale > 0 else { throw KeepTrackError.malformed(path: track.path + "/mdia/mdhd", offset: track.box.offset, reason: "media time scale is 0") }
            if let protection = track.protection {
                throw KeepTrackError.unsupported("track \(track.id) is encrypted (\(protection.originalFormat) in \(track.format?.description ?? "?")): trim would need every encryption offset rewritten")
            }
            if let reason = track.fragments?.encryption { throw KeepTrackError.unsupported("track \(track.id): \(reason)") }
            let stbl = track.box.find(["mdia", "minf", "stbl"])
            for child in stbl?.children ?? [] where Trim.unsliceable.contains(child.type) {
                throw KeepTrackError.unsupported("\(track.path)/mdia/minf/stbl/\(child.type) at byte \(child.offset) holds per-sample data trim does not cut")
            }
            let table = track.sampleTable
            var decodeTimes: [UInt64] = [], compositionOffsets: [Int64] = [], syncs: [Bool] = []
            var sizes: [UInt32] = [], offsets: [UInt64] = [], chunks: [Int] = [], descriptions: [UInt32] = []
            decodeTimes.reserveCapacity(table.sampleCount)
            for sample in table.samples {
                decodeTimes.append(sample.decodeTime &- table.firstDecodeTime)
                compositionOffsets.append(sample.compositionOffset)
                syncs.append(sample.isSync)
                sizes.append(sample.size)
                offsets.append(sample.offset)
                chunks.append(sample.chunk)
                descriptions.append(sample.descriptionIndex)
            }
            let lastDelta = table.timeToSample.count >= 2 ? UInt64(table.timeToSample[table.timeToSample.count - 1]) : 0
            var durations: [UInt64] = []
            durations.reserveCapacity(decodeTimes.count)
            for index in decodeTimes.indices {
                durations.append(index + 1 < decodeTimes.count ? decodeTimes[index + 1] &- decodeTimes[index] : lastDelta)
            }
            self.decodeTimes = decodeTimes
            self.durations = durations
            self.compositionOffsets = compositionOffsets
            self.syncs = syncs
            self.sizes = sizes
            self.offsets = offsets
            self.chunks = chunks
            self.descriptions = descriptions
            frames = track.kind == .video
                ? decodeTimes.indices.map { Int64(bitPattern: decodeTimes[$0]) &+ compositionOffsets[$0] }.sorted()
                : []
            // Where presentation ends before edits: the latest composition end.
            var compositionEnd: Int64 = 0
            for index in decodeTimes.indices {
                compositionEnd = max(compositionEnd, Int64(bitPattern: decodeTimes[index]) &+ compositionOffsets[index] &+ Int64(bitPattern: durations[index]))
            }
            let sourceScale = track.movieTimescale > 0 ? track.movieTimescale : clock.source
            let toMovie = { (value: UInt64) in Trim.scale(value, from: sourceScale, to: clock.scale) }
            let edits: [EditListBox.Entry]? = track.defragmentedTiming.map { $0.edits ?? [] } ?? track.editList?.entries
            var empty: UInt64 = 0
            var presented: [EditListBox.Entry] = []
            for entry in edits ?? [] {
                if entry.mediaTime < 0 {
                    guard presented.isEmpty || severalEdits else {
                        throw KeepTrackError.unsupported("\(track.path)/edts/elst has an empty edit after a presented one; trim cuts tracks with one presented edit")
                    }
                    let (sum, overflow) = empty.addingReportingOverflow(toMovie(entry.segmentDuration))
                    guard !overflow else { throw Self.timeOverflow(track) }
                    empty = sum
                } else {
                    presented.append(entry)
                }
            }
            guard presented.count <= 1 || severalEdits else {
                throw KeepTrackError.unsupported("\(track.path)/edts/elst presents \(presented.count) edits; trim cuts tracks with one presented edit (and an optional empty one before it)")
            }
            if let edit = presented.first {
                guard edit.rateInteger == 1, edit.rateFraction == 0 else {
                    throw KeepTrackError.unsupported("\(track.path)/edts/elst plays at rate \(edit.rateInteger).\(edit.rateFraction); trim cuts edits at rate 1")
                }
                mediaStart = edit.mediaTime
                let remaining = UInt64(max(compositionEnd - edit.mediaTime, 0))
                // A duration of 0 (or longer than the media) runs to the end of the media.
                let length = edit.segmentDuration == 0 ? Trim.scale(remaining, from: mediaScale, to: clock.scale) : toMovie(edit.segmentDuration)
                presentedLength = min(length, Trim.scale(remaining, from: mediaScale, to: clock.scale, up: true))
            } else if edits != nil && !(edits ?? []).isEmpty {
                // Only empty edits: nothing is presented.
                mediaStart = 0
                presentedLength = 0
            } else {
                mediaStart = 0
                presentedLength = Trim.scale(UInt64(max(compositionEnd, 0)), from: mediaScale, to: clock.scale, up: true)
            }
            emptyBefore = empty
            // Every later sum (presentedEnd, a media time plus a movie span) stays inside Int64: a hostile edit
            // list must be refused here, not trap there.
            let limit = UInt64(Int64.max / 4)
            guard emptyBefore <= limit, presentedLength <= limit, mediaStart >= -Int64(limit), mediaStart <= Int64(limit) else {
                throw Self.timeOverflow(track)
            }
        }

        static func timeOverflow(_ track: Track) -> KeepTrackError {
            KeepTrackError.malformed(path: track.path + "/edts/elst", offset: track.box.find(["edts", "elst"])?.offset ?? track.box.offset,
                                     reason: "edit list times too large to add up (beyond 2^61 movie units)")
        }

        /// Media time presented at movie unit `position` (inside the presented edit).
        func mediaTime(atMovie position: UInt64, up: Bool = false) -> Int64 {
            let into = position > emptyBefore ? position - emptyBefore : 0
            return mediaStart + Int64(Trim.scale(into, from: clock.scale, to: mediaScale, up: up))
        }

        /// Movie units at which media time `media` is presented.
        func moviePosition(ofMedia media: Int64) -> UInt64 {
            emptyBefore + Trim.scale(UInt64(max(media - mediaStart, 0)), from: mediaScale, to: clock.scale)
        }

        /// Frame boundaries on the movie timeline: the presented edit's start, each frame start
        /// inside the edit, and the edit's end.
        var boundaries: [UInt64] {
            let endMedia = mediaTime(atMovie: presentedEnd)
            let starts = frames.filter { $0 > mediaStart && $0 < endMedia }.map(moviePosition(ofMedia:))
            var result = [presentedStart]
            for position in starts where position > result[result.count - 1] { result.append(position) }
            if presentedEnd > result[result.count - 1] { result.append(presentedEnd) }
            return result
        }

        func boundary(atOrBefore position: UInt64) -> UInt64? {
            let all = boundaries
            return all.last { $0 <= position } ?? all.first
        }

        func boundary(after position: UInt64) -> UInt64? { boundaries.first { $0 > position } }

        /// The sync sample to decode from so that every frame presented in the media range is
        /// correct: at or before (in decode order) each of them, presented no later than the first.
        /// An open-GOP (CRA) sync sample's leading pictures are presented before it, so they are
        /// never among the frames shown.
        func syncStart(presenting start: UInt64, end: UInt64) -> (index: Int, presentation: Int64)? {
            let (first, last, earliest) = presentedSpan(start: start, end: end)
            guard first <= last else { return nil }
            var candidate = first
            while candidate >= 0 {
                if syncs[candidate], presentation(candidate) <= earliest { return (candidate, presentation(candidate)) }
                candidate -= 1
            }
            return (0, presentation(0))
        }

        func presentation(_ index: Int) -> Int64 { Int64(bitPattern: decodeTimes[index]) &+ compositionOffsets[index] }

        /// Decode indexes of the first and last sample presented in `[start, end)` and the earliest
        /// presentation time among them.
        func presentedSpan(start: UInt64, end: UInt64) -> (first: Int, last: Int, earliest: Int64) {
            let from = mediaTime(atMovie: start)
            let to = mediaTime(atMovie: end, up: true)
            var first = Int.max, last = -1
            var earliest = Int64.max
            // Each sample presents from its time until the next presentation time (frames) or for its duration.
            var next: [Int64: Int64] = [:]
            if track.kind == .video {
                for (a, b) in zip(frames, frames.dropFirst()) where next[a] == nil { next[a] = b }
            }
            for index in decodeTimes.indices {
                let begin = presentation(index)
                let finish = next[begin] ?? (begin &+ Int64(bitPattern: durations[index]))
                guard begin < to, finish > from || (finish == begin && begin >= from) else { continue }
                first = min(first, index)
                last = max(last, index)
                earliest = min(earliest, begin)
            }
            return (first == Int.max ? 0 : first, last, earliest)
        }

        /// Samples before `index` a decoder needs: pre-roll groups (`roll`, `prol`), sync samples,
        /// and one packet of warm-up for compressed audio without any (AAC: overlapping transforms).
        func audioStart(presenting index: Int) -> Int {
            let groups = RollGroups(track)
            var candidate = index
            let hasSyncTable = track.sampleTable.syncSamples != nil
            while candidate > 0 {
                if let distance = groups.distance(of: candidate) {
                    return max(0, candidate - max(distance, track.isLPCM ? 0 : 1))
                }
                if !hasSyncTable || syncs[candidate] {
                    // No group: a sync sample; compressed audio still wants its previous packet.
                    if hasSyncTable { return candidate }
                    return max(0, candidate - (track.isLPCM ? 0 : 1))
                }
                candidate -= 1
            }
            return 0
        }

        /// Cuts the track to movie units `[start, end)`; the output presents that range from time 0.
        func cut(start: UInt64, end: UInt64, in movie: Movie, keyframe: Bool) throws -> (TrackCut, OutputTrack) {
            var from = max(start, presentedStart)
            let to = min(end, presentedEnd)
            var edits: [EditListBox.Entry] = []
            var range = 0..<0
            var leading = 0
            var durationOverrides: [Int: UInt64] = [:]
            if from < to, !decodeTimes.isEmpty {
                let (first, last, earliest) = presentedSpan(start: from, end: to)
                // Video whose first frame comes after `from` (no edit list and B-frame offsets): the gap
                // becomes part of the empty edit, so the presented edit starts at that frame. The same
                // timeline; FFmpeg shifts a presented edit by the first composition offset, not an empty one.
                var presentedMedia = mediaTime(atMovie: from)
                if track.kind == .video, first <= last, earliest > presentedMedia {
                    let shown = moviePosition(ofMedia: earliest)
                    if shown < to, mediaTime(atMovie: shown) == earliest {
                        from = shown
                        presentedMedia = earliest
                    }
                }
                if first <= last {
                    var begin = first
                    switch track.kind {
                    case .video:
                        begin = syncStart(presenting: from, end: to)?.index ?? first
                    case .audio:
                        begin = audioStart(presenting: first)
                    default:
                        break
                    }
                    range = begin..<(last + 1)
                    leading = first - begin
                    if from > start {
                        var empty = EditListBox.Entry()
                        empty.mediaTime = -1
                        empty.segmentDuration = from - start
                        edits.append(empty)
                    }
                    var presented = EditListBox.Entry()
                    presented.mediaTime = presentedMedia - Int64(bitPattern: decodeTimes[begin])
                    presented.segmentDuration = to - from
                    // Both ends rounded down to a media unit, as the start is: consecutive pieces' cues then tile the
                    // source's exactly (a piece's end is the next one's start), and joined they last what they did.
                    if let retimed = textSpans(range, from: presentedMedia, to: mediaTime(atMovie: to)) {
                        durationOverrides = retimed
                        presented.mediaTime = 0
                    }
                    edits.append(presented)
                }
            }
            // Composition offsets stay as in the source; a presented edit that would start before the
            // new decode origin (a negative offset on the first sample) moves every offset up instead.
            var shift: Int64 = 0
            if let presented = edits.last, presented.mediaTime < 0 {
                shift = -presented.mediaTime
                edits[edits.count - 1].mediaTime = 0
            }
            let table = makeTable(range, shift: shift, durationOverrides: durationOverrides)
            var trak = try track.trakWithFragmentGroupsMerged()
            try sliceSampleGroups(&trak, range: range)
            let mediaDuration = range.reduce(UInt64(0)) { $0 + (durationOverrides[$1] ?? durations[$1]) }
            let timing = DefragmentedTiming(mediaDuration: mediaDuration,
                                            trackDuration: edits.reduce(0) { $0 + $1.segmentDuration },
                                            edits: edits.isEmpty ? nil : edits)
            let output = try OutputTrack(trak: trak, rebuilding: table, timing: timing, data: movie.source, timescale: mediaScale)
            let bytes = range.reduce(UInt64(0)) { $0 + UInt64(sizes[$1]) }
            return (TrackCut(trackID: track.id, kind: track.kind, samples: range, leadingSamples: leading, edits: edits, bytes: bytes), output)
        }

        /// The kept samples as a table, their byte offsets in the source file; chunks follow the
        /// source's (the writer lays them out anew).
        /// Text (subtitles, a chapter track): each sample is a cue that lasts its duration, so the cut is made in the
        /// samples, not only in the edit list: the first kept cue starts at the cut (its duration shortened by what
        /// lies before it), the last ends at the cut's end, and the media starts where the cut does. Cut through the
        /// edit list alone, ffprobe listed the chapter playing at the cut at -1.5 s, mediainfo listed no chapters,
        /// and ffmpeg and GStreamer showed subtitles 0.3 s early. nil (the edit list does it) for other tracks,
        /// for text with composition offsets, and where a cue would be left with no time.
        func textSpans(_ range: Range<Int>, from start: Int64, to end: Int64) -> [Int: UInt64]? {
            guard track.kind == .text, !range.isEmpty, end > start,
                  range.allSatisfy({ compositionOffsets[$0] == 0 }) else { return nil }
            var result: [Int: UInt64] = [:]
            for index in [range.lowerBound, range.upperBound - 1] {
                let begin = Int64(bitPattern: decodeTimes[index]), finish = begin &+ Int64(bitPattern: durations[index])
                let kept = min(finish, end) - max(begin, start)
                guard kept > 0 else { return nil }
                if UInt64(kept) != durations[index] { result[index] = UInt64(kept) }
            }
            // The first cue must hold the cut's start: otherwise the edit list's offset is not what is cut off.
            guard Int64(bitPattern: decodeTimes[range.lowerBound]) <= start else { return nil }
            return result
        }

        func makeTable(_ range: Range<Int>, shift: Int64, durationOverrides: [Int: UInt64] = [:]) -> SampleTable {
            var stts: [UInt32] = [], ctts: [UInt32] = [], sync: [UInt32] = []
            var chunkOffsets: [UInt64] = [], stsc: [UInt32] = []
            var sizesOut: [UInt32] = []
            sizesOut.reserveCapacity(range.count)
            var previousChunk = -1
            var inChunk = 0
            var chunkDescription: UInt32 = 0
            var chunkEnd: UInt64 = 0
            func closeChunk() {
                guard inChunk > 0 else { return }
                let count = UInt32(inChunk)
                if stsc.count >= 3, stsc[stsc.count - 2] == count, stsc[stsc.count - 1] == chunkDescription {
                    // same run continues
                } else {
                    stsc += [UInt32(chunkOffsets.count), count, chunkDescription]
                }
            }
            let hasComposition = !track.sampleTable.compositionOffsets.isEmpty || shift != 0
            for index in range {
                let delta = UInt32(truncatingIfNeeded: durationOverrides[index] ?? durations[index])
                if stts.count >= 2, stts[stts.count - 1] == delta { stts[stts.count - 2] += 1 } else { stts += [1, delta] }
                if hasComposition {
                    let value = UInt32(truncatingIfNeeded: compositionOffsets[index] + shift)
                    if ctts.count >= 2, ctts[ctts.count - 1] == value { ctts[ctts.count - 2] += 1 } else { ctts += [1, value] }
                }
                if syncs[index] { sync.append(UInt32(index - range.lowerBound + 1)) }
                sizesOut.append(sizes[index])
                if chunks[index] != previousChunk || descriptions[index] != chunkDescription || offsets[index] != chunkEnd {
                    closeChunk()
                    chunkOffsets.append(offsets[index])
                    inChunk = 0
                    previousChunk = chunks[index]
                    chunkDescription = descriptions[index]
                }
                inChunk += 1
                chunkEnd = offsets[index] + UInt64(sizes[index])
            }
            closeChunk()
            let constant = track.sampleTable.sizes.isEmpty
            var table = SampleTable(sampleCount: range.count, sizes: constant ? [] : sizesOut,
                                    constantSize: constant ? track.sampleTable.constantSize : 0,
                                    chunkOffsets: chunkOffsets, sampleToChunk: stsc, timeToSample: stts,
                                    compositionOffsets: ctts, compositionOffsetsSigned: track.sampleTable.compositionOffsetsSigned,
                                    syncSamples: track.sampleTable.syncSamples == nil ? nil : sync,
                                    usesLargeOffsets: track.sampleTable.usesLargeOffsets)
            let dependencies = sourceDependencies
            if dependencies.count == decodeTimes.count, !range.isEmpty { table.dependencies = Array(dependencies[range]) }
            return table
        }

        /// One `sdtp` byte per sample: the fragment-built table's, or the stbl box's.
        var sourceDependencies: [UInt8] {
            if track.sampleTable.dependencies.count == decodeTimes.count { return track.sampleTable.dependencies }
            guard let sdtp = track.box.find(["mdia", "minf", "stbl", "sdtp"]), sdtp.payload.count > 4 else { return [] }
            return Array(sdtp.payload.dropFirst(4))
        }

        /// `sbgp` runs and `stps` sample numbers cut to the kept samples (descriptions stay).
        func sliceSampleGroups(_ trak: inout Box, range: Range<Int>) throws {
            var failure: Error?
            try trak.modifySampleTable { children in
                for index in children.indices {
                    switch children[index].type {
                    case "sbgp":
                        guard let view = try? SampleToGroupBox(box: children[index]) else {
                            failure = KeepTrackError.malformed(path: track.path + "/mdia/minf/stbl/sbgp", offset: children[index].offset, reason: "does not decode")
                            return
                        }
                        let pairs = Trim.slice(runs: view.pairs, range: range)
                        children[index] = try children[index].reencoded(SampleToGroupBox.self) { $0.pairs = pairs }
                    case "stps":
                        children[index] = try children[index].reencoded(SyncSampleBox.self) { stps in
                            stps.sampleNumbers = stps.sampleNumbers.filter { range.contains(Int($0) - 1) }.map { $0 - UInt32(range.lowerBound) }
                        }
                    default:
                        break
                    }
                }
            }
            if let failure { throw failure }
        }
    }

    /// QuickTime's mvhd preview time and duration, poster time, selection time and duration and
    /// current time (big-endian u32s in movie units) on the piece's clock: times move by the start and
    /// stay inside the piece, durations are rescaled and cut to it. ISO files' zeros stay zeros.
    static func movedTimes(_ bytes: [UInt8], from: UInt32, to: UInt32, start: UInt64, duration: UInt64) -> [UInt8] {
        guard bytes.count == 24, bytes.contains(where: { $0 != 0 }) else { return bytes }
        var result: [UInt8] = []
        for field in 0..<6 {
            let value = bytes[field * 4..<field * 4 + 4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let scaled = scale(value, from: from, to: to)
            let isDuration = field == 1 || field == 4
            var moved = isDuration ? min(scaled, duration) : min(scaled > start ? scaled - start : 0, duration)
            if moved > UInt64(UInt32.max) { moved = 0 }
            result += [UInt8(moved >> 24 & 0xFF), UInt8(moved >> 16 & 0xFF), UInt8(moved >> 8 & 0xFF), UInt8(moved & 0xFF)]
        }
        return result
    }

    /// Per-sample boxes trim would have to cut and does not (sub-sample information, encryption
    /// auxiliary data, degradation priorities, padding bits, shadow sync).
    static let unsliceable: Set<FourCC> = ["subs", "saiz", "saio", "senc", "stdp", "padb", "stsh"]

    /// (count, value) runs restricted to the samples in `range`; a sample past the runs' end stays outside any.
    static func slice(runs: [UInt32], range: Range<Int>) -> [UInt32] {
        var result: [UInt32] = []
        var position = 0
        for run in stride(from: 0, to: runs.count - 1, by: 2) {
            let count = Int(runs[run])
            let lower = max(position, range.lowerBound)
            let upper = min(position + count, range.upperBound)
            if upper > lower {
                if result.count >= 2, result[result.count - 1] == runs[run + 1] {
                    result[result.count - 2] += UInt32(upper - lower)
                } else {
                    result += [UInt32(upper - lower), runs[run + 1]]
                }
            }
            position += count
            if position >= range.upperBound { break }
        }
        return result
    }

    /// Roll distances from `sgpd`/`sbgp` of type `roll` (AAC, Opus) and `prol` (APAC): how many
    /// samples before a sample a decoder must start for it to come out right.
    struct RollGroups {
        var distances: [Int?] = []
        var assignment: [UInt32] = []

        init(_ track: Track) {
            guard let stbl = track.box.find(["mdia", "minf", "stbl"]) else { return }
            for type: FourCC in ["prol", "roll"] {
                guard let sgpd = stbl.children.first(where: { $0.type == "sgpd" && (try? SampleGroupDescriptionBox(box: $0))?.groupingType == type }),
                      let description = try? SampleGroupDescriptionBox(box: sgpd),
                      let sbgp = stbl.children.first(where: { $0.type == "sbgp" && (try? SampleToGroupBox(box: $0))?.groupingType == type }),
                      let groups = try? SampleToGroupBox(box: sbgp) else { continue }
                // Entries are int16 roll distances (with a 4-byte length before each in sgpd version 1 without a default length).
                var values: [Int?] = []
                let bytes = description.entries
                var cursor = 0
                for _ in 0..<Int(description.entryCount) {
                    if description.header.version == 1, description.defaultLength == 0 { cursor += 4 }
                    guard cursor + 2 <= bytes.count else { break }
                    let raw = Int16(bitPattern: UInt16(bytes[cursor]) << 8 | UInt16(bytes[cursor + 1]))
                    values.append(abs(Int(raw)))
                    cursor += description.header.version == 1 && description.defaultLength > 0 ? Int(description.defaultLength) : 2
                }
                distances = values
                var assignment: [UInt32] = []
                for run in stride(from: 0, to: groups.pairs.count - 1, by: 2) {
                    assignment += Array(repeating: groups.pairs[run + 1], count: min(Int(groups.pairs[run]), 1 << 24))
                }
                self.assignment = assignment
                return
            }
        }

        /// The roll distance of sample `index`, or nil when it is in no group.
        func distance(of index: Int) -> Int? {
            guard index < assignment.count else { return nil }
            let group = Int(assignment[index])
            guard group >= 1, group <= distances.count else { return nil }
            return distances[group - 1]
        }
    }
}

extension DefragmentedTiming {
    /// Timing given outright (a trimmed track's durations and edits).
    init(mediaDuration: UInt64, trackDuration: UInt64, edits: [EditListBox.Entry]?) {
        self.mediaDuration = mediaDuration
        self.trackDuration = trackDuration
        self.edits = edits
    }
}

extension Trim {
    /// Nero chapter lists (`moov/udta/chpl`) moved onto a cut `[start, end)` (100 ns units on the source timeline):
    /// copied as they were, their times would name chapters past the cut's end or shifted by its start (ffprobe listed
    /// "End" at 3 s in a 2 s piece). One that cannot be read is dropped rather than passed on wrong. Returns the notes.
    static func cutChapterLists(_ udta: inout [Box], start: UInt64, end: UInt64, untouched: Bool) -> [String] {
        guard !untouched else { return [] }
        var notes: [String] = []
        var index = 0
        while index < udta.count {
            guard udta[index].type == "chpl" else { index += 1; continue }
            let box = udta[index]
            do {
                var list = try ChapterListBox(box: box, path: "moov/udta/chpl")
                let before = list.chapters.count
                list.chapters = list.cut(start: start, end: end)
                if list.chapters.isEmpty {
                    udta.remove(at: index)
                    notes.append("dropped moov/udta/chpl: none of its \(before) chapters falls in the cut")
                    continue
                }
                udta[index] = Box(type: "chpl", bytes: try list.encoded())
                notes.append("moov/udta/chpl: \(list.chapters.count) of \(before) chapters fall in the cut, timed from its start")
            } catch {
                udta.remove(at: index)
                notes.append("dropped moov/udta/chpl at byte \(box.offset): its chapter list cannot be read (\(error)), so it cannot be moved onto the cut")
                continue
            }
            index += 1
        }
        return notes
    }
}
