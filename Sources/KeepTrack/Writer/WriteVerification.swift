/// Reads a written movie back and checks it against what the writer meant to write: the file
/// parses, every trak is byte-identical apart from the layout boxes, every sample table describes
/// the same samples, and every sample sits where the chunk plan put it. Optionally hashes every
/// sample on both sides.
public enum WriteVerification {
    public struct Result: Sendable {
        public var tracks: Int
        public var samples: Int
        /// Sample bytes hashed on each side (0 without data verification).
        public var hashedBytes: UInt64
    }

    public static func verify(_ writer: MovieWriter, writtenAt path: String, hashData: Bool) throws -> Result {
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
        var samples = 0
        var hashed: UInt64 = 0
        for (planned, actual) in zip(writer.tracks, written.tracks) {
            let boxes = MovieComparison.differingBoxes(planned.trak, actual.box, path: "", ignoring: MovieComparison.layoutBoxes)
            if !boxes.isEmpty { throw fail("track \(actual.id): boxes differ: \(boxes.joined(separator: ", "))") }
            let left = planned.table
            let right = actual.sampleTable
            guard left.sampleCount == right.sampleCount, left.timeToSample == right.timeToSample,
                  left.compositionOffsets == right.compositionOffsets, left.syncSamples == right.syncSamples else {
                throw fail("track \(actual.id): sample table differs (\(right.sampleCount) samples written, \(left.sampleCount) planned)")
            }
            samples += left.sampleCount
        }
        // Every sample where the plan put it, inside mdat, in plan order.
        let plan = ChunkPlan(tracks: writer.tracks, chunkDuration: writer.options.chunkDuration)
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
                guard sample.offset == position else {
                    throw fail("track \(written.tracks[chunk.track].id) sample \(sample.index + 1) is at byte \(sample.offset), planned \(position)")
                }
                position += UInt64(sample.size)
            }
        }
        guard position <= mdat.payloadOffset + mdat.payloadSize else { throw fail("samples run past the end of mdat") }
        if hashData {
            for (planned, actual) in zip(writer.tracks, written.tracks) {
                let source = written.source
                let (expected, found) = try inParallel({ try SampleDigest.sha256(of: planned.table, in: planned.data) },
                                                       { try SampleDigest.sha256(of: actual.sampleTable, in: source) })
                guard expected == found else {
                    throw fail("track \(actual.id): sample data differs (SHA-256 \(SHA256.hex(found)), source \(SHA256.hex(expected)))")
                }
                hashed += actual.sampleTable.totalBytes
            }
        }
        return Result(tracks: written.tracks.count, samples: samples, hashedBytes: hashed)
    }
}
