// Structure-aware mutations for the libFuzzer harness (LLVMFuzzerCustomMutator): the input is read
// as a tree of ISO BMFF boxes, one box is changed — its payload bytes, a sample-table entry count
// (with or without entries to match), a field set to a boundary value, its type, or the tree's
// shape (delete, duplicate, swap, move) — and the tree is written back with every size recomputed,
// so most mutants pass the size checks and reach the track model, lint, the planners and the edits.
// A share of plain byte mutations (and deliberate size lies) keeps the framing code fuzzed too.

@_silgen_name("LLVMFuzzerMutate")
func libFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

@_cdecl("LLVMFuzzerCustomMutator")
public func keeptrackCustomMutator(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    var random = FuzzRandom(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1)
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if random.below(8) != 0, var tree = FuzzBoxTree(input), !tree.boxes.isEmpty,
       tree.mutate(&random, maxSize: maxSize) {
        let output = tree.serialized(lyingAboutSizes: random.below(40) == 0, &random)
        if output.count <= maxSize, output != input {
            output.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: output.count) }
            return output.count
        }
    }
    return libFuzzerMutate(data, size, maxSize)
}

/// xorshift64*: mutations replay from libFuzzer's seed.
struct FuzzRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x2545_F491_4F6C_DD1D : seed }
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
    mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// One box: its type, the bytes of its payload before any children (all of it for a leaf), its
/// children when it is read as a container. `raw` holds bytes that do not parse as boxes.
struct FuzzBox {
    var type: [UInt8]
    var prefix: [UInt8]
    var children: [FuzzBox]?
    var raw: [UInt8]?

    var typeString: String { String(decoding: type, as: UTF8.self) }
}

struct FuzzBoxTree {
    var boxes: [FuzzBox]

    /// Containers and the bytes before their children (several candidates: tried in order).
    static let containerPrefixes: [String: [Int]] = [
        "moov": [0], "trak": [0], "mdia": [0], "minf": [0], "stbl": [0], "dinf": [0], "edts": [0], "udta": [0],
        "mvex": [0], "moof": [0], "traf": [0], "mfra": [0], "sinf": [0], "schi": [0], "tref": [0], "gmhd": [0],
        "wave": [0], "ilst": [0], "rinf": [0], "tapt": [0], "clip": [0], "matt": [0], "meta": [4, 0], "dref": [8],
        "stsd": [8], "iprp": [0], "ipco": [0], "iinf": [6, 8], "hnti": [0], "trgr": [0],
    ]
    /// Sample entries (children of stsd): video 78, audio v0 28 / v1 44 / v2 64, others 8.
    static let sampleEntryPrefixes = [78, 28, 44, 64, 8, 16]
    /// Table boxes: offset of the entry count in the payload and the size of one entry.
    static let countedTables: [String: (count: Int, entry: Int)] = [
        "stco": (4, 4), "co64": (4, 8), "stss": (4, 4), "stps": (4, 4), "stts": (4, 8), "ctts": (4, 8), "stsc": (4, 12),
        "stsz": (8, 4), "elst": (4, 12), "sbgp": (8, 8), "trun": (4, 16), "stsd": (4, 0), "dref": (4, 0),
        "sdtp": (0, 1), "tfra": (12, 11), "saiz": (5, 1), "saio": (4, 4), "sgpd": (12, 4), "iloc": (6, 16), "subs": (4, 6),
    ]
    /// Types a box may be renamed to: everything the parser and the model read.
    static let knownTypes = ["ftyp", "moov", "mvhd", "trak", "tkhd", "tref", "edts", "elst", "mdia", "mdhd", "hdlr", "minf",
                             "vmhd", "smhd", "gmhd", "dinf", "dref", "stbl", "stsd", "stts", "ctts", "stss", "stps", "stsc",
                             "stsz", "stz2", "stco", "co64", "sdtp", "sbgp", "sgpd", "udta", "meta", "keys", "ilst", "mdat",
                             "free", "skip", "wide", "mvex", "trex", "mehd", "moof", "mfhd", "traf", "tfhd", "tfdt", "trun",
                             "sidx", "ssix", "mfra", "tfra", "mfro", "saiz", "saio", "senc", "sinf", "frma", "schm", "schi",
                             "tenc", "pssh", "fall", "folw", "tgas", "apac", "dapa", "mp4a", "esds", "avc1", "avcC", "hvc1",
                             "hev1", "hvcC", "mebx", "colr", "pasp", "chan", "wave", "lpcm", "sowt", "twos", "ac-3", "dac3",
                             "ec-3", "dec3", "alac", "Opus", "dOps", "fLaC", "iloc", "iinf", "infe", "pitm", "uuid", "prol"]
    static let interesting: [UInt32] = [0, 1, 2, 3, 4, 7, 8, 15, 16, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x10000, 0x7FFF_FFFF,
                                        0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF]

