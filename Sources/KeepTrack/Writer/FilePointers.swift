/// Boxes besides `stco`/`co64` that hold absolute file offsets: `saio` (where a track's sample
/// auxiliary information — CENC initialization vectors and subsample maps — lies, usually inside
/// `senc`) with its `saiz` sizes, and `iloc` items stored in the file (construction method 0).
/// A writer that moves data rewrites them to the new place (`FilePointers.relocate`) or refuses;
/// verification reads them from both files and compares the bytes they point at.

/// `saio`: offsets of auxiliary information, one for all samples or one per chunk.
struct AuxiliaryInfoOffsetsBox {
    var version: UInt8
    var flags: UInt32
    /// aux_info_type and its parameter (flags bit 0), kept as read.
    var typeAndParameter: [UInt8]
    var offsets: [UInt64]

    init(box: Box, path: String) throws {
        var reader = ByteReader(box.payload, baseOffset: box.payloadOffset, path: path)
        version = try reader.u8("version")
        flags = try reader.u24("flags")
        typeAndParameter = flags & 1 != 0 ? try reader.bytes(8, "aux_info_type") : []
        let count = try reader.u32("entry_count")
        let width = version == 0 ? 4 : 8
        guard UInt64(count) * UInt64(width) <= UInt64(reader.remaining) else {
            throw reader.error("\(count) offsets of \(width) bytes do not fit in \(reader.remaining) bytes")
        }
        offsets = try (0..<Int(count)).map { _ in try reader.uint(width, "offset") }
        trailing = reader.rest()
    }

    /// Bytes after the offsets (none in a well-formed box), kept.
    var trailing: [UInt8]

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.u8(version)
        writer.u24(flags)
        writer.append(typeAndParameter)
        writer.u32(UInt32(offsets.count))
        for offset in offsets { writer.uint(offset, width: version == 0 ? 4 : 8) }
        writer.append(trailing)
        return writer.bytes
    }
}

/// `saiz`: the size of each sample's auxiliary information.
struct AuxiliaryInfoSizesBox {
    var typeAndParameter: [UInt8]
    var defaultSize: UInt8
    var sampleCount: Int
    var sizes: [UInt8]

    init(box: Box, path: String) throws {
        var reader = ByteReader(box.payload, baseOffset: box.payloadOffset, path: path)
        _ = try reader.u8("version")
        let flags = try reader.u24("flags")
        typeAndParameter = flags & 1 != 0 ? try reader.bytes(8, "aux_info_type") : []
        defaultSize = try reader.u8("default_sample_info_size")
        sampleCount = Int(try reader.u32("sample_count"))
        sizes = defaultSize == 0 ? try reader.bytes(sampleCount, "sample_info_size") : []
    }

    /// Bytes of auxiliary information of every sample.
    var totalSize: UInt64 {
        defaultSize != 0 ? UInt64(defaultSize) * UInt64(sampleCount) : sizes.reduce(0) { $0 + UInt64($1) }
    }
}

/// `iloc`: where each item's bytes are.
struct ItemLocationBox {
    struct Extent { var index: UInt64; var offset: UInt64; var length: UInt64 }
    struct Item {
        var id: UInt32
        var constructionMethod: UInt8
        var dataReferenceIndex: UInt16
        var baseOffset: UInt64
        var extents: [Extent]
    }

    var version: UInt8
    var flags: UInt32
    var offsetSize: Int
    var lengthSize: Int
    var baseOffsetSize: Int
    var indexSize: Int
    var items: [Item]

