/// Reads a written movie back and checks it against what the writer meant to write: the file
/// parses, the movie's own boxes (ftyp, the kept top-level boxes, moov's children other than trak)
/// are byte-identical to the plan, every trak is byte-identical apart from the layout boxes, every
/// sample table describes the same samples, and every sample sits where the chunk plan put it.
/// Optionally compares every sample's bytes with the source's, byte for byte.
public enum WriteVerification {
    public struct Result: Sendable {
        public var tracks: Int
        public var samples: Int
        /// Sample bytes compared with the source's (0 without data verification).
        public var comparedBytes: UInt64
    }

    /// The same check; `hashData` is the former name of `compareData` (the bytes are compared, not hashed).
    public static func verify(_ writer: MovieWriter, writtenAt path: String, hashData: Bool) throws -> Result {
        try verify(writer, writtenAt: path, compareData: hashData)
    }

    /// `compareData`: also read every written sample back and compare it with the source's bytes
    /// (`SampleBytes`: pieces on every core, no digest).
    public static func verify(_ writer: MovieWriter, writtenAt path: String, compareData: Bool) throws -> Result {
        func fail(_ reason: String) -> KeepTrackError { .io("verification of the written file failed: \(reason)") }
        let written: Movie
        do {
            written = try Movie.open(path: path)
        } catch let error as KeepTrackError {
            throw fail("it does not read back: \(error.description)")
        }
        guard written.tracks.count == writer.tracks.count else {
            throw fail("\(written.tracks.count) tracks written, \(writer.tracks.count) planned")
        }
        if writer.options.moovFirst != written.isFastStart {
            throw fail("moov is \(written.isFastStart ? "before" : "after") the media data, planned the opposite")
        }
        guard let mdat = written.boxes.first(where: { $0.type == "mdat" }) else { throw fail("no mdat") }
        let plan = ChunkPlan(tracks: writer.tracks, chunkDuration: writer.options.chunkDuration)
        if let difference = try movieBoxDifference(writer, plan: plan, written: written) { throw fail(difference) }
        var samples = 0
        var compared: UInt64 = 0
        for (planned, actual) in zip(writer.tracks, written.tracks) {
            let boxes = MovieComparison.differingBoxes(planned.trak, actual.box, path: "",
                                                       ignoring: MovieComparison.layoutBoxes.union(FilePointers.pointerBoxes))
            if !boxes.isEmpty { throw fail("track \(actual.id): boxes differ: \(boxes.joined(separator: ", "))") }
            if let difference = try FilePointers.difference([planned.trak], in: writer.topLevelSource, [actual.box], in: written.source,
                                                            path: "moov/") {
                throw fail("track \(actual.id): \(difference)")
            }
            let left = planned.table
            let right = actual.sampleTable
            guard left.sampleCount == right.sampleCount, left.timeToSample == right.timeToSample,
                  left.compositionOffsets == right.compositionOffsets, left.syncSamples == right.syncSamples else {
                throw fail("track \(actual.id): sample table differs (\(right.sampleCount) samples written, \(left.sampleCount) planned)")
            }
            // A table rebuilt from fragments carries its samples' dependencies into sdtp.
            if !left.dependencies.isEmpty {
                let written = actual.box.find(["mdia", "minf", "stbl", "sdtp"]).map { Array($0.payload.dropFirst(4)) } ?? []
                guard written == left.dependencies else { throw fail("track \(actual.id): sdtp does not hold the planned sample dependencies") }
            }
            // Groups rebuilt from fragments: every sample in the same group descriptions as in the source.
            if let expected = planned.expectedGroups {
                let found: SampleGroupMembership
                do { found = try actual.sampleGroups() } catch let error as KeepTrackError { throw fail("track \(actual.id): \(error.description)") }
                if let difference = expected.difference(from: found) { throw fail("track \(actual.id): \(difference)") }
            }
            samples += left.sampleCount
        }
        // Every sample where the plan put it, inside mdat, in plan order.
        var iterators = written.tracks.map { $0.sampleTable.samples.makeIterator() }
        var plannedIterators = writer.tracks.map { $0.table.samples.makeIterator() }
        var position = mdat.payloadOffset
        for chunk in plan.chunks {
            for _ in 0..<chunk.sampleCount {
                guard let sample = iterators[chunk.track].next(), let plannedSample = plannedIterators[chunk.track].next() else {
                    throw fail("track \(written.tracks[chunk.track].id) has fewer samples than planned")
                }
                guard sample.size == plannedSample.size, sample.descriptionIndex == plannedSample.descriptionIndex else {
                    throw fail("track \(written.tracks[chunk.track].id) sample \(sample.index + 1): size or description differs")
                }
                guard sample.decodeTime == plannedSample.decodeTime, sample.compositionOffset == plannedSample.compositionOffset,
                      sample.isSync == plannedSample.isSync else {
                    throw fail("track \(written.tracks[chunk.track].id) sample \(sample.index + 1): decode time, composition offset or sync flag differs")
                }
                guard sample.offset == position else {
                    throw fail("track \(written.tracks[chunk.track].id) sample \(sample.index + 1) is at byte \(sample.offset), planned \(position)")
                }
                position += UInt64(sample.size)
            }
        }
        guard position <= mdat.payloadOffset + mdat.payloadSize else { throw fail("samples run past the end of mdat") }
        if compareData {
            for (planned, actual) in zip(writer.tracks, written.tracks) {
                if let at = try SampleBytes.firstDifference(planned.table, in: planned.data, actual.sampleTable, in: written.source) {
                    throw fail("track \(actual.id): sample data differs from the source's from sample \(at.sample + 1) on "
                               + "(byte \(at.offsetB) written, byte \(at.offsetA) of the source)")
                }
                compared += actual.sampleTable.totalBytes
            }
        }
        if let difference = try independentDifference(writer, written: written.source) { throw fail(difference) }
        return Result(tracks: written.tracks.count, samples: samples, comparedBytes: compared)
    }

