/// Every sample's facts read straight from a file's boxes by a reader of its own: size, duration,
/// composition offset, sync flag, dependency byte, sample description and sample-group membership,
/// from `moov`'s sample tables and then every `moof`'s runs.
///
/// It shares no code with `BoxParser`, `SampleTable`, `FragmentTableBuilder` or `SampleGroups`, which
/// is the point: a writer verified through the reader that built its tables agrees with its own
/// mistakes (a defragmented `sdtp` once lost its first byte that way, and the write verification and
/// `compare` both called the copy identical). Comparing two accounts gives a second opinion.
public struct SampleAccount: Sendable {
    public struct Sample: Equatable, Sendable {
        public var size: UInt32
        /// Decode time of the next sample minus this one's (the last sample: its own recorded duration).
        public var duration: UInt32
        /// The offset's 32 bits as stored (ctts version 0 and 1, trun version 0 and 1 alike).
        public var compositionOffset: UInt32
        public var isSync: Bool
        /// sdtp's byte: is_leading, depends_on, is_depended_on, has_redundancy (2 bits each).
        public var dependencies: UInt8
        public var descriptionIndex: UInt32
        /// Index into the track's `groupSignatures`; -1: in no sample group.
        public var groups: Int32
    }

    /// `count` samples alike, one after another.
    public struct Run: Equatable, Sendable {
        public var count: Int
        public var sample: Sample
    }

    /// A track's samples as runs of samples alike, so a track of a million LPCM frames of one size is
    /// one run: memory follows the boxes' bytes, never the sample count a table claims.
    public struct TrackAccount: Sendable {
        public var id: UInt32
        public private(set) var runs: [Run] = []
        public private(set) var sampleCount = 0
        /// Each distinct membership: `type[/parameter]=entry bytes in hex`, sorted, joined with spaces.
        public var groupSignatures: [String] = []
        /// The track's `trex` payload, when `mvex` has one.
        public var extends: [UInt8]?
        /// Decode time after the last sample.
        var end: UInt64 = 0
        /// moov's sgpd boxes, which fragment sbgp indexes 1...0x10000 point into.
        var movieGroupDescriptions: [RawBox] = []
        var signatureIndex: [String: Int32] = [:]

        public init(id: UInt32) { self.id = id }

        public func groups(of sample: Sample) -> String { sample.groups < 0 ? "none" : groupSignatures[Int(sample.groups)] }

        /// Every sample, one by one (tests and small files: a run may stand for millions).
        public func expandedSamples() -> [Sample] { runs.flatMap { repeatElement($0.sample, count: $0.count) } }

        mutating func intern(_ signature: String?) -> Int32 {
            guard let signature else { return -1 }
            if let index = signatureIndex[signature] { return index }
            let index = Int32(groupSignatures.count)
            groupSignatures.append(signature)
            signatureIndex[signature] = index
            return index
        }

        mutating func append(_ sample: Sample, count: Int = 1) {
            guard count > 0 else { return }
            if let last = runs.indices.last, runs[last].sample == sample { runs[last].count += count } else { runs.append(Run(count: count, sample: sample)) }
            sampleCount += count
            end &+= UInt64(sample.duration) &* UInt64(count)
        }

        /// The runs of the last `count` samples, taken off the track (to be changed and appended again).
        mutating func removeLast(_ count: Int) -> [Run] {
            var taken: [Run] = []
            var left = count
            while left > 0, var last = runs.popLast() {
                let part = min(left, last.count)
                taken.append(Run(count: part, sample: last.sample))
                last.count -= part
                if last.count > 0 { runs.append(last) }
                left -= part
                sampleCount -= part
                end &-= UInt64(last.sample.duration) &* UInt64(part)
            }
            return taken.reversed()
        }
    }

    public private(set) var tracks: [UInt32: TrackAccount] = [:]
    public private(set) var fragmentCount = 0
    public private(set) var hasMovieExtends = false
    /// mvhd's duration field says "unknown" (all ones for its version).
    public private(set) var movieDurationUnknown = false

    public init(source: ByteSource) throws {
        var position: UInt64 = 0
        while position + 8 <= source.size {
            // A box running past the end (a cut-short mdat) ends the walk.
            guard let header = try RawBox.header(in: source, at: position) else { break }
            if header.type == "moov" || header.type == "moof" {
                let box = try RawBox(type: header.type, bytes: source.read(at: position + header.headerSize, count: Int(header.size - header.headerSize)),
                                     offset: position + header.headerSize)
                if header.type == "moov" { try readMovie(box) } else { fragmentCount += 1; try readFragment(box, fileSize: source.size) }
            }
            position += header.size
        }
    }

    // MARK: moov

