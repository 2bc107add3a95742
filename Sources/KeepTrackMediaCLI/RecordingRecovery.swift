import KeepTrack
import KeepTrackCodec

/// `repair`'s work: the broken file's samples found with the reference (RecordingRepair), checked by
/// decoding (RecoveredSampleCheck), written with the reference's tracks through the movie writer.
struct RecordingRecovery {
    struct TrackResult {
        var id: UInt32
        var format: String
        var found: Int
        var written: Int
        /// How the written samples were checked: "decoded", or why they could not be.
        var check: String
        var failure: String?
        var unplacedBytes: UInt64
        /// Video samples that decode but were left out at the end: shown after pictures that were cut off.
        var heldBack = 0
    }

    var tracks: [TrackResult] = []
    var unplaced: [RecordingRepair.Unplaced] = []
    var data: Range<UInt64>
    var summary: MovieOutput.Summary?

    init(broken: String, reference referencePath: String, output: String, overwrite: Bool) throws {
        let reference = try RecordingReference(movie: Movie.open(path: referencePath))
        let source = ReadAheadByteSource(try FileByteSource(path: broken))
        var finders: [UInt32: RecoveredSampleCheck.AACFrameFinder] = [:]
        for shape in reference.tracks where shape.syntax == .aac { finders[shape.id] = try? RecoveredSampleCheck.AACFrameFinder(shape: shape, source: source) }
        let walk = try RecordingRepair(broken: source, reference: reference) { shape, offset in
            finders[shape.id]?.frameLength(at: offset, largest: Int(shape.largestSample) * 2 + 16)
        }
        data = walk.data
        unplaced = walk.unplaced
        var outputs: [OutputTrack] = []
        for shape in reference.tracks {
            var recovered = RecoveredTrack(shape: shape, runs: walk.samples(of: shape.id))
            let unplacedBytes = walk.unplaced.filter { $0.track == shape.id }.reduce(0) { $0 + $1.length }
            var result = TrackResult(id: shape.id, format: shape.track.format?.description ?? "?", found: recovered.count, written: 0,
                                     check: "", unplacedBytes: unplacedBytes)
            var ranks: [Int]?
            var reorderDelay = 0
            switch shape.syntax {
            case .avc, .hevc, .aac:
                do {
                    let outcome = try RecoveredSampleCheck.decode(recovered, source: source)
                    recovered.keepFirst(outcome.decodedCount)
                    result.failure = outcome.failure
                    result.heldBack = outcome.heldBack
                    ranks = outcome.presentationRanks
                    reorderDelay = outcome.reorderDelay
                    result.check = "decoded by libavcodec"
                } catch let error as CodecError {
                    // No decoder here: nothing is written unchecked.
                    recovered.keepFirst(0)
                    result.check = "not written: \(error.description)"
                }
            case .keyedMetadata:
                result.check = "placed by their item structure and the constant size of the reference's samples (not decodable)"
            case .opaque:
                result.check = unplacedBytes > 0
                    ? "not placed: its chunks were located by the reference's chunk pattern, but its samples carry no length and no decoder here finds their ends"
                    : "not found"
            }
            result.written = recovered.count
            tracks.append(result)
            if recovered.count > 0 {
                outputs.append(try recovered.outputTrack(source: source, movieTimescale: reference.movie.header.timescale, presentationRanks: ranks, reorderDelay: reorderDelay))
            }
        }
        guard !outputs.isEmpty else {
            throw KeepTrackError.malformed(path: "mdat", offset: walk.data.lowerBound,
                reason: "no sample of any reference track was found in the \(walk.data.count) bytes of media data")
        }
        var moov = reference.movie.moov
        // The reference's movie metadata (place, time, device) describes the reference recording.
        try moov.modifyChildren { children in children.removeAll { $0.type == "meta" || $0.type == "udta" } }
        var writer = MovieWriter(fileType: reference.movie.boxes.first { $0.type == "ftyp" }, moovTemplate: moov, tracks: outputs)
        writer.defragments = true
        summary = try MovieOutput.write(writer, to: output, inputs: [broken, referencePath], overwriting: overwrite)
    }
}
