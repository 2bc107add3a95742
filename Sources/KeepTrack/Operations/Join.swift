import Foundation

/// `join`: clips end to end in one movie, losslessly. Every track of the first clip continues with
/// its counterpart in each following clip (`JoinMatching`), every sample's bytes copied as they are,
/// each clip presenting exactly what it presents on its own: its edit list becomes one edit of the
/// joined track (priming, pre-roll and composition offsets skipped as in the clip), on a movie clock in
/// which every edit is exact (the least common multiple of every time scale). Flags, groups and
/// references are the first clip's (they must agree); movie metadata is the first clip's, or `metadataFrom`'s.
public enum Join {
    public struct Options: Sendable {
        /// 0-based clip whose movie boxes (metadata, udta) the output keeps.
        public var metadataFrom = 0
        /// Add a QuickTime chapter track with one chapter per clip, named after its file.
        public var chapters = false
        public var writer = MovieWriter.Options()
        public init() {}
    }

    /// How one output track was joined.
    public struct TrackJoin: Sendable {
        public var trackID: UInt32
        public var kind: TrackKind
        public var format: String
        public var samples: Int
        /// Sample descriptions in the joined stsd (more than 1 where clips' entries differ).
        public var descriptions: Int
        public var edits: [EditListBox.Entry]
    }

    /// A planned join: the output clock, where each clip starts, and the writer.
    public struct Plan {
        public var movieTimescale: UInt32
        /// Each clip's start and length on the joined timeline (movie units).
        public var clipStarts: [UInt64]
        public var clipLengths: [UInt64]
        public var tracks: [TrackJoin]
        public var writer: MovieWriter
        public var duration: Double { Double((clipStarts.last ?? 0) + (clipLengths.last ?? 0)) / Double(movieTimescale) }
    }

    /// Plans the join of `movies` (named by `names` in messages and chapters); throws 64 for fewer than
    /// two clips or a bad `metadataFrom`, 65 for clips that cannot be joined (the reason names clip,
    /// track and difference). Nothing is read but the clips' boxes.
    public static func plan(_ movies: [Movie], names: [String], options: Options = Options()) throws -> Plan {
        guard movies.count >= 2 else { throw KeepTrackError.usage("join needs at least two clips") }
        guard options.metadataFrom >= 0, options.metadataFrom < movies.count else {
            throw KeepTrackError.usage("--metadata-from \(options.metadataFrom + 1) names no clip (there are \(movies.count))")
        }
        let clips = zip(movies, names).enumerated().map { Clip(number: $0.offset + 1, name: $0.element.1, movie: $0.element.0) }
        // A broken description joined beside a whole one became a second stsd entry, and FFmpeg then refused the whole
        // joined movie, the whole clips' part too (exit 0; damage sweep). Which configuration was meant cannot be told.
        for clip in clips {
            if let broken = clip.movie.tolerated.first(where: { $0.kind == .decoderConfigurationBroken }) {
                throw KeepTrackError.malformed(path: broken.path, offset: broken.offset,
                    reason: "\(clip.label): \(broken.message); joined, it would leave the other clips unplayable too (`keeptrack lint` shows it)")
            }
        }
        let matches = try matchTracks(clips)
        let clock = try commonClock(movies)
        // Each clip's samples and what it presents, on the common clock.
        var timelines: [[Trim.Timeline]] = []
        var clipEdits: [[[EditListBox.Entry]]] = []
        var lengths: [UInt64] = []
        for (clip, movie) in zip(clips, movies) {
            let movieScale = movie.header.timescale > 0 ? movie.header.timescale : Movie.fallbackTimescale(mediaTimescales: movie.tracks.map(\.mediaHeader.timescale))
            let local = Trim.Clock(scale: clock.scale, source: movieScale)
            do {
                let clipTimelines = try movie.tracks.map { try Trim.Timeline($0, clock: local, severalEdits: true) }
                let edits = try clipTimelines.map { try Self.clipEdits($0, clock: local, movieScale: movieScale) }
                lengths.append(try zip(edits, movie.tracks).map { try editsEnd($0, clip.label, $1) }.max() ?? 0)
                timelines.append(clipTimelines)
                clipEdits.append(edits)
            } catch let KeepTrackError.unsupported(reason) {
                throw KeepTrackError.unsupported("\(clip.label): \(reason)")
            }
        }
        var starts: [UInt64] = []
        var position: UInt64 = 0
        for length in lengths {
            starts.append(position)
            let (end, overflow) = position.addingReportingOverflow(length)
            guard !overflow, end < 1 << 60 else { throw KeepTrackError.unsupported("the clips last past 2^60 units of the movie clock together") }
            position = end
        }
        if let empty = lengths.firstIndex(of: 0) { throw KeepTrackError.unsupported("\(clips[empty].label) presents nothing") }

        let data = ConcatenatedByteSource(movies.map(\.source), alignment: ConcatenatedByteSource.joinAlignment)
        var outputs: [OutputTrack] = []
        var summaries: [TrackJoin] = []
        var cueNotes: [String] = []
        for row in matches {
            let (stsd, indexes) = try joinDescriptions(row, clips: clips)
            var parts: [Part] = []
            for (clipIndex, track) in row.enumerated() {
                guard let trackIndex = movies[clipIndex].tracks.firstIndex(where: { $0.id == track.id }) else { continue }
                parts.append(Part(track: track, timeline: timelines[clipIndex][trackIndex], file: movies[clipIndex].source, base: data.bases[clipIndex],
                                  descriptionIndexes: indexes[clipIndex], edits: clipEdits[clipIndex][trackIndex]))
            }
            let (output, edits, mergedCues) = try joinTrack(parts, stsd: stsd, clock: clock, lengths: lengths, data: data)
            for index in mergedCues {
                cueNotes.append("track \(row[0].id) (text): the cue that ends \(clips[index - 1].label) and the one that opens \(clips[index].label) "
                    + "hold the same bytes and are kept as one cue, as a cut divides one (--chapters names each clip instead)")
            }
            outputs.append(output)
            summaries.append(TrackJoin(trackID: row[0].id, kind: row[0].kind, format: row[0].format?.description ?? "?",
                                       samples: output.table.sampleCount, descriptions: indexes.flatMap { $0 }.max().map(Int.init) ?? 0, edits: edits))
        }
        let metadata = movies[options.metadataFrom]
        var writer = MovieWriter(fileType: movies[0].boxes.first { $0.type == "ftyp" }, moovTemplate: metadata.moov,
                                 otherTopLevel: MovieWriter.keptTopLevel(metadata.boxes), topLevelSource: metadata.source,
                                 tracks: outputs, options: options.writer)
        writer.notes = MovieWriter.droppedIndexNotes(metadata.boxes) + cueNotes
            + clips.flatMap { clip in MovieWriter.sourceNotes(clip.movie).map { "\(clip.label): " + $0 } }
        if options.chapters {
            let chapter = try chapterTrack(names: names, lengths: lengths, clock: clock, writer: &writer)
            summaries.append(chapter)
        }
        writer.notes += joinChapterLists(movies, starts: starts, clock: clock, names: options.chapters ? names : nil, writer: &writer)
        try setMovieHeader(&writer, clock: clock, sourceScale: metadata.header.timescale)
        return Plan(movieTimescale: clock.scale, clipStarts: starts, clipLengths: lengths, tracks: summaries, writer: writer)
    }

