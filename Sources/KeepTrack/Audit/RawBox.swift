/// The box reader `SampleAccount` uses, apart from `BoxParser` on purpose: a payload held in memory,
/// its file offset, and big-endian fields read with bounds checks.
struct RawBox: Sendable {
    var type = ""
    /// The payload (after the header).
    var bytes: ArraySlice<UInt8>
    /// File offset of the payload's first byte.
    var offset: UInt64

    init(type: String = "", bytes: [UInt8], offset: UInt64) {
        self.type = type
        self.bytes = bytes[...]
        self.offset = offset
    }

    init(type: String = "", bytes: ArraySlice<UInt8>, offset: UInt64) {
        self.type = type
        self.bytes = bytes
        self.offset = offset
    }

    func fail(_ reason: String) -> KeepTrackError {
        .malformed(path: type.isEmpty ? "file" : type, offset: offset, reason: "independent sample reading: " + reason)
    }

    func u8(_ at: Int) throws -> UInt8 {
        guard at >= 0, at < bytes.count else { throw fail("a field at \(at) lies past the box's \(bytes.count) bytes") }
        return bytes[bytes.startIndex + at]
    }

    func u32(_ at: Int) throws -> UInt32 {
        guard at >= 0, at + 4 <= bytes.count else { throw fail("a field at \(at) lies past the box's \(bytes.count) bytes") }
        let i = bytes.startIndex + at
        return UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
    }

    func u64(_ at: Int) throws -> UInt64 { UInt64(try u32(at)) << 32 | UInt64(try u32(at + 4)) }

    static func typeName(_ value: UInt32) -> String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }, as: UTF8.self)
    }

    /// The boxes inside this payload.
    func children() throws -> [RawBox] {
        var result: [RawBox] = []
        var at = 0
        while at + 8 <= bytes.count {
            let declared = UInt64(try u32(at))
            let type = Self.typeName(try u32(at + 4))
            var header = 8
            var size = declared
            if declared == 1 { size = try u64(at + 8); header = 16 }
            if declared == 0 { size = UInt64(bytes.count - at) }
            if type == "uuid" { header += 16 }
            guard size >= UInt64(header), size <= UInt64(bytes.count - at) else {
                throw RawBox(type: type, bytes: bytes[(bytes.startIndex + at)...], offset: offset + UInt64(at))
                    .fail("size \(size) does not fit the \(bytes.count - at) bytes left in its parent")
            }
            let start = bytes.startIndex + at
            result.append(RawBox(type: type, bytes: bytes[(start + header)..<(start + Int(size))], offset: offset + UInt64(at + header)))
            at += Int(size)
        }
        return result
    }

    func child(_ type: String) throws -> RawBox? { try children().first { $0.type == type } }

    struct Header { var type: String; var size: UInt64; var headerSize: UInt64 }

    /// A top-level box's header; nil when the box runs past the end of the file.
    static func header(in source: ByteSource, at position: UInt64) throws -> Header? {
        let bytes = RawBox(bytes: try source.read(at: position, count: Int(min(16, source.size - position))), offset: position)
        let declared = UInt64(try bytes.u32(0))
        let type = typeName(try bytes.u32(4))
        var size = declared, header: UInt64 = 8
        if declared == 1 {
            guard bytes.bytes.count >= 16 else { return nil }
            size = try bytes.u64(8); header = 16
        }
        if declared == 0 { size = source.size - position }
        guard size >= header else { throw RawBox(type: type, bytes: [], offset: position).fail("box size \(size) is smaller than its header") }
        guard size <= source.size - position else { return nil }
        return Header(type: type, size: size, headerSize: header)
    }
}

/// The sample tables of one `stbl`, read for `SampleAccount`.
struct StblBoxes {
    var stsz, stz2, stts, ctts, stss, sdtp, stsc, stco, co64: RawBox?

    init(_ children: [RawBox]) {
        for child in children {
            switch child.type {
            case "stsz": stsz = child
            case "stz2": stz2 = child
            case "stts": stts = child
            case "ctts": ctts = child
            case "stss": stss = child
            case "sdtp": sdtp = child
            case "stsc": stsc = child
            case "stco": stco = child
            case "co64": co64 = child
            default: continue
            }
        }
    }

    func sampleCount() throws -> Int {
        if let stsz { return Int(try stsz.u32(8)) }
        if let stz2 { return Int(try stz2.u32(8)) }
        return 0
    }

    /// `count` entries of `width` bytes each must lie inside `box` after `start`.
    static func check(_ box: RawBox, entries count: Int, width: Int, from start: Int) throws {
        guard count <= (box.bytes.count - min(start, box.bytes.count)) / width else {
            throw box.fail("\(count) entries of \(width) bytes do not fit its \(box.bytes.count) bytes")
        }
    }

