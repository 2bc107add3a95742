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

    public struct TrackAccount: Sendable {
        public var id: UInt32
        public var samples: [Sample] = []
        /// Each distinct membership: `type[/parameter]=entry bytes in hex`, sorted, joined with spaces.
        public var groupSignatures: [String] = []
        /// The track's `trex` payload, when `mvex` has one.
        public var extends: [UInt8]?
        /// Decode time after the last sample.
        var end: UInt64 = 0
        /// moov's sgpd boxes, which fragment sbgp indexes 1...0x10000 point into.
        var movieGroupDescriptions: [RawBox] = []
        var signatureIndex: [String: Int32] = [:]

        public func groups(of sample: Sample) -> String { sample.groups < 0 ? "none" : groupSignatures[Int(sample.groups)] }

        mutating func intern(_ signature: String?) -> Int32 {
            guard let signature else { return -1 }
            if let index = signatureIndex[signature] { return index }
            let index = Int32(groupSignatures.count)
            groupSignatures.append(signature)
            signatureIndex[signature] = index
            return index
        }
    }

    public private(set) var tracks: [UInt32: TrackAccount] = [:]
    public private(set) var fragmentCount = 0
    public private(set) var hasMovieExtends = false
    /// mvhd's duration field says "unknown" (all ones for its version).
    public private(set) var movieDurationUnknown = false

    /// Samples without bytes a file may claim (a run of defaults claims millions in a few bytes).
    static let maximumSizelessSamples = 1 << 22

    public init(source: ByteSource) throws {
        var position: UInt64 = 0
        var sizeless = 0
        while position + 8 <= source.size {
            // A box running past the end (a cut-short mdat) ends the walk.
            guard let header = try RawBox.header(in: source, at: position) else { break }
            if header.type == "moov" {
                let moov = try RawBox(bytes: source.read(at: position + header.headerSize, count: Int(header.size - header.headerSize)),
                                      offset: position + header.headerSize)
                try readMovie(moov, sizeless: &sizeless)
            } else if header.type == "moof" {
                let moof = try RawBox(bytes: source.read(at: position + header.headerSize, count: Int(header.size - header.headerSize)),
                                      offset: position + header.headerSize)
                fragmentCount += 1
                try readFragment(moof, fileSize: source.size, sizeless: &sizeless)
            }
            position += header.size
        }
    }

    // MARK: moov

    mutating func readMovie(_ moov: RawBox, sizeless: inout Int) throws {
        for child in try moov.children() {
            switch child.type {
            case "mvhd":
                let version = try child.u8(0)
                movieDurationUnknown = version == 1 ? try child.u64(4 + 24) == UInt64.max : try child.u32(4 + 16) == UInt32.max
            case "trak":
                var track = try readTrack(child, sizeless: &sizeless)
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

    func readTrack(_ trak: RawBox, sizeless: inout Int) throws -> TrackAccount {
        guard let tkhd = try trak.child("tkhd") else { throw trak.fail("no tkhd") }
        var track = TrackAccount(id: try tkhd.u32(try tkhd.u8(0) == 1 ? 20 : 12))
        guard let stbl = try trak.child("mdia")?.child("minf")?.child("stbl") else { return track }
        let table = try StblBoxes(stbl)
        track.movieGroupDescriptions = try stbl.children().filter { $0.type == "sgpd" }
        let count = try table.sampleCount()
        guard count > 0 else { return track }
        let sizes = try table.sizes(count)
        if sizes.allSatisfy({ $0 == 0 }) {
            sizeless += count
            guard sizeless <= Self.maximumSizelessSamples else { throw stbl.fail("more than \(Self.maximumSizelessSamples) samples without data") }
        }
        let durations = try table.runs(table.stts, count: count, what: "stts")
        let offsets = try table.ctts.map { try table.runs($0, count: count, what: "ctts") }
        let sync = try table.syncSamples(count)
        let dependencies = table.sdtp.map { Array($0.bytes.dropFirst(4).prefix(count)) } ?? []
        let descriptions = try table.descriptionIndexes(count)
        let groups = try SampleGroupReader(container: stbl, movieDescriptions: nil).membership(count)
        track.samples.reserveCapacity(count)
        for index in 0..<count {
            track.samples.append(Sample(size: sizes[index], duration: durations[index], compositionOffset: offsets?[index] ?? 0,
                                        isSync: sync?.contains(UInt32(index + 1)) ?? true,
                                        dependencies: index < dependencies.count ? dependencies[index] : 0,
                                        descriptionIndex: descriptions[index], groups: track.intern(groups[index])))
        }
        track.end = durations.reduce(UInt64(0)) { $0 + UInt64($1) }
        return track
    }

    // MARK: moof

    mutating func readFragment(_ moof: RawBox, fileSize: UInt64, sizeless: inout Int) throws {
        for traf in try moof.children() where traf.type == "traf" {
            guard let tfhd = try traf.child("tfhd") else { throw traf.fail("no tfhd") }
            let flags = try tfhd.u32(0) & 0xFFFFFF
            let id = try tfhd.u32(4)
            var track = tracks[id] ?? TrackAccount(id: id)
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
            if let tfdt = try traf.child("tfdt") {
                track.startNext(at: try tfdt.u8(0) == 1 ? try tfdt.u64(4) : UInt64(try tfdt.u32(4)))
            }
            let first = track.samples.count
            var runs = 0
            for trun in try traf.children() where trun.type == "trun" {
                runs += 1
                try Self.readRun(trun, into: &track, defaults: (description, defaultDuration, defaultSize, defaultFlags),
                                 fileSize: fileSize, sizeless: &sizeless)
            }
            if runs == 0, flags & 0x10000 != 0, defaultDuration > 0 { track.startNext(at: track.end + UInt64(defaultDuration)) }
            let added = track.samples.count - first
            if added > 0 {
                if let sdtp = try traf.child("sdtp") {
                    let bytes = Array(sdtp.bytes.dropFirst(4))
                    for index in 0..<min(added, bytes.count) {
                        track.samples[first + index].dependencies = Self.merged(track.samples[first + index].dependencies, bytes[index])
                    }
                }
                let groups = try SampleGroupReader(container: traf, movieDescriptions: track.movieGroupDescriptions).membership(added)
                for index in 0..<added where groups[index] != nil {
                    track.samples[first + index].groups = track.intern(groups[index])
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

    static func readRun(_ trun: RawBox, into track: inout TrackAccount, defaults: (UInt32, UInt32, UInt32, UInt32),
                        fileSize: UInt64, sizeless: inout Int) throws {
        let flags = try trun.u32(0) & 0xFFFFFF
        let count = Int(try trun.u32(4))
        var field = 8
        if flags & 0x1 != 0 { field += 4 }
        var firstFlags: UInt32?
        if flags & 0x4 != 0 { firstFlags = try trun.u32(field); field += 4 }
        let present = [0x100, 0x200, 0x400, 0x800].map { flags & UInt32($0) != 0 }
        let recordSize = present.filter { $0 }.count * 4
        guard count <= (trun.bytes.count - field) / max(recordSize, 1) || recordSize == 0 else {
            throw trun.fail("\(count) samples need \(count * recordSize) bytes of records, the box has \(trun.bytes.count - field)")
        }
        let (description, defaultDuration, defaultSize, defaultFlags) = defaults
        if !present[1] {
            let (bytes, overflow) = UInt64(defaultSize).multipliedReportingOverflow(by: UInt64(count))
            guard !overflow, bytes <= fileSize else { throw trun.fail("\(count) samples of \(defaultSize) bytes are more than the file holds") }
            if defaultSize == 0 {
                sizeless += count
                guard sizeless <= maximumSizelessSamples else { throw trun.fail("more than \(maximumSizelessSamples) samples without data") }
            }
        }
        track.samples.reserveCapacity(track.samples.count + count)
        for index in 0..<count {
            func value(_ which: Int) throws -> UInt32? {
                guard present[which] else { return nil }
                let at = field + present[..<which].filter { $0 }.count * 4
                return try trun.u32(at)
            }
            var sampleFlags = try value(2) ?? defaultFlags
            if index == 0, let firstFlags { sampleFlags = firstFlags }
            let offset = try value(3) ?? 0
            let duration = try value(0) ?? defaultDuration
            track.samples.append(Sample(size: try value(1) ?? defaultSize, duration: duration,
                                        compositionOffset: offset, isSync: sampleFlags & 0x10000 == 0,
                                        dependencies: UInt8(truncatingIfNeeded: sampleFlags >> 20), descriptionIndex: description, groups: -1))
            track.end += UInt64(duration)
            field += recordSize
        }
    }
}

extension SampleAccount.TrackAccount {
    /// The next sample decodes at `time`: the last sample's duration becomes the gap to it (0 when the
    /// time goes back, the largest duration when the gap is longer).
    mutating func startNext(at time: UInt64) {
        guard let last = samples.indices.last else { end = time; return }
        let start = end - UInt64(samples[last].duration)
        let duration = time < start ? 0 : min(time - start, UInt64(UInt32.max))
        samples[last].duration = UInt32(duration)
        end = start + duration
    }
}

extension SampleAccount {
    /// The first way two tracks' samples differ, in words, or nil when every fact of every sample agrees.
    public static func difference(_ a: TrackAccount, _ b: TrackAccount, nameA: String, nameB: String) -> String? {
        guard a.samples.count == b.samples.count else { return "\(a.samples.count) samples in \(nameA), \(b.samples.count) in \(nameB)" }
        func hex(_ value: UInt8) -> String { "0x" + (value < 16 ? "0" : "") + String(value, radix: 16) }
        for (index, (x, y)) in zip(a.samples, b.samples).enumerated() where x != y {
            let fact: String
            if x.size != y.size { fact = "size \(x.size) in \(nameA), \(y.size) in \(nameB)" }
            else if x.duration != y.duration { fact = "duration \(x.duration) in \(nameA), \(y.duration) in \(nameB)" }
            else if x.compositionOffset != y.compositionOffset {
                fact = "composition offset \(Int32(bitPattern: x.compositionOffset)) in \(nameA), \(Int32(bitPattern: y.compositionOffset)) in \(nameB)"
            }
            else if x.isSync != y.isSync { fact = "a sync sample in \(x.isSync ? nameA : nameB) only" }
            else if x.dependencies != y.dependencies { fact = "dependencies (sdtp) \(hex(x.dependencies)) in \(nameA), \(hex(y.dependencies)) in \(nameB)" }
            else if x.descriptionIndex != y.descriptionIndex { fact = "sample description \(x.descriptionIndex) in \(nameA), \(y.descriptionIndex) in \(nameB)" }
            else {
                let groupsA = a.groups(of: x), groupsB = b.groups(of: y)
                if groupsA == groupsB { continue }
                fact = "sample groups \(groupsA) in \(nameA), \(groupsB) in \(nameB)"
            }
            return "sample \(index + 1): \(fact)"
        }
        return nil
    }
}