    init(box: Box, path: String) throws {
        var reader = ByteReader(box.payload, baseOffset: box.payloadOffset, path: path)
        version = try reader.u8("version")
        flags = try reader.u24("flags")
        guard version <= 2 else { throw reader.error("iloc version \(version) is not defined") }
        let sizes = try reader.u16("offset_size, length_size, base_offset_size, index_size")
        offsetSize = Int(sizes >> 12)
        lengthSize = Int(sizes >> 8 & 15)
        baseOffsetSize = Int(sizes >> 4 & 15)
        indexSize = version == 0 ? 0 : Int(sizes & 15)
        for (name, size) in [("offset_size", offsetSize), ("length_size", lengthSize), ("base_offset_size", baseOffsetSize), ("index_size", indexSize)]
        where ![0, 4, 8].contains(size) {
            throw reader.error("\(name) \(size) is not 0, 4 or 8")
        }
        let count = version < 2 ? Int(try reader.u16("item_count")) : Int(try reader.u32("item_count"))
        let smallestItem = (version < 2 ? 2 : 4) + (version == 0 ? 0 : 2) + 2 + baseOffsetSize + 2
        guard count * smallestItem <= reader.remaining else { throw reader.error("\(count) items do not fit in \(reader.remaining) bytes") }
        items = []
        for _ in 0..<count {
            let id = version < 2 ? UInt32(try reader.u16("item_ID")) : try reader.u32("item_ID")
            let method = version == 0 ? 0 : UInt8(try reader.u16("construction_method") & 15)
            let reference = try reader.u16("data_reference_index")
            let base = try reader.uint(baseOffsetSize, "base_offset")
            let extentCount = Int(try reader.u16("extent_count"))
            guard extentCount * (indexSize + offsetSize + lengthSize) <= reader.remaining else {
                throw reader.error("item \(id): \(extentCount) extents do not fit in \(reader.remaining) bytes")
            }
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                let index = try reader.uint(indexSize, "extent_index")
                let offset = try reader.uint(offsetSize, "extent_offset")
                let length = try reader.uint(lengthSize, "extent_length")
                extents.append(Extent(index: index, offset: offset, length: length))
            }
            items.append(Item(id: id, constructionMethod: method, dataReferenceIndex: reference, baseOffset: base, extents: extents))
        }
        trailing = reader.rest()
    }

    /// Bytes after the items (none in a well-formed box), kept.
    var trailing: [UInt8] = []

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.u8(version)
        writer.u24(flags)
        writer.u16(UInt16(offsetSize << 12 | lengthSize << 8 | baseOffsetSize << 4 | (version == 0 ? 0 : indexSize)))
        if version < 2 { writer.u16(UInt16(items.count)) } else { writer.u32(UInt32(items.count)) }
        for item in items {
            if version < 2 { writer.u16(UInt16(item.id)) } else { writer.u32(item.id) }
            if version != 0 { writer.u16(UInt16(item.constructionMethod)) }
            writer.u16(item.dataReferenceIndex)
            writer.uint(item.baseOffset, width: baseOffsetSize)
            writer.u16(UInt16(item.extents.count))
            for extent in item.extents {
                writer.uint(extent.index, width: indexSize)
                writer.uint(extent.offset, width: offsetSize)
                writer.uint(extent.length, width: lengthSize)
            }
        }
        writer.append(trailing)
        return writer.bytes
    }

    /// Items whose bytes lie in this file at absolute offsets (construction method 0, data reference 0).
    func isInFile(_ item: Item) -> Bool { item.constructionMethod == 0 && item.dataReferenceIndex == 0 }
}

/// The absolute offsets a box tree holds and how to rewrite them.
public enum FilePointers {
    /// Bytes one pointer designates in the file its box was read from.
    public struct Target: Sendable, Equatable {
        /// Box path and entry, e.g. `moov/trak[2]/mdia/minf/stbl/saio` or `meta/iloc item 3 extent 1`.
        public var name: String
        public var offset: UInt64
        public var length: UInt64
    }

    /// Every pointer of `box` (a top-level box, as read), with the path it was found at.
    public static func targets(in box: Box, path: String) throws -> [Target] {
        var found: [Target] = []
        try walk(box, path: path) { box, path, parent in
            switch box.type {
            case "saio" where parent?.type == "stbl":  // in a traf they are relative to the fragment
                let saio = try AuxiliaryInfoOffsetsBox(box: box, path: path)
                let size = try auxiliarySize(for: saio, in: parent, path: path)
                for (index, offset) in saio.offsets.enumerated() {
                    found.append(Target(name: path + (saio.offsets.count > 1 ? " entry \(index + 1)" : ""), offset: offset,
                                        length: saio.offsets.count == 1 ? size : 0))
                }
            case "iloc" where parent?.type == "meta":
                let iloc = try ItemLocationBox(box: box, path: path)
                for item in iloc.items where iloc.isInFile(item) {
                    for (index, extent) in item.extents.enumerated() {
                        let (start, overflow) = item.baseOffset.addingReportingOverflow(extent.offset)
                        if overflow { throw KeepTrackError.malformed(path: path, offset: box.offset, reason: "item \(item.id): offset past 2^64") }
                        found.append(Target(name: "\(path) item \(item.id) extent \(index + 1)", offset: start, length: extent.length))
                    }
                }
            default: break
            }
            return nil
        }
        return found
    }

