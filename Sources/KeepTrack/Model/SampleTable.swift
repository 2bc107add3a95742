/// One sample as the tables describe it. A value type produced while iterating; nothing is allocated per sample.
public struct Sample: Sendable, Equatable {
    /// 0-based index in decode order.
    public var index: Int
    /// Absolute byte offset in the file.
    public var offset: UInt64
    public var size: UInt32
    /// Decode time in media time scale units.
    public var decodeTime: UInt64
    /// Composition offset (presentation time = decodeTime + compositionOffset).
    public var compositionOffset: Int64
    public var isSync: Bool
    /// 0-based chunk index.
    public var chunk: Int
    /// 1-based sample description index.
    public var descriptionIndex: UInt32
}

/// The decoded sample tables of one track, in compact arrays.
public struct SampleTable: Sendable {
    public let sampleCount: Int
    /// Per-sample sizes, empty when every sample has `constantSize`.
    public let sizes: [UInt32]
    /// Settable for the QuickTime convention of `stsz` size 1 for uncompressed audio (Track).
    public internal(set) var constantSize: UInt32
    public let chunkOffsets: [UInt64]
    /// (firstChunk, samplesPerChunk, descriptionIndex) triples, as in `stsc`.
    public let sampleToChunk: [UInt32]
    /// (count, delta) pairs, as in `stts`.
    public let timeToSample: [UInt32]
    /// (count, offset) pairs, as in `ctts`; empty when absent.
    public let compositionOffsets: [UInt32]
    public let compositionOffsetsSigned: Bool
    /// 1-based sync sample numbers; nil when every sample is a sync sample (no `stss`).
    public let syncSamples: [UInt32]?
    public let usesLargeOffsets: Bool
    /// One `sdtp` byte per sample (is_leading, depends_on, is_depended_on, has_redundancy), kept for
    /// tables built from fragments; empty when unknown (a table read from `stbl` leaves `sdtp` in its box).
    public var dependencies: [UInt8] = []
    /// Decode time of the first sample: 0 in `stbl`; a fragmented track's first `tfdt` may start later.
    public var firstDecodeTime: UInt64 = 0
    /// Where each table box (`stsz`, `stsc`, `stco`, ...) started in the file, so errors point at the box itself.
    public var boxOffsets: [FourCC: UInt64] = [:]

    public init(sampleCount: Int, sizes: [UInt32], constantSize: UInt32, chunkOffsets: [UInt64], sampleToChunk: [UInt32],
                timeToSample: [UInt32], compositionOffsets: [UInt32] = [], compositionOffsetsSigned: Bool = false,
                syncSamples: [UInt32]? = nil, usesLargeOffsets: Bool = false) {
        self.sampleCount = sampleCount
        self.sizes = sizes
        self.constantSize = constantSize
        self.chunkOffsets = chunkOffsets
        self.sampleToChunk = sampleToChunk
        self.timeToSample = timeToSample
        self.compositionOffsets = compositionOffsets
        self.compositionOffsetsSigned = compositionOffsetsSigned
        self.syncSamples = syncSamples
        self.usesLargeOffsets = usesLargeOffsets
    }

