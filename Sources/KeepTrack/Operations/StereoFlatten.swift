import Foundation

/// `flatten-stereo`: stereo MV-HEVC video (iPhone 15 Pro and later spatial video, Vision Pro) as plain 2D HEVC,
/// without re-encoding: every sample keeps only its base layer's NAL units (`nuh_layer_id` 0, the base view,
/// usually the left eye), and the sample entry loses what describes the second view and the pair (`lhvC`,
/// `vexu/eyes`; `vexu` itself when nothing else is left in it). What stays true of the one view stays: the
/// projection (`vexu/proj`: a 180° film stays half-equirectangular) and the field of view (`hfov`).
/// Players that mishandle the second layer then get the picture every HEVC decoder already shows; times, sync
/// samples, edit lists and every other track and box pass through as they are.
public enum StereoFlatten {
    /// What goes: the second layer's configuration (a sample-entry child) and the stereo facts (a `vexu` child).
    public static let removedBoxes = ["lhvC", "vexu/eyes"]

    /// What flattening one track did.
    public struct Flattened: Sendable, Equatable {
        public var trackID: UInt32
        public var samples: Int
        public var bytesBefore: UInt64
        public var bytesAfter: UInt64
        /// NAL units of layers above 0 dropped.
        public var droppedUnits: Int
        /// The eye the base view shows: as `stri` says, Apple's default (left) for an `lhvC` without it, nil when
        /// nothing described the second view.
        public var eye: String?
        /// The sample entry described the second layer (`lhvC`); false for one a tool left undescribed.
        public var described: Bool
    }

    /// `flatten-stereo` on one file: writes `output` with every stereo track flattened; nothing when there is none.
    public static func flatten(input: String, output: String, overwrite: Bool) -> BatchOutcome {
        do {
            let movie = try Movie.open(path: input)
            guard !stereoTracks(movie).isEmpty else {
                return BatchOutcome(path: input, action: "none", result: "no stereo (MV-HEVC) video track: nothing written", exitCode: ExitCode.ok)
            }
            try GroupOperations.createFolder(of: output)
            let written = try OutputFile.write(to: output, overwrite: overwrite, inputs: [input]) { try write(movie, to: $0) }
            guard let (summary, flattened) = written else { throw KeepTrackError.io("the stereo tracks went while writing") }
            let described = flattened.map {
                "track \($0.trackID) flattened to 2D (the base view\($0.eye.map { ", \($0) eye" } ?? "")): \($0.samples) samples, \($0.droppedUnits) NAL units of the second view dropped, \($0.bytesAfter) of \($0.bytesBefore) bytes kept; "
                    + ($0.described ? "\(removedBoxes.joined(separator: ", ")) removed" : "the sample entry had no lhvC (a stereo view copied without its description)")
            }
            var outcome = BatchOutcome(path: input, action: "flattened", result: "wrote \(output): " + described.joined(separator: "; "), exitCode: ExitCode.ok)
            outcome.notes = summary.notes
            return outcome
        } catch {
            return BatchOutcome(path: input, action: "flatten-stereo", failure: error)
        }
    }

    /// The tracks to flatten: video whose sample entries describe a second HEVC layer (`lhvC`), and HEVC video
    /// whose samples carry one that nothing describes any more (`undescribedSecondLayer`).
    public static func stereoTracks(_ movie: Movie) -> [Track] {
        movie.tracks.filter { track in
            track.kind == .video && (track.sampleEntries.contains { $0.first("lhvC") != nil } || undescribedSecondLayer(track, in: movie) != nil)
        }
    }