    mutating func readMovie(_ moov: RawBox) throws {
        for child in try moov.children() {
            switch child.type {
            case "mvhd":
                let version = try child.u8(0)
                movieDurationUnknown = version == 1 ? try child.u64(4 + 24) == UInt64.max : try child.u32(4 + 16) == UInt32.max
            case "trak":
                var track = try readTrack(child)
                track.extends = tracks[track.id]?.extends
                tracks[track.id] = track
            case "mvex":
                hasMovieExtends = true
                for trex in try child.children() where trex.type == "trex" {
                    let id = try trex.u32(4)
                    tracks[id, default: TrackAccount(id: id)].extends = Array(trex.bytes)
                }
            default: continue
            }
        }
    }

    func readTrack(_ trak: RawBox) throws -> TrackAccount {
        guard let tkhd = try trak.child("tkhd") else { throw trak.fail("no tkhd") }
        var track = TrackAccount(id: try tkhd.u32(try tkhd.u8(0) == 1 ? 20 : 12))
        guard let stbl = try trak.child("mdia")?.child("minf")?.child("stbl") else { return track }
        let boxes = try stbl.children()
        let table = StblBoxes(boxes)
        track.movieGroupDescriptions = boxes.filter { $0.type == "sgpd" }
        let count = try table.sampleCount()
        guard count > 0 else { return track }
        let groups = try SampleGroupReader(boxes, movieDescriptions: nil).membership(count)
        var merge = RunMerge(count: count)
        merge.add(try table.sizes(count))
        merge.add(try table.runs(table.stts, count: count))
        merge.add(try table.runs(table.ctts, count: count))
        merge.add(try table.syncSamples(count))
        merge.add(table.dependencies(count))
        merge.add(try table.descriptionIndexes(count))
        let signatures = groups.map { run in ValueRun(count: run.count, value: UInt64(bitPattern: Int64(track.intern(run.value)))) }
        merge.add(signatures)
        merge.forEach { count, values in
            track.append(Sample(size: UInt32(values[0]), duration: UInt32(values[1]), compositionOffset: UInt32(values[2]), isSync: values[3] != 0,
                                dependencies: UInt8(values[4]), descriptionIndex: UInt32(values[5]), groups: Int32(Int64(bitPattern: values[6]))),
                         count: count)
        }
        return track
    }

    // MARK: moof

    mutating func readFragment(_ moof: RawBox, fileSize: UInt64) throws {
        for traf in try moof.children() where traf.type == "traf" {
            // Parsed once: the lookups below all read this traf's children.
            let boxes = try traf.children()
            guard let tfhd = boxes.first(where: { $0.type == "tfhd" }) else { throw traf.fail("no tfhd") }
            let flags = try tfhd.u32(0) & 0xFFFFFF
            let id = try tfhd.u32(4)
            // Taken out while it grows: a copy left in the dictionary would make every append copy the runs.
            var track = tracks.removeValue(forKey: id) ?? TrackAccount(id: id)
            let trex = track.extends.map { RawBox(bytes: $0[...], offset: 0) }
            var field = 8
            func next(_ flag: UInt32, bytes: Int) throws -> UInt64? {
                guard flags & flag != 0 else { return nil }
                defer { field += bytes }
                return bytes == 8 ? try tfhd.u64(field) : UInt64(try tfhd.u32(field))
            }
            _ = try next(0x1, bytes: 8)
            let description = try next(0x2, bytes: 4).map(UInt32.init) ?? (try trex?.u32(8) ?? 0)
            let defaultDuration = try next(0x8, bytes: 4).map(UInt32.init) ?? (try trex?.u32(12) ?? 0)
            let defaultSize = try next(0x10, bytes: 4).map(UInt32.init) ?? (try trex?.u32(16) ?? 0)
            let defaultFlags = try next(0x20, bytes: 4).map(UInt32.init) ?? (try trex?.u32(20) ?? 0)
            if let tfdt = boxes.first(where: { $0.type == "tfdt" }) {
                track.startNext(at: try tfdt.u8(0) == 1 ? try tfdt.u64(4) : UInt64(try tfdt.u32(4)))
            }
            let first = track.sampleCount
            var runs = 0
            for trun in boxes where trun.type == "trun" {
                runs += 1
                try Self.readRun(trun, into: &track, defaults: (description, defaultDuration, defaultSize, defaultFlags), fileSize: fileSize)
            }
            if runs == 0, flags & 0x10000 != 0, defaultDuration > 0 { track.startNext(at: track.end &+ UInt64(defaultDuration)) }
            let added = track.sampleCount - first
            if added > 0 {
                let sdtp = boxes.first(where: { $0.type == "sdtp" }).map { Array($0.bytes.dropFirst(4).prefix(added)) } ?? []
                let groups = try SampleGroupReader(boxes, movieDescriptions: track.movieGroupDescriptions).membership(added)
                if !sdtp.isEmpty || groups.contains(where: { $0.value != nil }) {
                    let tail = track.removeLast(added)
                    var merge = RunMerge(count: added)
                    merge.add(tail.map { ValueRun(count: $0.count, value: UInt64($0.sample.dependencies)) })
                    merge.add(sdtp.map { ValueRun(count: 1, value: UInt64($0)) })
                    merge.add(groups.map { ValueRun(count: $0.count, value: UInt64(bitPattern: Int64(track.intern($0.value)))) })
                    var samples = tail.flatMap { run in [(run.count, run.sample)] }.makeIterator()
                    var current = samples.next()
                    merge.forEach { count, values in
                        var left = count
                        while left > 0, let (available, sample) = current {
                            let part = min(left, available)
                            var changed = sample
                            changed.dependencies = values[1] == .max ? sample.dependencies : Self.merged(sample.dependencies, UInt8(values[1]))
                            let group = Int32(Int64(bitPattern: values[2]))
                            if group >= 0 { changed.groups = group }
                            track.append(changed, count: part)
                            left -= part
                            current = available > part ? (available - part, sample) : samples.next()
                        }
                    }
                }
            }
            tracks[id] = track
        }
    }