    /// Reads the tables of an `stbl` box, checking that every count is backed by bytes.
    public init(stbl: Box, path: String) throws {
        func view<V: BoxView>(_ type: V.Type, _ fourCC: FourCC) throws -> V? {
            guard let box = stbl.first(fourCC) else { return nil }
            return try V(box: box, path: path + "/" + fourCC.description)
        }
        let missing = { (name: String) in KeepTrackError.malformed(path: path, offset: stbl.offset, reason: "sample table has no \(name)") }
        // A second copy of a table is read by no one the same way (keeptrack read the first ctts, ffmpeg the last, and a
        // remux copied both): refused, naming both. Found by a damage sweep (2026-12-05).
        for type in ["stsz", "stz2", "stco", "co64", "stsc", "stts", "ctts", "stss"] as [FourCC] {
            let copies = stbl.all(type)
            if copies.count > 1 {
                throw KeepTrackError.malformed(path: path + "/" + type.description, offset: copies[1].offset,
                    reason: "is a second \(type) in the sample table (the first at byte \(copies[0].offset))")
            }
        }
        var sizes: [UInt32] = []
        var constant: UInt32 = 0
        var count = 0
        if let stsz = try view(SampleSizeBox.self, "stsz") {
            constant = stsz.constantSize
            sizes = stsz.sizes
            count = Int(stsz.sampleCount)
        } else if let stz2 = try view(CompactSampleSizeBox.self, "stz2") {
            sizes = try stz2.sizes()
            count = sizes.count
        } else {
            throw missing("stsz or stz2")
        }
        var offsets: [UInt64]
        var large = false
        if let stco = try view(ChunkOffsetBox.self, "stco") {
            offsets = stco.offsets.map(UInt64.init)
        } else if let co64 = try view(ChunkLargeOffsetBox.self, "co64") {
            offsets = co64.offsets
            large = true
        } else {
            throw missing("stco or co64")
        }
        guard let stsc = try view(SampleToChunkBox.self, "stsc") else { throw missing("stsc") }
        guard let stts = try view(TimeToSampleBox.self, "stts") else { throw missing("stts") }
        let ctts = try view(CompositionOffsetBox.self, "ctts")
        let stss = try view(SyncSampleBox.self, "stss")
        self.init(sampleCount: count, sizes: sizes, constantSize: constant, chunkOffsets: offsets, sampleToChunk: stsc.triples,
                  timeToSample: stts.pairs, compositionOffsets: ctts?.pairs ?? [], compositionOffsetsSigned: (ctts?.header.version ?? 0) == 1,
                  syncSamples: stss?.sampleNumbers, usesLargeOffsets: large)
        for child in stbl.children where boxOffsets[child.type] == nil { boxOffsets[child.type] = child.offset }
        try validate(path: path, offset: stbl.offset)
    }

    public func size(of index: Int) -> UInt32 { sizes.isEmpty ? constantSize : sizes[index] }

    public var totalBytes: UInt64 {
        sizes.isEmpty ? UInt64(constantSize) * UInt64(sampleCount) : sizes.reduce(0) { $0 + UInt64($1) }
    }

    /// Sum of all decode deltas, in media time scale units.
    public var mediaDuration: UInt64 {
        // Saturates instead of trapping: a lying stts must not crash a report.
        stride(from: 0, to: timeToSample.count - 1, by: 2).reduce(UInt64(0)) { total, run in
            let (sum, overflow) = total.addingReportingOverflow(UInt64(timeToSample[run]) * UInt64(timeToSample[run + 1]))
            return overflow ? UInt64.max : sum
        }
    }