    /// NAL units of layers above 0 in the first sample of an HEVC track whose sample entry has no `lhvC` and whose
    /// parameter sets for those layers are nowhere (neither in `hvcC` nor in the sample): spatial video whose
    /// samples a tool copied without their description (`ffmpeg -c copy` keeps every byte of the second view and
    /// drops `lhvC`, `vexu` and `hfov`), a layer no decoder can decode any more. A layer whose parameter sets are
    /// there is decodable and not counted: an auxiliary layer such as the alpha of Apple's HEVC with alpha must
    /// carry its sets somewhere (no such file was at hand to see where). Nil when
    /// there are none, or the sample cannot be walked. Only the units' length fields and headers are read (a few
    /// bytes each, not a keyframe's megabytes): lint runs this on every HEVC movie of a library.
    public static func undescribedSecondLayer(_ track: Track, in movie: Movie) -> Int? {
        guard track.kind == .video, let entry = track.sampleEntries.first, entry.type == "hvc1" || entry.type == "hev1",
              entry.first("lhvC") == nil, let hvcC = entry.first("hvcC"), hvcC.payload.count >= 23,
              let inConfiguration = layersWithParameterSets(configuration: hvcC.payload, arraysAt: 22), inConfiguration.allSatisfy({ $0 == 0 }),
              let sample = track.sampleTable.samples.first(where: { _ in true }) else { return nil }
        let lengthSize = Int(hvcC.payload[21] & 3) + 1
        var units = 0, upper = 0, describedInBand = false
        let walked: Void? = try? walkUnits(size: Int(sample.size), lengthSize: lengthSize,
                                           head: { ArraySlice(try movie.source.read(at: sample.offset + UInt64($0), count: $1)) },
                                           failure: { KeepTrackError.io($0) }) { unit in
            if unit.layer > 0 {
                // A VPS, SPS or PPS of the layer in the sample itself: described in-band.
                if (32...34).contains(unit.type) { describedInBand = true; return false }
                upper += 1
            }
            units += 1
            return units < 256
        }
        guard walked != nil, !describedInBand else { return nil }
        return upper > 0 ? upper : nil
    }

    /// The `nuh_layer_id` of every parameter set in an HEVC configuration record's arrays (`hvcC`: they start at
    /// byte 22, `lhvC`: at byte 5); nil when the arrays run past the record.
    static func layersWithParameterSets(configuration: [UInt8], arraysAt start: Int) -> [Int]? {
        guard start < configuration.count else { return nil }
        var layers: [Int] = []
        var at = start + 1
        for _ in 0..<configuration[start] {
            guard at + 3 <= configuration.count else { return nil }
            let count = Int(configuration[at + 1]) << 8 | Int(configuration[at + 2])
            at += 3
            for _ in 0..<count {
                guard at + 2 <= configuration.count else { return nil }
                let length = Int(configuration[at]) << 8 | Int(configuration[at + 1])
                guard length >= 2, at + 2 + length <= configuration.count else { return nil }
                layers.append(Int(configuration[at + 2] & 1) << 5 | Int(configuration[at + 3] >> 3))
                at += 2 + length
            }
        }
        return layers
    }

    /// Writes `movie` to `output` with every stereo track flattened; nil (nothing written) when there is none.
    public static func write(_ movie: Movie, to output: OutputFile, options: MovieOutput.Options = MovieOutput.Options()) throws
        -> (summary: MovieOutput.Summary, flattened: [Flattened])? {
        let stereo = stereoTracks(movie)
        guard !stereo.isEmpty else { return nil }
        // The base layers are ranges of the movie's own bytes, which the writer copies from where they are.
        var flattened: [Flattened] = []
        var replacements: [UInt32: OutputTrack] = [:]
        for track in stereo {
            let source = OutputTrack(track, in: movie)  // a fragmented track's table is rebuilt once, here
            let spliced = SplicedByteSource(base: source.data)
            let (table, report) = try baseLayers(of: track, source: source) { ranges in
                var start: UInt64?
                for range in ranges {
                    let at = try spliced.append(offset: range.offset, length: range.length)
                    start = start ?? at
                }
                return start ?? spliced.size
            }
            replacements[track.id] = try replacement(for: track, source: source, table: table, data: spliced)
            flattened.append(report)
        }
        var writer = MovieWriter(passingThrough: movie, options: options.writer)
        writer.tracks = movie.tracks.map { replacements[$0.id] ?? OutputTrack($0, in: movie) }
        return (try MovieOutput.write(writer, into: output, options: options), flattened)
    }