    /// Each 2-bit field the run's flags leave 0 taken from the fragment's sdtp.
    static func merged(_ fromFlags: UInt8, _ fromBox: UInt8) -> UInt8 {
        var result: UInt8 = 0
        for shift in stride(from: 0, to: 8, by: 2) {
            let a = fromFlags >> shift & 3
            result |= (a != 0 ? a : fromBox >> shift & 3) << shift
        }
        return result
    }

    static func readRun(_ trun: RawBox, into track: inout TrackAccount, defaults: (UInt32, UInt32, UInt32, UInt32), fileSize: UInt64) throws {
        let flags = try trun.u32(0) & 0xFFFFFF
        let count = Int(try trun.u32(4))
        var field = 8
        if flags & 0x1 != 0 { field += 4 }
        var firstFlags: UInt32?
        if flags & 0x4 != 0 { firstFlags = try trun.u32(field); field += 4 }
        let present = [0x100, 0x200, 0x400, 0x800].map { flags & UInt32($0) != 0 }
        let recordSize = present.filter { $0 }.count * 4
        if recordSize > 0 {
            guard count <= (trun.bytes.count - field) / recordSize else {
                throw trun.fail("\(count) samples need \(count * recordSize) bytes of records, the box has \(trun.bytes.count - field)")
            }
        }
        let (description, defaultDuration, defaultSize, defaultFlags) = defaults
        if !present[1] {
            let (bytes, overflow) = UInt64(defaultSize).multipliedReportingOverflow(by: UInt64(count))
            guard !overflow, bytes <= fileSize else { throw trun.fail("\(count) samples of \(defaultSize) bytes are more than the file holds") }
        }
        func sample(_ index: Int, at record: Int) throws -> Sample {
            func value(_ which: Int) throws -> UInt32? {
                guard present[which] else { return nil }
                return try trun.u32(record + present[..<which].filter { $0 }.count * 4)
            }
            var sampleFlags = try value(2) ?? defaultFlags
            if index == 0, let firstFlags { sampleFlags = firstFlags }
            return Sample(size: try value(1) ?? defaultSize, duration: try value(0) ?? defaultDuration, compositionOffset: try value(3) ?? 0,
                          isSync: sampleFlags & 0x10000 == 0, dependencies: UInt8(truncatingIfNeeded: sampleFlags >> 20),
                          descriptionIndex: description, groups: -1)
        }
        guard count > 0 else { return }
        if recordSize == 0 {
            // No records: the first sample (its own flags) and the rest alike, in two runs whatever the count.
            track.append(try sample(0, at: field))
            track.append(try sample(1, at: field), count: count - 1)
            return
        }
        for index in 0..<count { track.append(try sample(index, at: field + index * recordSize)) }
    }
}

extension SampleAccount.TrackAccount {
    /// The next sample decodes at `time`: the last sample's duration becomes the gap to it (0 when the
    /// time goes back, the largest duration when the gap is longer).
    mutating func startNext(at time: UInt64) {
        guard sampleCount > 0 else { end = time; return }
        var last = removeLast(1)[0].sample
        let duration = time < end ? 0 : min(time - end, UInt64(UInt32.max))
        last.duration = UInt32(duration)
        append(last)
    }
}

/// `count` equal values in a row.
struct ValueRun { var count: Int; var value: UInt64 }