    /// Checks that the tables agree with each other. File bounds are checked by `validate(fileSize:)`.
    func validate(path: String, offset: UInt64) throws {
        func fail(_ box: FourCC, _ reason: String) -> KeepTrackError {
            .malformed(path: path + "/" + box.description, offset: boxOffsets[box] ?? offset, reason: reason)
        }
        let sizeBox: FourCC = boxOffsets["stz2"] != nil && boxOffsets["stsz"] == nil ? "stz2" : "stsz"
        if !sizes.isEmpty, sizes.count != sampleCount { throw fail(sizeBox, "has \(sizes.count) sizes for \(sampleCount) samples") }
        let sttsTotal = stride(from: 0, to: timeToSample.count, by: 2).reduce(UInt64(0)) { $0 + UInt64(timeToSample[$1]) }
        if sttsTotal != UInt64(sampleCount) { throw fail("stts", "describes \(sttsTotal) samples, \(sizeBox) has \(sampleCount)") }
        if !compositionOffsets.isEmpty {
            let total = stride(from: 0, to: compositionOffsets.count, by: 2).reduce(UInt64(0)) { $0 + UInt64(compositionOffsets[$1]) }
            if total != UInt64(sampleCount) { throw fail("ctts", "describes \(total) samples, \(sizeBox) has \(sampleCount)") }
        }
        if let syncSamples {
            var previous: UInt32 = 0
            for number in syncSamples {
                guard number >= 1, number <= sampleCount else { throw fail("stss", "sync sample \(number) is outside 1...\(sampleCount)") }
                guard number > previous else { throw fail("stss", "sync sample numbers are not increasing at \(number)") }
                previous = number
            }
        }
        // stsc: first chunks increase from 1 and stay within the chunk list; the runs cover exactly the samples.
        var mapped: UInt64 = 0
        let runs = sampleToChunk.count / 3
        if sampleCount > 0 && runs == 0 { throw fail("stsc", "is empty but there are \(sampleCount) samples") }
        for run in 0..<runs {
            let first = UInt64(sampleToChunk[run * 3])
            let perChunk = UInt64(sampleToChunk[run * 3 + 1])
            let description = sampleToChunk[run * 3 + 2]
            if run == 0, first != 1 { throw fail("stsc", "first entry starts at chunk \(first), not 1") }
            let next = run + 1 < runs ? UInt64(sampleToChunk[(run + 1) * 3]) : UInt64(chunkOffsets.count) + 1
            guard first <= UInt64(chunkOffsets.count) else {
                throw fail("stsc", "entry \(run + 1) points at chunk \(first), there are \(chunkOffsets.count)")
            }
            guard first >= 1, next > first else { throw fail("stsc", "entry \(run + 1) has first chunk \(first), not before \(next)") }
            guard description >= 1 else { throw fail("stsc", "entry \(run + 1) has sample description index 0") }
            let chunks = min(next, UInt64(chunkOffsets.count) + 1) - first
            let (product, overflow) = chunks.multipliedReportingOverflow(by: perChunk)
            let (sum, sumOverflow) = mapped.addingReportingOverflow(product)
            mapped = overflow || sumOverflow ? UInt64.max : sum
        }
        if mapped != UInt64(sampleCount) {
            throw fail("stsc", "maps \(mapped == UInt64.max ? "more than 2^64" : String(mapped)) samples into \(chunkOffsets.count) chunks, \(sizeBox) has \(sampleCount)")
        }
    }

    /// Checks that every chunk lies inside a file of `fileSize` bytes.
    public func validate(fileSize: UInt64, path: String, offset: UInt64) throws {
        var iterator = makeChunkIterator()
        while let chunk = iterator.next() {
            let (end, overflow) = chunk.offset.addingReportingOverflow(chunk.byteCount)
            if overflow || end > fileSize {
                let box: FourCC = usesLargeOffsets ? "co64" : "stco"
                throw KeepTrackError.malformed(path: path + "/" + box.description, offset: boxOffsets[box] ?? offset,
                    reason: "chunk \(chunk.index + 1) at \(chunk.offset) with \(chunk.byteCount) bytes runs past the end of the file (\(fileSize) bytes)")
            }
        }
    }

    // MARK: Iteration

    public var samples: SampleSequence { SampleSequence(table: self) }

    public struct SampleSequence: Sequence {
        let table: SampleTable
        public func makeIterator() -> SampleIterator { SampleIterator(table: table) }
    }

    /// Walks samples in decode order; table validation guarantees the indices stay in range.
    public struct SampleIterator: IteratorProtocol {
        let table: SampleTable
        var index = 0
        var chunk = 0
        var remainingInChunk = 0
        var offsetInChunk: UInt64 = 0
        var stscRun = -1
        var description: UInt32 = 1
        var sttsRun = 0
        var sttsLeft = 0
        var decodeTime: UInt64 = 0
        var cttsRun = 0
        var cttsLeft = 0
        var syncCursor = 0
        var chunkOffset: UInt64 = 0

        init(table: SampleTable) {
            self.table = table
            chunk = -1
            decodeTime = table.firstDecodeTime
            sttsLeft = table.timeToSample.isEmpty ? 0 : Int(table.timeToSample[0])
            cttsLeft = table.compositionOffsets.isEmpty ? 0 : Int(table.compositionOffsets[0])
        }