    init?(_ bytes: [UInt8]) {
        guard let boxes = Self.parse(bytes[...], depth: 0, prefixes: nil) else { return nil }
        self.boxes = boxes
    }

    static func isTypeLike(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0xA9 }
    }

    /// Boxes filling `bytes`; whatever does not parse becomes a raw tail. Nil when nothing parses.
    static func parse(_ bytes: ArraySlice<UInt8>, depth: Int, prefixes: [Int]?) -> [FuzzBox]? {
        var boxes: [FuzzBox] = []
        var position = bytes.startIndex
        while position < bytes.endIndex {
            guard bytes.endIndex - position >= 8, isTypeLike(bytes[position + 4..<position + 8]) else { break }
            var size = bytes[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
            var header = 8
            if size == 1 {
                guard bytes.endIndex - position >= 16 else { break }
                size = bytes[position + 8..<position + 16].reduce(0) { ($0 << 8) | Int($1) }
                header = 16
            } else if size == 0 {
                size = bytes.endIndex - position
            }
            guard size >= header, size <= bytes.endIndex - position else { break }
            let type = Array(bytes[position + 4..<position + 8])
            let payload = bytes[position + header..<position + size]
            var box = FuzzBox(type: type, prefix: Array(payload), children: nil, raw: nil)
            let name = box.typeString
            if depth < 12, let candidates = prefixes ?? containerPrefixes[name] {
                for prefix in candidates where prefix <= payload.count {
                    let childPrefixes = name == "stsd" ? sampleEntryPrefixes : nil
                    if let children = parse(payload.dropFirst(prefix), depth: depth + 1, prefixes: childPrefixes),
                       children.allSatisfy({ $0.raw == nil }) {
                        box.prefix = Array(payload.prefix(prefix))
                        box.children = children
                        break
                    }
                }
            }
            boxes.append(box)
            position += size
        }
        if position < bytes.endIndex {
            if boxes.isEmpty && prefixes != nil { return nil }
            boxes.append(FuzzBox(type: [], prefix: [], children: nil, raw: Array(bytes[position...])))
        }
        return boxes.isEmpty ? nil : boxes
    }

    func serialized(lyingAboutSizes lie: Bool, _ random: inout FuzzRandom) -> [UInt8] {
        var out: [UInt8] = []
        var lies = lie ? 1 : 0
        func write(_ box: FuzzBox) {
            if let raw = box.raw { out += raw; return }
            let start = out.count
            out += [0, 0, 0, 0] + box.type
            out += box.prefix
            for child in box.children ?? [] { write(child) }
            var size = UInt32(truncatingIfNeeded: out.count - start)
            if lies > 0, random.below(4) == 0 {
                lies -= 1
                size = random.below(2) == 0 ? random.pick(Self.interesting) : size &+ UInt32(random.below(16)) &- 8
            }
            out[start] = UInt8(size >> 24); out[start + 1] = UInt8(size >> 16 & 0xFF)
            out[start + 2] = UInt8(size >> 8 & 0xFF); out[start + 3] = UInt8(size & 0xFF)
        }
        for box in boxes { write(box) }
        return out
    }

    /// Index paths of every box (depth first).
    func paths() -> [[Int]] {
        var result: [[Int]] = []
        func walk(_ boxes: [FuzzBox], _ path: [Int]) {
            for (index, box) in boxes.enumerated() where box.raw == nil {
                result.append(path + [index])
                if let children = box.children { walk(children, path + [index]) }
            }
        }
        walk(boxes, [])
        return result
    }

    func box(at path: [Int]) -> FuzzBox {
        var box = boxes[path[0]]
        for index in path.dropFirst() { box = box.children![index] }
        return box
    }

    mutating func modify(_ path: [Int], _ body: (inout FuzzBox) -> Void) {
        func go(_ boxes: inout [FuzzBox], _ rest: ArraySlice<Int>) {
            if rest.count == 1 { body(&boxes[rest.first!]); return }
            go(&boxes[rest.first!].children!, rest.dropFirst())
        }
        go(&boxes, path[...])
    }

    /// The children list at `path` (the top level for an empty path).
    mutating func modifySiblings(of path: [Int], _ body: (inout [FuzzBox], Int) -> Void) {
        if path.count == 1 { body(&boxes, path[0]); return }
        modify(Array(path.dropLast())) { parent in body(&parent.children!, path.last!) }
    }

    /// One structure-aware change; false when none applied.
    mutating func mutate(_ random: inout FuzzRandom, maxSize: Int) -> Bool {
        let all = paths()
        guard !all.isEmpty else { return false }
        let leaves = all.filter { box(at: $0).children == nil }
        let tables = leaves.filter { Self.countedTables[box(at: $0).typeString] != nil }
        switch random.below(100) {
        case 0..<30 where !tables.isEmpty:
            mutateCount(random.pick(tables), &random, maxSize: maxSize)
        case 0..<50 where !leaves.isEmpty:
            mutatePayload(random.pick(leaves), &random, maxSize: maxSize)
        case 50..<65 where !leaves.isEmpty:
            setField(random.pick(leaves), &random)
        case 65..<73:
            modify(random.pick(all)) { box in
                box.type = Array((random.below(4) == 0 ? String(decoding: (0..<4).map { _ in UInt8(0x61 + random.below(26)) }, as: UTF8.self)
                                  : random.pick(Self.knownTypes)).utf8)
            }
        case 73..<80:
            modifySiblings(of: random.pick(all)) { siblings, index in siblings.remove(at: index) }
        case 80..<87:
            modifySiblings(of: random.pick(all)) { siblings, index in
                siblings.insert(siblings[index], at: random.below(siblings.count + 1))
            }
        case 87..<93:
            modifySiblings(of: random.pick(all)) { siblings, index in siblings.swapAt(index, random.below(siblings.count)) }
        default:
            // Move or copy a box into another container.
            let moved = box(at: random.pick(all))
            let containers = all.filter { box(at: $0).children != nil }
            guard let target = containers.isEmpty ? nil : random.pick(containers) else { return false }
            modify(target) { container in container.children!.insert(moved, at: random.below(container.children!.count + 1)) }
        }
        return true
    }

    /// A new entry count: a boundary value, one off, doubled; half the time the entries follow it.
    mutating func mutateCount(_ path: [Int], _ random: inout FuzzRandom, maxSize: Int) {
        let name = box(at: path).typeString
        guard let layout = Self.countedTables[name] else { return }
        modify(path) { box in
            let at = layout.count
            guard box.prefix.count >= at + 4 else { return }
            let old = box.prefix[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let choices: [UInt32] = [old &+ 1, old &- 1, old &* 2, old / 2, 0, 1] + Self.interesting
            let new = random.pick(choices)
            box.prefix[at] = UInt8(new >> 24); box.prefix[at + 1] = UInt8(new >> 16 & 0xFF)
            box.prefix[at + 2] = UInt8(new >> 8 & 0xFF); box.prefix[at + 3] = UInt8(new & 0xFF)
            guard layout.entry > 0, random.below(2) == 0 else { return }
            // At most 1,024 entries follow a count: a larger table exercises no other code, and
            // inputs that grow by tens of KB per mutation slowed every later execution.
            let wanted = at + 4 + Int(min(new, UInt32(min(1024, maxSize / 4 / layout.entry)))) * layout.entry
            if wanted < box.prefix.count {
                box.prefix.removeLast(box.prefix.count - wanted)
            } else {
                let entries = box.prefix.count > at + 4 + layout.entry ? Array(box.prefix[(at + 4)...]) : [UInt8](repeating: 0, count: layout.entry)
                while box.prefix.count < wanted { box.prefix.append(entries[(box.prefix.count - at - 4) % entries.count]) }
            }
        }
    }

    /// libFuzzer's own byte mutations, inside one box's payload.
    mutating func mutatePayload(_ path: [Int], _ random: inout FuzzRandom, maxSize: Int) {
        modify(path) { box in
            let capacity = min(maxSize, box.prefix.count * 2 + 64)
            var bytes = box.prefix + [UInt8](repeating: 0, count: capacity - box.prefix.count)
            let count = bytes.withUnsafeMutableBufferPointer { libFuzzerMutate($0.baseAddress!, box.prefix.count, capacity) }
            box.prefix = Array(bytes.prefix(count))
        }
    }

    /// A 1-, 2- or 4-byte field of a payload set to a boundary value (or a near-by value).
    mutating func setField(_ path: [Int], _ random: inout FuzzRandom) {
        modify(path) { box in
            guard !box.prefix.isEmpty else { return }
            let width = box.prefix.count >= 4 ? random.pick([1, 2, 4, 4]) : 1
            let at = random.below((box.prefix.count - width) / width + 1) * width
            var value = UInt64(random.pick(Self.interesting))
            if random.below(3) == 0 {
                let old = box.prefix[at..<at + width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                value = old &+ UInt64(bitPattern: Int64(random.below(17) - 8))
            }
            for index in 0..<width { box.prefix[at + index] = UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - index))) }
        }
    }
}