    /// Tracks that pass samples through, read again from the source's and the output's own boxes by
    /// `SampleAccount` (no code shared with the reader that planned the output): every sample's facts
    /// agree; an init segment's `trex` stays; a known movie duration does not become unknown.
    static func independentDifference(_ writer: MovieWriter, written: ByteSource) throws -> String? {
        let checked = writer.tracks.filter { $0.sampleFactsSource != nil }
        let joined = writer.tracks.filter { !$0.joinedParts.isEmpty }
        guard !checked.isEmpty || !joined.isEmpty else { return nil }
        let output = try SampleAccount(source: written)
        var sources: [ObjectIdentifier: SampleAccount] = [:]
        for track in joined {
            guard let id = MovieWriter.trackID(track.trak) else { continue }
            guard let copy = output.tracks[id] else { return "track \(id) is not in an independent reading of the output" }
            var expected = SampleAccount.TrackAccount(id: id)
            for (number, part) in track.joinedParts.enumerated() {
                let key = ObjectIdentifier(part.file)
                let source = try sources[key] ?? SampleAccount(source: part.file)
                sources[key] = source
                guard let original = source.tracks[part.trackID] else { return "track \(part.trackID) of joined file \(number + 1) is not in an independent reading of it" }
                expected.appendJoined(original, descriptionIndexes: part.descriptionIndexes, skip: part.skip, lastDuration: part.lastDuration)
            }
            if let difference = SampleAccount.difference(expected, copy, nameA: "the joined files", nameB: "the output") {
                return "track \(id), read independently: \(difference)"
            }
        }
        for track in checked {
            guard let sourceID = track.sampleFactsSource, let id = MovieWriter.trackID(track.trak) else { continue }
            let file = track.sampleFactsFile ?? track.data
            let key = ObjectIdentifier(file)
            let source = try sources[key] ?? SampleAccount(source: file)
            sources[key] = source
            guard let original = source.tracks[sourceID] else { return "track \(sourceID) is not in an independent reading of the source" }
            guard let copy = output.tracks[id] else { return "track \(id) is not in an independent reading of the output" }
            if let difference = SampleAccount.difference(original, copy, nameA: "the source", nameB: "the output", sizes: !track.sampleSizesChanged) {
                return "track \(id), read independently: \(difference)"
            }
            if source.fragmentCount == 0, let extends = original.extends, copy.extends != extends {
                return "track \(id): the init segment's mvex/trex \(copy.extends == nil ? "is missing from" : "differs in") the output"
            }
        }
        if output.movieDurationUnknown, sources.values.contains(where: { !$0.movieDurationUnknown }) {
            return "moov/mvhd: the duration is unknown (all ones) where the source gave one"
        }
        return nil
    }