    /// Appends `count` of `value`, joining the last run when it holds the same value.
    static func push(_ runs: inout [ValueRun], _ value: UInt64, _ count: Int) {
        guard count > 0 else { return }
        if let last = runs.indices.last, runs[last].value == value { runs[last].count += count } else { runs.append(ValueRun(count: count, value: value)) }
    }

    /// Every sample's size: one run for a constant size, else one entry a sample (stsz or stz2).
    func sizes(_ count: Int) throws -> [ValueRun] {
        var runs: [ValueRun] = []
        if let stsz {
            let constant = try stsz.u32(4)
            if constant != 0 { return [ValueRun(count: count, value: UInt64(constant))] }
            try Self.check(stsz, entries: count, width: 4, from: 12)
            for index in 0..<count { Self.push(&runs, UInt64(try stsz.u32(12 + index * 4)), 1) }
            return runs
        }
        guard let stz2 else { return [ValueRun(count: count, value: 0)] }
        let width = Int(try stz2.u8(7))
        guard [4, 8, 16].contains(width) else { throw stz2.fail("field size \(width)") }
        try Self.check(stz2, entries: (count * width + 7) / 8, width: 1, from: 12)
        for index in 0..<count {
            let size: UInt64
            switch width {
            case 4: let byte = try stz2.u8(12 + index / 2); size = UInt64(index % 2 == 0 ? byte >> 4 : byte & 15)
            case 8: size = UInt64(try stz2.u8(12 + index))
            default: size = UInt64(try stz2.u8(12 + index * 2)) << 8 | UInt64(try stz2.u8(13 + index * 2))
            }
            Self.push(&runs, size, 1)
        }
        return runs
    }

    /// A (count, value) run table (stts, ctts) for `count` samples; samples it does not cover get 0.
    func runs(_ box: RawBox?, count: Int) throws -> [ValueRun] {
        var runs: [ValueRun] = []
        var covered = 0
        if let box {
            let entries = Int(try box.u32(4))
            try Self.check(box, entries: entries, width: 8, from: 8)
            for entry in 0..<entries where covered < count {
                let run = min(Int(try box.u32(8 + entry * 8)), count - covered)
                Self.push(&runs, UInt64(try box.u32(12 + entry * 8)), run)
                covered += run
            }
        }
        Self.push(&runs, 0, count - covered)
        return runs
    }

    /// 1 for a sync sample, 0 for the others; without stss every sample is one.
    func syncSamples(_ count: Int) throws -> [ValueRun] {
        guard let stss else { return [ValueRun(count: count, value: 1)] }
        let entries = Int(try stss.u32(4))
        try Self.check(stss, entries: entries, width: 4, from: 8)
        let numbers = Set(try (0..<entries).map { Int(try stss.u32(8 + $0 * 4)) }.filter { $0 >= 1 && $0 <= count }).sorted()
        var runs: [ValueRun] = []
        var next = 1
        for number in numbers {
            Self.push(&runs, 0, number - next)
            Self.push(&runs, 1, 1)
            next = number + 1
        }
        Self.push(&runs, 0, count + 1 - next)
        return runs
    }

    /// sdtp's byte a sample; 0 past its end or without it.
    func dependencies(_ count: Int) -> [ValueRun] {
        var runs: [ValueRun] = []
        let bytes = sdtp.map { $0.bytes.dropFirst(4).prefix(count) } ?? []
        for byte in bytes { Self.push(&runs, UInt64(byte), 1) }
        Self.push(&runs, 0, count - bytes.count)
        return runs
    }

    /// Each sample's sample description index, from stsc over the chunks stco/co64 lists.
    func descriptionIndexes(_ count: Int) throws -> [ValueRun] {
        var runs: [ValueRun] = []
        var covered = 0
        var chunks = 0
        if let stco { chunks = Int(try stco.u32(4)); try Self.check(stco, entries: chunks, width: 4, from: 8) }
        if let co64 { chunks = Int(try co64.u32(4)); try Self.check(co64, entries: chunks, width: 8, from: 8) }
        if let stsc {
            let entries = Int(try stsc.u32(4))
            try Self.check(stsc, entries: entries, width: 12, from: 8)
            for entry in 0..<entries where covered < count {
                let first = Int(try stsc.u32(8 + entry * 12))
                let next = entry + 1 < entries ? Int(try stsc.u32(8 + (entry + 1) * 12)) : chunks + 1
                let perChunk = Int(try stsc.u32(12 + entry * 12))
                let chunkCount = max(0, min(next, chunks + 1) - first)
                let (product, overflow) = chunkCount.multipliedReportingOverflow(by: perChunk)
                let samples = min(overflow ? count : product, count - covered)
                Self.push(&runs, UInt64(try stsc.u32(16 + entry * 12)), samples)
                covered += samples
            }
        }
        Self.push(&runs, 0, count - covered)
        return runs
    }
}

