extension Movie {
    /// `stsd` and `dref` say how many entries follow them, and keeptrack reads the entries that are there. FFmpeg
    /// trusts the count instead: an `stsd` saying 0 with an entry present, or a `dref` saying 0xFFFFFFFF, and it
    /// refuses the file (found by the damage sweep, where `lint` called such files clean and every writing command
    /// copied the count). Each count is set to the entries present, so a written copy says what it holds, and said.
    /// Returns the corrections, each an overwrite of the 4-byte count in place (`fix --in-place`).
    static func correctEntryCounts(_ moov: inout Box, tolerated: inout [Tolerance]) -> [EntryCountCorrection] {
        let places: [(path: [FourCC], name: String)] = [(["mdia", "minf", "stbl", "stsd"], "mdia/minf/stbl/stsd"),
                                                        (["mdia", "minf", "dinf", "dref"], "mdia/minf/dinf/dref")]
        let wrong = moov.all("trak").contains { trak in
            places.contains { place in trak.find(place.path).map { countSaid(by: $0) != nil } ?? false }
        }
        guard wrong else { return [] }
        var corrections: [EntryCountCorrection] = []
        var trackNumber = 0
        moov.modifyChildren { children in
            for index in children.indices where children[index].type == "trak" {
                trackNumber += 1
                let trakPath = "moov/trak" + (trackNumber == 1 ? "" : "[\(trackNumber)]")
                for place in places {
                    guard let box = children[index].find(place.path), let said = countSaid(by: box) else { continue }
                    let held = UInt32(box.children.count)
                    corrections.append(EntryCountCorrection(path: trakPath + "/" + place.name, offset: box.payloadOffset + 4,
                                                            old: bigEndian(said), new: bigEndian(held)))
                    tolerated.append(Tolerance(kind: .entryCountWrong, path: trakPath + "/" + place.name, offset: box.offset,
                        message: "says \(said) entries and holds \(box.children.count); FFmpeg trusts the count and refuses the file. "
                            + "Read with the \(box.children.count) present; a written copy says \(box.children.count)"))
                    children[index].modify(path: place.path) { entryBox in
                        guard case .container(var container) = entryBox.content else { return }
                        container.prefix.replaceSubrange(4..<8, with: bigEndian(UInt32(entryBox.children.count)))
                        entryBox.content = .container(container)
                    }
                }
            }
        }
        return corrections
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The count a container with version/flags and an entry count gives, when it differs from the entries it holds.
    private static func countSaid(by box: Box) -> UInt32? {
        guard case .container(let container) = box.content, container.prefix.count == 8 else { return nil }
        let said = container.prefix[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return said == UInt32(container.children.count) ? nil : said
    }
}

extension Box {
    /// Changes the first box at the end of `path` (as `find` follows it), leaving the tree as it is when there is none.
    mutating func modify(path: [FourCC], _ body: (inout Box) -> Void) {
        guard let type = path.first else { return body(&self) }
        modifyChildren { children in
            guard let index = children.firstIndex(where: { $0.type == type }) else { return }
            children[index].modify(path: Array(path.dropFirst()), body)
        }
    }
}

/// An entry count set to the entries its box holds: where the 4 bytes are in the file, what they said, what they say now.
public struct EntryCountCorrection: Sendable, Equatable {
    public let path: String
    public let offset: UInt64
    public let old: [UInt8]
    public let new: [UInt8]

    public var description: String {
        func value(_ bytes: [UInt8]) -> UInt32 { bytes.reduce(0) { $0 << 8 | UInt32($1) } }
        return "\(path) entry count \(value(old)) → \(value(new))"
    }

    var patch: InPlacePatch { InPlacePatch(offset: offset, old: old, new: new, what: "\(path) entry count") }
}