    /// The clock every clip's edits and samples are exact on: the least common multiple of every movie
    /// and media time scale (refused when it does not fit 32 bits).
    static func commonClock(_ movies: [Movie]) throws -> Trim.Clock {
        var scale: UInt64 = 1
        for movie in movies {
            for value in [movie.header.timescale] + movie.tracks.map(\.mediaHeader.timescale) where value > 0 {
                scale = Trim.Clock.lcm(scale, UInt64(value))
                guard scale <= UInt64(UInt32.max) else {
                    throw KeepTrackError.unsupported("the clips' time scales have no common multiple below 2^32: no movie clock makes every edit exact")
                }
            }
        }
        return Trim.Clock(scale: UInt32(scale), source: UInt32(scale))
    }

    /// mvhd on the joined clock: the longest track's duration, a next track ID past every track, the
    /// QuickTime preview/poster/selection times rescaled (they stay in the first clip's span).
    static func setMovieHeader(_ writer: inout MovieWriter, clock: Trim.Clock, sourceScale: UInt32) throws {
        let headers = writer.tracks.compactMap { $0.trak.first("tkhd").flatMap { try? TrackHeaderBox(box: $0) } }
        let longest = headers.map(\.duration).max() ?? 0
        // The largest ID may be the last one there is: then no ID is free, which mvhd says with its largest value.
        let nextID = (headers.map(\.trackID).max() ?? 0) &+ 1
        let next = nextID == 0 ? UInt32.max : nextID
        try writer.moovTemplate.modifyChildren { children in
            for index in children.indices where children[index].type == "mvhd" {
                children[index] = try children[index].reencoded(MovieHeaderBox.self) { mvhd in
                    let from = mvhd.timescale > 0 ? mvhd.timescale : sourceScale
                    mvhd.timescale = clock.scale
                    if longest > UInt64(UInt32.max) { mvhd.header.version = 1 }
                    mvhd.duration = longest
                    mvhd.nextTrackID = max(mvhd.nextTrackID, next)
                    mvhd.quickTimeTimes = Trim.movedTimes(mvhd.quickTimeTimes, from: max(from, 1), to: clock.scale, start: 0, duration: longest)
                }
            }
            // A fragmented clip's mvex describes fragments the output does not have.
            children.removeAll { $0.type == "mvex" }
        }
    }

    /// A join written: where, what was planned and what the writer reports.
    public struct Written {
        public let path: String
        public let plan: Plan
        public let summary: MovieOutput.Summary
    }

    /// Plans (nothing is written when the clips cannot be joined) and writes atomically through `MovieOutput`.
    @discardableResult
    public static func write(inputs: [String], output: String, options: Options = Options(),
                             outputOptions: MovieOutput.Options = MovieOutput.Options()) throws -> Written {
        let movies = try inputs.map { try Movie.open(path: $0) }
        var joinOptions = options
        joinOptions.writer = outputOptions.writer
        let plan = try plan(movies, names: inputs.map { ($0 as NSString).lastPathComponent }, options: joinOptions)
        if !outputOptions.overwrite, FileManager.default.fileExists(atPath: output) { throw KeepTrackError.outputExists(output) }
        return Written(path: output, plan: plan, summary: try MovieOutput.write(plan.writer, to: output, inputs: inputs, options: outputOptions))
    }
}

extension Trim.Clock {
    /// A clock given outright (join's common one).
    init(scale: UInt32, source: UInt32) {
        self.scale = scale
        self.source = source
    }
}