    /// Bytes of the auxiliary information `saio` points at: the total of the matching `saiz`.
    static func auxiliarySize(for saio: AuxiliaryInfoOffsetsBox, in parent: Box?, path: String) throws -> UInt64 {
        let sizes = try (parent?.all("saiz") ?? []).enumerated().map { index, box in
            try AuxiliaryInfoSizesBox(box: box, path: path.replacingOccurrences(of: "/saio", with: "/saiz") + (index == 0 ? "" : "[\(index + 1)]"))
        }
        let matching = sizes.filter { $0.typeAndParameter == saio.typeAndParameter }
        guard let saiz = matching.first ?? (sizes.count == 1 ? sizes.first : nil) else {
            throw KeepTrackError.malformed(path: path, offset: 0, reason: "saio without a matching saiz (the sizes of the information it locates)")
        }
        return saiz.totalSize
    }

    /// Visits every box below `box` (and `box` itself) with its path and parent; `body` may return a
    /// replacement for the visited box (its size must not change).
    @discardableResult
    static func walk(_ box: Box, path: String, parent: Box? = nil, _ body: (Box, String, Box?) throws -> Box?) throws -> Box {
        if let replaced = try body(box, path, parent) { return replaced }
        guard box.isContainer else { return box }
        var result = box
        var seen: [FourCC: Int] = [:]
        var changed = false
        var children = box.children
        for index in children.indices {
            let type = children[index].type
            let count = (seen[type] ?? 0) + 1
            seen[type] = count
            let childPath = path + "/" + type.description + (count == 1 ? "" : "[\(count)]")
            let child = try walk(children[index], path: childPath, parent: box, body)
            if child.size != children[index].size || !sameContent(child, children[index]) { changed = true }
            children[index] = child
        }
        if changed { result.modifyChildren { $0 = children } }
        return result
    }

    static func sameContent(_ a: Box, _ b: Box) -> Bool {
        switch (a.content, b.content) {
        case (.bytes(let x), .bytes(let y)): return x == y
        case (.external(let o1, let l1), .external(let o2, let l2)): return o1 == o2 && l1 == l2
        default: return false
        }
    }

    /// Where the leaf boxes read from the source file land in the output: input ranges and output starts.
    public struct Placement: Sendable {
        var ranges: [(input: UInt64, length: UInt64, output: UInt64)] = []

        /// Records every box of `boxes`, written one after the other from `start`, whose bytes are the
        /// source's own (read from it: a nonzero offset, payload not rebuilt in memory).
        mutating func add(_ boxes: [Box], at start: UInt64) {
            var position = start
            for box in boxes {
                add(box, at: position)
                position += box.size
            }
        }

        mutating func add(_ box: Box, at position: UInt64) {
            switch box.content {
            case .container(let container):
                add(container.children, at: position + box.headerSize + UInt64(container.prefix.count))
            case .bytes, .external:
                if box.offset != 0 { ranges.append((box.offset, box.size, position)) }
            }
        }

        mutating func sort() { ranges.sort { $0.input < $1.input } }