        public mutating func next() -> Sample? {
            guard index < table.sampleCount else { return nil }
            while remainingInChunk == 0 {
                chunk += 1
                guard chunk < table.chunkOffsets.count else { return nil }
                let runs = table.sampleToChunk.count / 3
                while stscRun + 1 < runs, Int(table.sampleToChunk[(stscRun + 1) * 3]) - 1 <= chunk { stscRun += 1 }
                guard stscRun >= 0 else { return nil }
                remainingInChunk = Int(table.sampleToChunk[stscRun * 3 + 1])
                description = table.sampleToChunk[stscRun * 3 + 2]
                chunkOffset = table.chunkOffsets[chunk]
                offsetInChunk = 0
            }
            while sttsLeft == 0, sttsRun * 2 + 2 < table.timeToSample.count {
                sttsRun += 1
                sttsLeft = Int(table.timeToSample[sttsRun * 2])
            }
            var composition: Int64 = 0
            if !table.compositionOffsets.isEmpty {
                while cttsLeft == 0, cttsRun * 2 + 2 < table.compositionOffsets.count {
                    cttsRun += 1
                    cttsLeft = Int(table.compositionOffsets[cttsRun * 2])
                }
                let raw = table.compositionOffsets[cttsRun * 2 + 1]
                composition = table.compositionOffsetsSigned || raw > UInt32(Int32.max) ? Int64(Int32(bitPattern: raw)) : Int64(raw)
                cttsLeft -= 1
            }
            var isSync = true
            if let sync = table.syncSamples {
                while syncCursor < sync.count, Int(sync[syncCursor]) < index + 1 { syncCursor += 1 }
                isSync = syncCursor < sync.count && Int(sync[syncCursor]) == index + 1
            }
            let size = table.size(of: index)
            let sample = Sample(index: index, offset: chunkOffset &+ offsetInChunk, size: size, decodeTime: decodeTime,
                                compositionOffset: composition, isSync: isSync, chunk: chunk, descriptionIndex: description)
            decodeTime &+= table.timeToSample.isEmpty ? 0 : UInt64(table.timeToSample[sttsRun * 2 + 1])
            sttsLeft -= 1
            offsetInChunk &+= UInt64(size)
            remainingInChunk -= 1
            index += 1
            return sample
        }
    }

    public struct Chunk: Sendable, Equatable {
        public var index: Int
        public var offset: UInt64
        public var firstSample: Int
        public var sampleCount: Int
        public var byteCount: UInt64
        public var descriptionIndex: UInt32
    }

    public func makeChunkIterator() -> ChunkIterator { ChunkIterator(table: self) }

    /// Walks chunks with their byte extent (sum of their samples' sizes).
    public struct ChunkIterator: IteratorProtocol {
        let table: SampleTable
        var chunk = 0
        var sample = 0
        var stscRun = -1

        public mutating func next() -> Chunk? {
            guard chunk < table.chunkOffsets.count, sample < table.sampleCount else { return nil }
            let runs = table.sampleToChunk.count / 3
            while stscRun + 1 < runs, Int(table.sampleToChunk[(stscRun + 1) * 3]) - 1 <= chunk { stscRun += 1 }
            guard stscRun >= 0 else { return nil }
            let count = min(Int(table.sampleToChunk[stscRun * 3 + 1]), table.sampleCount - sample)
            var bytes: UInt64 = 0
            if table.sizes.isEmpty {
                bytes = UInt64(table.constantSize) * UInt64(count)
            } else {
                for index in sample..<sample + count { bytes += UInt64(table.sizes[index]) }
            }
            let result = Chunk(index: chunk, offset: table.chunkOffsets[chunk], firstSample: sample, sampleCount: count,
                               byteCount: bytes, descriptionIndex: table.sampleToChunk[stscRun * 3 + 2])
            sample += count
            chunk += 1
            return result
        }
    }
}