/// Run-coded columns over the same samples, walked together: each stretch where no column changes
/// comes out once, so the cost follows the runs, not the samples. A column shorter than the samples
/// reads as `UInt64.max` ("nothing said") past its end.
struct RunMerge {
    let count: Int
    var columns: [[ValueRun]] = []

    init(count: Int) { self.count = count }

    mutating func add(_ column: [ValueRun]) { columns.append(column) }

    func forEach(_ body: (Int, [UInt64]) -> Void) {
        var positions = Array(repeating: 0, count: columns.count)
        var used = Array(repeating: 0, count: columns.count)
        var done = 0
        while done < count {
            var step = count - done
            var values: [UInt64] = []
            for (index, column) in columns.enumerated() {
                if positions[index] < column.count {
                    values.append(column[positions[index]].value)
                    step = min(step, column[positions[index]].count - used[index])
                } else {
                    values.append(.max)
                }
            }
            body(step, values)
            done += step
            for index in columns.indices where positions[index] < columns[index].count {
                used[index] += step
                if used[index] >= columns[index][positions[index]].count { positions[index] += 1; used[index] = 0 }
            }
        }
    }
}

extension SampleAccount.TrackAccount {
    /// Appends every sample of `other` (a joined movie's next part): its description indexes mapped
    /// through `descriptionIndexes` (1-based, 0 where out of range), its groups by their descriptions' bytes.
    /// The first `skip` samples of `other` are left out.
    /// `lastDuration` replaces the duration of `other`'s last sample.
    mutating func appendJoined(_ other: SampleAccount.TrackAccount, descriptionIndexes: [UInt32], skip: Int = 0, lastDuration: UInt32? = nil) {
        var toSkip = skip
        for run in other.runs {
            let count = run.count - min(toSkip, run.count)
            toSkip -= run.count - count
            guard count > 0 else { continue }
            var sample = run.sample
            let index = Int(sample.descriptionIndex) - 1
            sample.descriptionIndex = index >= 0 && index < descriptionIndexes.count ? descriptionIndexes[index] : 0
            sample.groups = intern(sample.groups < 0 ? nil : other.groupSignatures[Int(sample.groups)])
            append(sample, count: count)
        }
        if let lastDuration, other.sampleCount > skip, var last = removeLast(1).first?.sample {
            last.duration = lastDuration
            append(last)
        }
    }
}

extension SampleAccount {
    /// The first way two tracks' samples differ, in words, or nil when every fact of every sample agrees.
    /// `sizes: false` leaves sizes out (samples whose bytes were meant to change).
    public static func difference(_ a: TrackAccount, _ b: TrackAccount, nameA: String, nameB: String, sizes: Bool = true) -> String? {
        guard a.sampleCount == b.sampleCount else { return "\(a.sampleCount) samples in \(nameA), \(b.sampleCount) in \(nameB)" }
        func hex(_ value: UInt8) -> String { "0x" + (value < 16 ? "0" : "") + String(value, radix: 16) }
        var (i, j, usedA, usedB, sample) = (0, 0, 0, 0, 0)
        while i < a.runs.count, j < b.runs.count {
            let (x, y) = (a.runs[i].sample, b.runs[j].sample)
            let step = min(a.runs[i].count - usedA, b.runs[j].count - usedB)
            let fact: String?
            if sizes, x.size != y.size { fact = "size \(x.size) in \(nameA), \(y.size) in \(nameB)" }
            else if x.duration != y.duration { fact = "duration \(x.duration) in \(nameA), \(y.duration) in \(nameB)" }
            else if x.compositionOffset != y.compositionOffset {
                fact = "composition offset \(Int32(bitPattern: x.compositionOffset)) in \(nameA), \(Int32(bitPattern: y.compositionOffset)) in \(nameB)"
            }
            else if x.isSync != y.isSync { fact = "a sync sample in \(x.isSync ? nameA : nameB) only" }
            else if x.dependencies != y.dependencies { fact = "dependencies (sdtp) \(hex(x.dependencies)) in \(nameA), \(hex(y.dependencies)) in \(nameB)" }
            else if x.descriptionIndex != y.descriptionIndex { fact = "sample description \(x.descriptionIndex) in \(nameA), \(y.descriptionIndex) in \(nameB)" }
            else if a.groups(of: x) != b.groups(of: y) { fact = "sample groups \(a.groups(of: x)) in \(nameA), \(b.groups(of: y)) in \(nameB)" }
            else { fact = nil }
            if let fact { return "sample \(sample + 1): \(fact)" }
            sample += step
            usedA += step; usedB += step
            if usedA == a.runs[i].count { i += 1; usedA = 0 }
            if usedB == b.runs[j].count { j += 1; usedB = 0 }
        }
        return nil
    }
}