        /// The output offset of `length` bytes at input `offset`, when they lie inside one placed box.
        func output(of offset: UInt64, length: UInt64) -> UInt64? {
            var low = 0, high = ranges.count
            while low < high {
                let middle = (low + high) / 2
                if ranges[middle].input <= offset { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { return nil }
            let range = ranges[low - 1]
            guard length <= range.length, offset - range.input <= range.length - length else { return nil }
            return range.output + (offset - range.input)
        }
    }

    /// `box` with every `saio` and in-file `iloc` offset moved to where `placement` put the bytes it
    /// points at. Refuses (65) a pointer whose bytes the output does not hold, or that cannot be
    /// expressed in the box's field widths; never leaves one stale.
    static func relocate(_ box: Box, path: String, placement: Placement) throws -> Box {
        func refuse(_ path: String, _ reason: String) -> KeepTrackError {
            .unsupported("\(path): \(reason); writing it unchanged would leave it pointing at the wrong bytes")
        }
        func fits(_ value: UInt64, _ width: Int) -> Bool { width == 8 || (width == 4 && value <= UInt64(UInt32.max)) || value == 0 }
        func moved(_ offset: UInt64, _ length: UInt64, _ what: String) throws -> UInt64 {
            guard let output = placement.output(of: offset, length: length) else {
                throw refuse(what, "points at \(length) bytes at \(offset) that lie in no box keeptrack copies as it is (they are in the media data, or outside the movie's boxes)")
            }
            return output
        }
        return try walk(box, path: path) { box, path, parent in
            let rewritten: [UInt8]
            switch box.type {
            case "saio" where parent?.type == "stbl":
                var saio = try AuxiliaryInfoOffsetsBox(box: box, path: path)
                guard let offset = saio.offsets.first else { return nil }
                guard saio.offsets.count == 1 else {
                    throw refuse(path, "\(saio.offsets.count) per-chunk offsets of sample auxiliary information cannot follow a new chunk layout")
                }
                let size = try auxiliarySize(for: saio, in: parent, path: path)
                let target = try moved(offset, size, path)
                guard saio.version == 1 || fits(target, 4) else { throw refuse(path, "the new offset \(target) needs a version 1 saio") }
                saio.offsets = [target]
                rewritten = saio.encoded()
            case "iloc" where parent?.type == "meta":
                var iloc = try ItemLocationBox(box: box, path: path)
                for index in iloc.items.indices where iloc.isInFile(iloc.items[index]) {
                    var item = iloc.items[index]
                    let what = "\(path) item \(item.id)"
                    guard !item.extents.isEmpty else { continue }
                    var targets: [UInt64] = [], starts: [UInt64] = []
                    for extent in item.extents {
                        guard extent.length > 0 else { throw refuse(what, "an extent of unstated length (to the end of the file) cannot be moved") }
                        let (start, overflow) = item.baseOffset.addingReportingOverflow(extent.offset)
                        if overflow { throw KeepTrackError.malformed(path: path, offset: box.offset, reason: "item \(item.id): offset past 2^64") }
                        starts.append(start)
                        targets.append(try moved(start, extent.length, what))
                    }
                    if zip(targets, starts).allSatisfy({ $0.0 &- $0.1 == targets[0] &- starts[0] }), iloc.baseOffsetSize > 0,
                       targets[0] >= item.extents[0].offset, fits(targets[0] - item.extents[0].offset, iloc.baseOffsetSize) {
                        item.baseOffset = targets[0] - item.extents[0].offset   // the whole item moved by one distance
                    } else {
                        let base = iloc.baseOffsetSize > 0 ? targets.min()! : 0
                        guard fits(base, iloc.baseOffsetSize), targets.allSatisfy({ fits($0 - base, iloc.offsetSize) }) else {
                            throw refuse(what, "the new offsets do not fit its \(iloc.offsetSize)-byte extent offsets")
                        }
                        item.baseOffset = base
                        for extent in item.extents.indices { item.extents[extent].offset = targets[extent] - base }
                    }
                    iloc.items[index] = item
                }
                rewritten = iloc.encoded()
            default:
                return nil
            }
            guard rewritten.count == box.payload.count else {
                throw KeepTrackError.io("internal layout error: rewriting \(path) changed its size")
            }
            var result = box
            result.content = .bytes(rewritten)
            return result
        }
    }

    /// Whether `box` or a box inside it is a `saio` or `iloc`.
    static func containsPointers(_ box: Box) -> Bool {
        pointerBoxes.contains(box.type) || box.children.contains(where: containsPointers)
    }

    /// Boxes that hold pointers: compared through the bytes they point at, not their own bytes.
    public static let pointerBoxes: Set<FourCC> = ["saio", "iloc"]

    /// nil when every pointer of `planned` (read from `plannedSource`) and of `written` (from
    /// `writtenSource`) designates the same bytes, pointer by pointer; otherwise the first difference.
    public static func difference(_ planned: [Box], in plannedSource: ByteSource?, _ written: [Box], in writtenSource: ByteSource,
                                  path: String) throws -> String? {
        let before = try planned.flatMap { try targets(in: $0, path: path + $0.type.description) }
        let after = try written.flatMap { try targets(in: $0, path: path + $0.type.description) }
        guard before.count == after.count else { return "\(after.count) file offsets (saio, iloc) written, \(before.count) planned" }
        for (old, new) in zip(before, after) {
            guard old.length == new.length else { return "\(new.name) points at \(new.length) bytes, planned \(old.length)" }
            guard let plannedSource else { return "\(old.name): no source file to read the bytes it points at" }
            guard old.length <= plannedSource.size, old.offset <= plannedSource.size - old.length,
                  new.length <= writtenSource.size, new.offset <= writtenSource.size - new.length else {
                return "\(new.name) points past the end of the file"
            }
            var position: UInt64 = 0
            while position < old.length {
                let count = Int(min(1 << 20, old.length - position))
                if try plannedSource.read(at: old.offset + position, count: count) != writtenSource.read(at: new.offset + position, count: count) {
                    return "\(new.name) points at byte \(new.offset), which does not hold the \(old.length) bytes it pointed at in the source (byte \(old.offset))"
                }
                position += UInt64(count)
            }
        }
        return nil
    }
}