    /// `source` (`track` as the writer would copy it: rebuilt for a fragmented track) with the stereo boxes gone
    /// and `table`'s sizes, reading its samples from `data`.
    static func replacement(for track: Track, source: OutputTrack, table: SampleTable, data: ByteSource) throws -> OutputTrack {
        var trak = track.box
        try removeStereoBoxes(from: &trak)
        var replacement = source
        if let refusal = replacement.refusal { throw KeepTrackError.unsupported("track \(track.id): \(refusal)") }
        replacement.trak = try withEntries(of: trak, in: replacement.trak)
        try replacement.trak.modifySampleTable { children in
            var stsz = SampleSizeBox()
            stsz.sampleCount = UInt32(table.sampleCount)
            stsz.sizes = table.sizes
            let rebuilt = Box(type: "stsz", bytes: try stsz.encoded())
            guard let index = children.firstIndex(where: { $0.type == "stsz" || $0.type == "stz2" }) else {
                throw KeepTrackError.malformed(path: track.path, offset: track.box.offset, reason: "track \(track.id) has no stsz")
            }
            children[index] = rebuilt
        }
        replacement.table = table
        replacement.data = data
        // Only the sizes changed: every other fact of every sample is still checked against the source.
        replacement.sampleFactsSource = track.id
        replacement.sampleSizesChanged = true
        return replacement
    }

    /// Hands where the base layer of every sample of `track` is (ranges of the track's data, length fields
    /// and all) to `append`, which returns where it puts them; the table of the copies (one sample a chunk,
    /// times and flags as they were) and what was dropped.
    static func baseLayers(of track: Track, source: OutputTrack,
                           append: ([(offset: UInt64, length: UInt64)]) throws -> UInt64) throws -> (SampleTable, Flattened) {
        guard let entry = track.sampleEntries.first(where: { $0.first("lhvC") != nil }) ?? track.sampleEntries.first,
              let hvcC = entry.first("hvcC") else {
            throw KeepTrackError.malformed(path: track.path, offset: track.box.offset, reason: "track \(track.id): a second HEVC layer without an hvcC")
        }
        let configuration = hvcC.payload
        let entryPath = "\(track.path)/mdia/minf/stbl/stsd/\(entry.type)"
        guard configuration.count >= 23 else {
            throw KeepTrackError.malformed(path: entryPath + "/hvcC", offset: hvcC.offset, reason: "track \(track.id): hvcC of \(configuration.count) bytes (at least 23)")
        }
        let lengthSize = Int(configuration[21] & 3) + 1
        // Both layers' NAL units carry length fields of one size; a second record saying otherwise leaves the
        // samples ambiguous, and a guess would cut them wrongly.
        if let lhvC = entry.first("lhvC"), lhvC.payload.count >= 5, Int(lhvC.payload[4] & 3) + 1 != lengthSize {
            throw KeepTrackError.malformed(path: entryPath + "/lhvC", offset: lhvC.offset,
                                           reason: "track \(track.id): lhvC says \(Int(lhvC.payload[4] & 3) + 1)-byte NAL lengths, hvcC \(lengthSize)-byte")
        }
        let old = source.table
        var sizes: [UInt32] = [], offsets: [UInt64] = [], stsc: [UInt32] = []
        sizes.reserveCapacity(old.sampleCount)
        offsets.reserveCapacity(old.sampleCount)
        let described = entry.first("lhvC") != nil
        var report = Flattened(trackID: track.id, samples: old.sampleCount, bytesBefore: 0, bytesAfter: 0, droppedUnits: 0,
                               eye: track.stereo.map { $0.eyeViewsReversed ? "right" : "left" } ?? (described ? "left" : nil), described: described)
        for sample in old.samples {
            let bytes = try source.data.read(at: sample.offset, count: Int(sample.size))
            let kept = try baseLayer(of: bytes, lengthSize: lengthSize, dropped: &report.droppedUnits) {
                KeepTrackError.malformed(path: track.path, offset: sample.offset,
                                         reason: "track \(track.id) sample \(sample.index + 1): \($0)")
            }.map { (offset: sample.offset + UInt64($0.lowerBound), length: UInt64($0.count)) }
            guard !kept.isEmpty else {
                throw KeepTrackError.malformed(path: track.path, offset: sample.offset,
                                               reason: "track \(track.id) sample \(sample.index + 1) has no base-layer NAL unit: flattening would leave it empty")
            }
            let keptSize = kept.reduce(0) { $0 + $1.length }
            offsets.append(try append(kept))
            sizes.append(UInt32(keptSize))
            report.bytesBefore += UInt64(sample.size)
            report.bytesAfter += keptSize
            if stsc.count < 3 || stsc[stsc.count - 1] != sample.descriptionIndex {
                stsc += [UInt32(offsets.count), 1, sample.descriptionIndex]
            }
        }
        var table = SampleTable(sampleCount: old.sampleCount, sizes: sizes, constantSize: 0, chunkOffsets: offsets, sampleToChunk: stsc,
                                timeToSample: old.timeToSample, compositionOffsets: old.compositionOffsets,
                                compositionOffsetsSigned: old.compositionOffsetsSigned, syncSamples: old.syncSamples,
                                usesLargeOffsets: old.usesLargeOffsets)
        table.dependencies = old.dependencies
        table.firstDecodeTime = old.firstDecodeTime
        return (table, report)
    }

