/// `salvage`: a truncated movie (moov whole, media data cut short) written as a movie of its own with
/// every complete sample, every track ending at one time: where the first audio or video track that
/// lost samples stops being whole (so no audio runs on past the pictures unless the source did so).
/// The cut is a `Trim` from 0 to that time on the truncated model, so edit lists, sample groups, sync
/// tables and every other box are handled as trim handles them; no sample is re-encoded.
public enum Salvage {
    /// How one track came out.
    public struct TrackResult: Sendable, Equatable {
        public var trackID: UInt32
        public var kind: TrackKind
        public var sourceSamples: Int
        public var completeSamples: Int
        /// Samples written (complete ones presented after the common end are left out).
        public var keptSamples: Int
        /// Not written at all: no sample of it is whole in the file.
        public var isLeftOut: Bool
    }

    public struct Plan {
        public var truncation: Truncation
        /// Where every track ends, in seconds on the movie timeline.
        public var end: Double
        public var tracks: [TrackResult]
        public var trim: Trim.Plan
    }

    /// Plans the salvage of a movie opened with `allowingTruncation`. A movie that is not truncated
    /// is refused (nothing to salvage: `remux` copies it); so is one with no whole audio or video
    /// sample, or whose tracks' complete samples cover no common time.
    public static func plan(_ movie: Movie, options: MovieWriter.Options = MovieWriter.Options()) throws -> Plan {
        guard let truncation = movie.truncation else {
            throw KeepTrackError.usage("the movie is not truncated (every sample is in the file): nothing to salvage; `remux` copies it")
        }
        // A track cut before its first sample ends is left out (its references go too): the others keep what they have.
        let empty = Set(truncation.tracks.filter { $0.isCut && $0.completeSamples == 0 }.map(\.trackID))
        var kept = movie
        if !empty.isEmpty {
            var edit = MovieEdit(movie)
            try edit.removeTracks(empty, reason: "no complete sample in the file")
            kept.tracks = edit.tracks
        }
        let states = truncation.tracks.filter { !empty.contains($0.trackID) }
        let nothing = "the file is cut short before any audio or video sample is whole (\(truncation.trackLines.joined(separator: "; "))): nothing to salvage"
        guard states.contains(where: { ($0.kind == .audio || $0.kind == .video) && $0.completeSamples > 0 }) else {
            throw KeepTrackError.malformed(path: "mdat", offset: truncation.mediaDataOffset, reason: nothing)
        }
        let planner = try Trim.Planner(kept)
        // The tracks that decide the end: cut audio and video (a sparse metadata track would end it too early).
        let cut = zip(states, planner.timelines).filter { $0.0.isCut }
        let deciding = cut.contains { $0.0.kind == .audio || $0.0.kind == .video } ? cut.filter { $0.0.kind == .audio || $0.0.kind == .video } : cut
        var end = planner.movieEnd
        for (state, timeline) in deciding {
            guard let missing = state.firstMissingPresentation else { continue }
            end = min(end, timeline.moviePosition(ofMedia: missing))
        }
        guard end > 0 else {
            throw KeepTrackError.malformed(path: "mdat", offset: truncation.mediaDataOffset,
                reason: "the file is cut short before the tracks' complete samples cover a common time (\(truncation.trackLines.joined(separator: "; "))): nothing to salvage")
        }
        let trim = try planner.plan(Trim.Request(start: 0, end: Double(end) / Double(planner.clock.scale)), options: options)
        var keptCounts: [UInt32: Int] = [:]
        for trackCut in trim.tracks { keptCounts[trackCut.trackID] = trackCut.samples.count }
        // The common end can lie before every whole sample is shown (a missing first picture that B-frames before the
        // end refer to): a movie of no audio or video sample is nothing salvaged, not a result.
        guard trim.tracks.contains(where: { ($0.kind == .audio || $0.kind == .video) && !$0.samples.isEmpty }) else {
            throw KeepTrackError.malformed(path: "mdat", offset: truncation.mediaDataOffset,
                reason: "no whole audio or video sample is shown before the tracks' common end at \(Trim.format(seconds: trim.endSeconds)) s (\(truncation.trackLines.joined(separator: "; "))): nothing to salvage")
        }
        let results = truncation.tracks.map { state in
            TrackResult(trackID: state.trackID, kind: state.kind, sourceSamples: state.totalSamples,
                        completeSamples: state.completeSamples, keptSamples: keptCounts[state.trackID] ?? 0,
                        isLeftOut: empty.contains(state.trackID))
        }
        return Plan(truncation: truncation, end: trim.endSeconds, tracks: results, trim: trim)
    }

    /// Opens `input` (truncated), plans and writes `output` atomically.
    public static func write(input: String, output: String, options: MovieOutput.Options = MovieOutput.Options()) throws -> (Plan, MovieOutput.Summary) {
        let movie = try Movie.open(path: input, allowingTruncation: true)
        let plan = try plan(movie, options: options.writer)
        return (plan, try MovieOutput.write(plan.trim.writer, to: output, inputs: [input], options: options))
    }

    /// What was kept and cut, one line per track.
    public static func lines(_ plan: Plan) -> [String] {
        plan.tracks.map { track in
            if track.isLeftOut {
                return "track \(track.trackID) (\(track.kind.rawValue)): left out, none of its \(track.sourceSamples) samples is whole in the file"
            }
            var line = "track \(track.trackID) (\(track.kind.rawValue)): kept \(track.keptSamples) of \(track.sourceSamples) samples"
            let missing = track.sourceSamples - track.completeSamples
            let afterEnd = track.completeSamples - track.keptSamples
            var cuts: [String] = []
            if missing > 0 { cuts.append("\(missing) missing from the file") }
            if afterEnd > 0 { cuts.append("\(afterEnd) complete but after the common end") }
            if !cuts.isEmpty { line += " (" + cuts.joined(separator: ", ") + ")" }
            return line
        }
    }

    public static func json(_ plan: Plan, output: String, bytes: UInt64) -> JSONValue {
        let trackValues: [JSONValue] = plan.tracks.map { track in
            let pairs: [(String, JSONValue)] = [
                ("id", .int(Int64(track.trackID))), ("kind", .string(track.kind.rawValue)),
                ("sourceSamples", .int(Int64(track.sourceSamples))), ("completeSamples", .int(Int64(track.completeSamples))),
                ("keptSamples", .int(Int64(track.keptSamples))), ("leftOut", .bool(track.isLeftOut)),
            ]
            return .object(pairs)
        }
        let pairs: [(String, JSONValue)] = [
            ("output", .string(output)), ("bytes", .int(Int64(bytes))), ("end", .double((plan.end * 1_000_000).rounded() / 1_000_000)),
            ("truncation", plan.truncation.json), ("tracks", .array(trackValues)),
        ]
        return .object(pairs)
    }
}