/// Which sample group descriptions each sample belongs to, read from a container's `sbgp`/`sgpd`
/// (a `stbl`, or a `traf` whose indexes above 0x10000 are its own and below point into moov's).
struct SampleGroupReader {
    var mappings: [RawBox] = []
    var descriptions: [RawBox] = []
    /// moov's descriptions, for a traf's indexes up to 0x10000; nil when reading moov itself.
    var movieDescriptions: [RawBox]
    var isFragment: Bool

    /// `children`: a stbl's or a traf's boxes.
    init(_ children: [RawBox], movieDescriptions: [RawBox]?) {
        for child in children {
            if child.type == "sbgp" { mappings.append(child) }
            if child.type == "sgpd" { descriptions.append(child) }
        }
        self.movieDescriptions = movieDescriptions ?? []
        isFragment = movieDescriptions != nil
    }

    /// Runs of samples with the same signature (nil: in no group), as `SampleAccount.TrackAccount.groupSignatures` holds them.
    func membership(_ count: Int) throws -> [(count: Int, value: String?)] {
        // One run-coded column of "key=entry" per sbgp, merged.
        var columns: [[ValueRun]] = []
        var labels: [String] = []
        var labelIndex: [String: UInt64] = [:]
        for sbgp in mappings {
            let version = try sbgp.u8(0)
            let type = RawBox.typeName(try sbgp.u32(4))
            let key = version == 1 ? "\(type)/\(try sbgp.u32(8))" : type
            let start = version == 1 ? 12 : 8
            let entries = Int(try sbgp.u32(start))
            try StblBoxes.check(sbgp, entries: entries, width: 8, from: start + 4)
            var column: [ValueRun] = []
            var covered = 0
            for entry in 0..<entries where covered < count {
                let run = min(Int(try sbgp.u32(start + 4 + entry * 8)), count - covered)
                let index = try sbgp.u32(start + 8 + entry * 8)
                var value = UInt64.max
                if index != 0 {
                    let label = "\(key)=\(try self.entry(type: type, index: index, in: sbgp))"
                    value = labelIndex[label] ?? UInt64(labels.count)
                    if labelIndex[label] == nil { labelIndex[label] = value; labels.append(label) }
                }
                StblBoxes.push(&column, value, run)
                covered += run
            }
            columns.append(column)
        }
        var merge = RunMerge(count: count)
        for column in columns { merge.add(column) }
        var result: [(count: Int, value: String?)] = []
        merge.forEach { run, values in
            let parts = values.filter { $0 != .max }.map { labels[Int($0)] }.sorted()
            let value: String? = parts.isEmpty ? nil : parts.joined(separator: " ")
            if let last = result.indices.last, result[last].value == value { result[last].count += run } else { result.append((run, value)) }
        }
        return result
    }

    /// The description entry `index` of `type`, in hex: in a traf, indexes above 0x10000 are its own
    /// descriptions and the others moov's.
    func entry(type: String, index: UInt32, in sbgp: RawBox) throws -> String {
        let local = !isFragment || index > 0x10000
        let number = Int(isFragment && index > 0x10000 ? index - 0x10000 : index)
        guard let sgpd = try (local ? descriptions : movieDescriptions).first(where: { RawBox.typeName(try $0.u32(4)) == type }) else {
            throw sbgp.fail("group description index \(index) of \(type) has no sgpd")
        }
        let entries = try Self.entries(sgpd)
        guard number >= 1, number <= entries.count else { throw sbgp.fail("group description index \(index) of \(type): sgpd has \(entries.count) entries") }
        return entries[number - 1].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// An sgpd's entries, each as its bytes. Version 0 gives no lengths: the entries share the rest evenly.
    static func entries(_ sgpd: RawBox) throws -> [ArraySlice<UInt8>] {
        let version = try sgpd.u8(0)
        var at = 8
        var defaultLength = 0
        if version >= 1 { defaultLength = Int(try sgpd.u32(at)); at += 4 }
        if version >= 2 { at += 4 }
        let count = Int(try sgpd.u32(at)); at += 4
        let rest = sgpd.bytes.count - min(at, sgpd.bytes.count)
        if version == 0 {
            guard count > 0 else { return [] }
            guard rest % count == 0 else { throw sgpd.fail("\(count) entries of a version 0 sgpd do not share its \(rest) bytes evenly") }
            defaultLength = rest / count
        }
        try StblBoxes.check(sgpd, entries: count, width: max(1, version >= 1 && defaultLength == 0 ? 4 : defaultLength), from: at)
        var result: [ArraySlice<UInt8>] = []
        for _ in 0..<count {
            var length = defaultLength
            if version >= 1, defaultLength == 0 { length = Int(try sgpd.u32(at)); at += 4 }
            guard length <= sgpd.bytes.count - at else { throw sgpd.fail("an entry of \(length) bytes runs past the box") }
            let start = sgpd.bytes.startIndex + at
            result.append(sgpd.bytes[start..<(start + length)])
            at += length
        }
        return result
    }
}