    /// One NAL unit of a length-prefixed sample: where it starts (its length field) and ends, its type and layer.
    struct Unit {
        var start: Int, end: Int, type: Int, layer: Int
    }

    /// Walks the NAL units of a length-prefixed sample of `size` bytes, reading only each unit's length field and
    /// 2-byte header through `head(position, count)`; `visit` returns false to stop. Throws what `failure` makes of
    /// a length that runs past the sample.
    static func walkUnits(size: Int, lengthSize: Int, head: (Int, Int) throws -> ArraySlice<UInt8>,
                          failure: (String) -> KeepTrackError, visit: (Unit) throws -> Bool) throws {
        var position = 0
        while position < size {
            guard size - position >= lengthSize + 2 else {
                throw failure("\(size - position) bytes left at byte \(position), less than a \(lengthSize)-byte NAL length and a header")
            }
            let bytes = try head(position, lengthSize + 2)
            let length = bytes.prefix(lengthSize).reduce(0) { $0 << 8 | Int($1) }
            let start = position + lengthSize
            guard length >= 2, length <= size - start else {
                throw failure("a NAL unit of \(length) bytes at byte \(position) (\(size - start) left, at least 2 needed)")
            }
            let header = bytes.dropFirst(lengthSize)
            let first = Int(header[header.startIndex]), second = Int(header[header.startIndex + 1])
            guard try visit(Unit(start: position, end: start + length, type: first >> 1 & 63, layer: (first & 1) << 5 | second >> 3)) else { return }
            position = start + length
        }
    }

    /// Where the NAL units of layer 0 are in one length-prefixed sample, each with its length field, adjacent
    /// ones joined. `failure` names what is wrong when a length runs past the sample.
    static func baseLayer(of sample: [UInt8], lengthSize: Int, dropped: inout Int, failure: (String) -> KeepTrackError) throws -> [Range<Int>] {
        var kept: [Range<Int>] = []
        try walkUnits(size: sample.count, lengthSize: lengthSize, head: { sample[$0..<($0 + $1)] }, failure: failure) { unit in
            if unit.layer > 0 {
                dropped += 1
            } else if let last = kept.last, last.upperBound == unit.start {
                kept[kept.count - 1] = last.lowerBound..<unit.end
            } else {
                kept.append(unit.start..<unit.end)
            }
            return true
        }
        return kept
    }

    /// `trak` with every sample entry's `lhvC` and `vexu/eyes` removed (and a `vexu` left empty).
    static func removeStereoBoxes(from trak: inout Box) throws {
        try trak.modifySampleTable { children in
            for index in children.indices where children[index].type == "stsd" {
                try children[index].modifyChildren { entries in
                    for entry in entries.indices where entries[entry].isContainer {
                        entries[entry].modifyChildren { boxes in
                            boxes.removeAll { $0.type == "lhvC" }
                            for box in boxes.indices where boxes[box].type == "vexu" && boxes[box].isContainer {
                                boxes[box].modifyChildren { $0.removeAll { $0.type == "eyes" } }
                            }
                            boxes.removeAll { $0.type == "vexu" && $0.isContainer && $0.children.isEmpty }
                        }
                    }
                }
            }
        }
    }

    /// `target` with the `stsd` of `source` (both the same track's `trak`).
    static func withEntries(of source: Box, in target: Box) throws -> Box {
        guard let stsd = source.find(["mdia", "minf", "stbl", "stsd"]) else { return target }
        var result = target
        try result.modifySampleTable { children in
            for index in children.indices where children[index].type == "stsd" { children[index] = stsd }
        }
        return result
    }
}