    /// The first movie-level box of `written` that is not what the writer planned, or nil: ftyp, the
    /// kept top-level boxes (same types, order and payload bytes; large ones compared piece by piece
    /// from both files) and moov's children other than the tracks. Boxes holding file offsets (saio,
    /// iloc) are compared through the bytes they point at in each file instead of their own bytes.
    static func movieBoxDifference(_ writer: MovieWriter, plan: ChunkPlan, written: Movie) throws -> String? {
        let plannedTop = writer.prefixBoxes + writer.trailingBoxes
        let layout = try writer.makeLayout(plan: plan, prefixSize: writer.prefixSize)
        var writtenTop = written.boxes.filter { !["moov", "mdat"].contains($0.type) }
        // The alignment padding: one free box of the planned size right before mdat (the source's own
        // free boxes are never copied), nothing else.
        if layout.padding > 0 {
            guard let index = written.boxes.firstIndex(where: { $0.type == "mdat" }), index > 0,
                  written.boxes[index - 1].type == "free", written.boxes[index - 1].size == layout.padding,
                  let padding = writtenTop.firstIndex(where: { $0.offset == written.boxes[index - 1].offset }) else {
                return "no free box of \(layout.padding) bytes before mdat, planned as alignment padding"
            }
            writtenTop.remove(at: padding)
        }
        // Trailing boxes come after the media data and moov, leading ones before.
        if let mdat = written.boxes.first(where: { $0.type == "mdat" }),
           let misplaced = writtenTop.dropFirst(writtenTop.count - writer.trailingBoxes.count).first(where: { $0.offset < mdat.offset }) {
            return "top-level box \(misplaced.type) at byte \(misplaced.offset) written before the media data, planned after it"
        }
        guard writtenTop.map(\.type) == plannedTop.map(\.type) else {
            return "top-level boxes \(writtenTop.map(\.type.description)) written, \(plannedTop.map(\.type.description)) planned"
        }
        for (planned, actual) in zip(plannedTop, writtenTop) {
            let same = planned.isContainer && actual.isContainer
                ? MovieComparison.differingBoxes(planned, actual, path: "", ignoring: FilePointers.pointerBoxes).isEmpty
                : try samePayload(planned, in: writer.topLevelSource, actual, in: written.source)
            if !same { return "top-level box \(actual.type) at byte \(actual.offset) differs from the source's" }
        }
        if let difference = try FilePointers.difference(plannedTop, in: writer.topLevelSource, writtenTop, in: written.source, path: "") {
            return difference
        }
        // moov as the writer builds it (which may rewrite mvhd), its offsets compared with the source's.
        let plannedMoov = layout.moov.children.filter { $0.type != "trak" }
        let writtenMoov = written.moov.children.filter { $0.type != "trak" }
        let boxes = MovieComparison.differingChildren(plannedMoov, writtenMoov, path: "moov/", ignoring: FilePointers.pointerBoxes)
        if !boxes.isEmpty { return "movie boxes differ: \(boxes.joined(separator: ", "))" }
        let sourceMoov = writer.moovTemplate.children.filter { $0.type != "trak" }
        return try FilePointers.difference(sourceMoov, in: writer.topLevelSource, writtenMoov, in: written.source, path: "moov/")
    }

    /// Same type, extended type and payload bytes; a payload left in a file is read from it in pieces.
    static func samePayload(_ a: Box, in sourceA: ByteSource?, _ b: Box, in sourceB: ByteSource) throws -> Bool {
        guard a.type == b.type, a.userType == b.userType, a.payloadSize == b.payloadSize else { return false }
        func reader(_ box: Box, _ source: ByteSource?) throws -> (UInt64, Int) throws -> [UInt8] {
            if case .external(let offset, _) = box.content, let source {
                return { try source.read(at: offset + $0, count: $1) }
            }
            let bytes = try box.serialized(source: source).dropFirst(Int(box.headerSize))
            return { Array(bytes.dropFirst(Int($0)).prefix($1)) }
        }
        let readA = try reader(a, sourceA), readB = try reader(b, sourceB)
        let piece = 1 << 20
        var position: UInt64 = 0
        while position < a.payloadSize {
            let count = Int(min(UInt64(piece), a.payloadSize - position))
            guard try readA(position, count) == readB(position, count) else { return false }
            position += UInt64(count)
        }
        return true
    }
}
