import Foundation

/// One thing in a movie that tells where it was taken, who is in it, what recorded it, who owns it
/// or when: what `inspect` lists and `scrub` removes, with the box that holds it and where.
public struct PrivacyItem: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case location, face, device, owner, date
    }

    /// How `scrub` takes the item out without moving any other byte.
    public enum Removal: Sendable, Equatable {
        /// The box becomes `free` (its 4-byte type, one write) and then its payload is zeroed.
        case freeBox(offset: UInt64, headerSize: UInt64, size: UInt64)
        /// Bytes that already lie in free space (a stale copy) or inside a value whose format allows
        /// blanks (XMP whitespace, a GPMF string of NULs) are overwritten.
        case overwrite([ByteRun])
        /// A timed-metadata track: only a rewrite removes it (and the references to it).
        case dropTrack(UInt32)
        /// Shown only: `scrub` has no option for it (creation dates, owners).
        case kept
    }

    /// Bytes at `offset` replaced by `bytes` (same length).
    public struct ByteRun: Sendable, Equatable {
        public var offset: UInt64
        public var bytes: [UInt8]
        public init(offset: UInt64, bytes: [UInt8]) { self.offset = offset; self.bytes = bytes }
    }

    public var kind: Kind
    /// The key or box type: `com.apple.quicktime.location.ISO6709`, `©xyz`, `gpmd track`.
    public var name: String
    public var value: String
    /// The box path as `dump` shows it.
    public var path: String
    /// Where the box holding the item starts.
    public var offset: UInt64
    public var removal: Removal

    public var json: JSONValue {
        .object([("kind", .string(kind.rawValue)), ("name", .string(name)), ("value", .string(value)),
                 ("path", .string(path)), ("offset", .int(Int64(offset))), ("removal", .string(removalText))])
    }

    /// How `scrub` removes it, in words: `free box`, `overwrite`, `drop track`, `kept`.
    public var removalText: String {
        switch removal {
        case .freeBox: return "free box"
        case .overwrite: return "overwrite"
        case .dropTrack: return "drop track"
        case .kept: return "kept"
        }
    }
}

/// Finds every `PrivacyItem` of a movie: movie and track metadata (`meta` keys, `udta` items, XMP),
/// timed-metadata tracks that carry places or faces, and stale copies left in free space (an iPhone
/// recording keeps the metadata of the header it wrote while recording in its trailing `free` box).
public enum PrivacyItems {
    public static func find(in movie: Movie) -> [PrivacyItem] {
        var items: [PrivacyItem] = []
        let source = movie.source
        if let mvhd = (try? MovieHeaderBoxDate.creation(movie.moov)) ?? nil {
            items.append(PrivacyItem(kind: .date, name: "mvhd creation time", value: mvhd.text, path: "moov/mvhd", offset: mvhd.offset, removal: .kept))
        }
        for box in movie.boxes {
            if box.type == "moov" {
                walk(box, path: "moov", source: source, into: &items)
            } else if isFreeSpace(box.type) {
                items += staleCopies(in: box, path: box.type.description, source: source)
            } else if box.type == "uuid" || box.type == "udta" || box.type == "meta" {
                // Top-level metadata boxes, walked as the children of a file root.
                walk(Box(type: "root", children: [box]), path: "", source: source, into: &items)
            }
        }
        for track in movie.tracks {
            if let item = timedMetadataItem(track) { items.append(item) }
        }
        let deviceTexts = Set(items.filter { $0.kind == .device && $0.value.count >= 6 }.map(\.value))
        for track in movie.tracks where track.format == "fdsc" {
            items += goProDescriptionItems(track, source: source, deviceTexts: deviceTexts)
        }
        return items
    }

    static func isFreeSpace(_ type: FourCC) -> Bool { type == "free" || type == "skip" || type == "wide" }

    /// Walks containers that hold metadata (moov, trak, udta, meta) and reads each item.
    static func walk(_ parent: Box, path: String, source: ByteSource, into items: inout [PrivacyItem]) {
        var seen: [FourCC: Int] = [:]
        for child in parent.children {
            seen[child.type, default: 0] += 1
            let count = seen[child.type]!
            let childPath = (path.isEmpty ? "" : path + "/") + child.type.description + (count > 1 ? "[\(count)]" : "")
            switch child.type {
            case "trak", "udta":
                walk(child, path: childPath, source: source, into: &items)
            case "meta":
                items += metadataItems(child, path: childPath)
                walk(child, path: childPath, source: source, into: &items)
            case "uuid":
                if child.userType == xmpUUID { items += xmpItems(child, payloadStart: child.payloadOffset + 16, bytes: Array(child.payload.dropFirst(16)), path: childPath) }
            case "XMP_":
                items += xmpItems(child, payloadStart: child.payloadOffset, bytes: child.payload, path: childPath)
            case "GPMF":
                items += gpmfDeviceItems(child, path: childPath)
            default:
                if isFreeSpace(child.type) {
                    items += staleCopies(in: child, path: childPath, source: source)
                } else if path.hasSuffix("udta"), let kind = userDataKind(child.type) {
                    items.append(PrivacyItem(kind: kind, name: child.type.description, value: userDataText(child), path: childPath,
                                             offset: child.offset, removal: freeBoxRemoval(child, kind: kind)))
                }
            }
        }
    }

    // MARK: Classification

    /// What a `meta`/`keys` name or an iTunes-style `ilst` type tells.
    public static func keyKind(_ key: String) -> PrivacyItem.Kind? {
        let name = key.hasPrefix("com.apple.quicktime.") ? String(key.dropFirst("com.apple.quicktime.".count)) : key
        if name.hasPrefix("location.") || name == "©xyz" || name == "location" { return .location }
        if ["make", "model", "software", "©mak", "©mod", "©swr"].contains(name) || name.hasPrefix("camera.") { return .device }
        if ["author", "artist", "copyright", "©aut", "©ART", "cprt"].contains(name) { return .owner }
        if name == "creationdate" || name == "©day" { return .date }
        return nil
    }

    /// `udta` children: QuickTime's `©` items, 3GPP `loci`, and what GoPro cameras write.
    static func userDataKind(_ type: FourCC) -> PrivacyItem.Kind? {
        switch type {
        case "loci": return .location
        case "FIRM", "LENS", "CAME": return .device
        case "auth", "©own": return .owner
        case "date": return .date
        default: return keyKind(type.description)
        }
    }

    /// Only the kinds `scrub` has an option for are removed; the others are shown.
    static func freeBoxRemoval(_ box: Box, kind: PrivacyItem.Kind) -> PrivacyItem.Removal {
        guard kind == .location || kind == .device else { return .kept }
        return .freeBox(offset: box.offset, headerSize: box.headerSize, size: box.size)
    }

    static func userDataText(_ box: Box) -> String {
        let payload = box.payload
        // QuickTime international text: 16-bit length, 16-bit language, then the text.
        if box.type.rawValue >> 24 == 0xA9, payload.count >= 4 {
            let length = Int(payload[0]) << 8 | Int(payload[1])
            if length <= payload.count - 4 { return printable(Array(payload[4..<4 + length])) }
        }
        return printable(payload)
    }

    /// Text as text; binary values (GoPro's `CAME` hash) as hex.
    static func printable(_ bytes: [UInt8]) -> String {
        let shown = bytes.prefix(200)
        let trimmed = shown.reversed().drop { $0 == 0 }.reversed()
        guard let text = String(bytes: trimmed, encoding: .utf8), !text.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            return FieldDumper.hex(Array(shown))
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    // MARK: meta / keys / ilst

    /// Items of a `meta` box: `mdta` keys (Apple) or `ilst` types (iTunes-style, `©xyz`).
    static func metadataItems(_ meta: Box, path: String) -> [PrivacyItem] {
        guard let ilst = meta.first("ilst") else { return [] }
        let keys = meta.first("keys").flatMap { try? MetadataKeysBox(box: $0) }?.keys
        var items: [PrivacyItem] = []
        for item in ilst.children {
            let name: String
            if let keys {
                let index = Int(item.type.rawValue)
                guard index >= 1, index <= keys.count else { continue }
                name = keys[index - 1].text
            } else {
                name = item.type.description
            }
            guard let kind = keyKind(name) else { continue }
            let value = item.first("data").flatMap { try? MetadataDataBox(box: $0) }?.displayValue ?? ""
            items.append(PrivacyItem(kind: kind, name: name, value: value, path: path + "/ilst/" + item.type.description,
                                     offset: item.offset, removal: freeBoxRemoval(item, kind: kind)))
        }
        return items
    }

    // MARK: Timed metadata

    /// GoPro's GPMF (`gpmd`) and Google's camera motion metadata (`camm`) carry GPS per sample;
    /// Apple's `mebx` tracks carry face rectangles or places by key.
    static func timedMetadataItem(_ track: Track) -> PrivacyItem? {
        let keys = track.timedMetadataKeys
        let kind: PrivacyItem.Kind
        let what: String
        if track.format == "gpmd" {
            kind = .location; what = "GoPro GPMF telemetry (GPS with accelerometer, gyroscope, ...)"
        } else if track.format == "camm" {
            kind = .location; what = "camera motion metadata (GPS packets)"
        } else if keys.contains(where: { $0.contains("detected-face") }) {
            kind = .face; what = keys.joined(separator: " ")
        } else if keys.contains(where: { keyKind($0) == .location }) {
            kind = .location; what = keys.joined(separator: " ")
        } else {
            return nil
        }
        return PrivacyItem(kind: kind, name: "track \(track.id) (\(track.format?.description ?? "?"))", value: what,
                           path: track.path, offset: track.box.offset, removal: .dropTrack(track.id))
    }

    // MARK: XMP

    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]

    /// GPS and location properties of an XMP packet, as attributes (`exif:GPSLatitude="…"`) or
    /// elements (`<exif:GPSLatitude>…</exif:GPSLatitude>`): each is overwritten with spaces, which
    /// XML reads as whitespace between attributes or inside the parent's content.
    static func xmpItems(_ box: Box, payloadStart: UInt64, bytes: [UInt8], path: String) -> [PrivacyItem] {
        guard bytes.count <= 16 << 20 else { return [] }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.count == bytes.count else { return [] }
        let pattern = #"([A-Za-z]+:(GPS[A-Za-z]*|Location[A-Za-z]*|location))\s*=\s*"[^"]*"|<([A-Za-z]+:(GPS[A-Za-z]*|Location[A-Za-z]*|location))\b[^>]*>[^<]*</\3>"#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        var items: [PrivacyItem] = []
        let range = NSRange(text.startIndex..., in: text)
        for match in expression.matches(in: text, range: range) {
            guard let whole = Range(match.range, in: text) else { continue }
            let start = text.utf8.distance(from: text.utf8.startIndex, to: whole.lowerBound)
            let length = text.utf8.distance(from: whole.lowerBound, to: whole.upperBound)
            let nameRange = match.range(at: 1).location != NSNotFound ? match.range(at: 1) : match.range(at: 3)
            let name = Range(nameRange, in: text).map { String(text[$0]) } ?? "XMP"
            items.append(PrivacyItem(kind: .location, name: "XMP " + name, value: String(text[whole]).prefix(120).description,
                                     path: path, offset: box.offset,
                                     removal: .overwrite([.init(offset: payloadStart + UInt64(start), bytes: [UInt8](repeating: 0x20, count: length))])))
        }
        return items
    }

    // MARK: GoPro

    /// GoPro's `fdsc` track holds one binary record at the start of `mdat` that repeats the firmware,
    /// the serial numbers, the model and the ISO 6709 location as text: each is overwritten with NULs.
    static func goProDescriptionItems(_ track: Track, source: ByteSource, deviceTexts: Set<String>) -> [PrivacyItem] {
        var items: [PrivacyItem] = []
        var budget = 1 << 20
        for sample in track.sampleTable.samples {
            guard Int(sample.size) <= budget, let bytes = try? source.read(at: sample.offset, count: Int(sample.size)) else { break }
            budget -= bytes.count
            func item(_ kind: PrivacyItem.Kind, _ range: Range<Int>) -> PrivacyItem {
                PrivacyItem(kind: kind, name: "text in the GoPro fdsc sample", value: String(decoding: bytes[range], as: UTF8.self), path: track.path,
                            offset: sample.offset + UInt64(range.lowerBound),
                            removal: .overwrite([.init(offset: sample.offset + UInt64(range.lowerBound), bytes: [UInt8](repeating: 0, count: range.count))]))
            }
            items += iso6709Matches(bytes).map { item(.location, $0) }
            for text in deviceTexts.sorted() {
                let pattern = Array(text.utf8)
                var position = 0
                while position + pattern.count <= bytes.count {
                    if bytes[position..<position + pattern.count].elementsEqual(pattern) {
                        items.append(item(.device, position..<position + pattern.count))
                        position += pattern.count
                    } else {
                        position += 1
                    }
                }
            }
        }
        return items
    }

    /// GoPro's `udta/GPMF` settings name the camera (`MINF`), its firmware (`FMWR`), its serial numbers
    /// (`CASN`, the lens's `LINF`) and an identity hash (`CINF`): their values are overwritten with
    /// NULs (GPMF reads an empty string), keeping each key, type and length.
    static func gpmfDeviceItems(_ box: Box, path: String) -> [PrivacyItem] {
        let payload = box.payload
        var items: [PrivacyItem] = []
        for key in ["CASN", "MINF", "FMWR", "LINF", "CINF"] {
            let pattern = Array(key.utf8)
            var position = 0
            while position + 8 <= payload.count {
                guard payload[position..<position + 4].elementsEqual(pattern), [UInt8(ascii: "c"), UInt8(ascii: "B")].contains(payload[position + 4]) else { position += 1; continue }
                let length = Int(payload[position + 5]) * (Int(payload[position + 6]) << 8 | Int(payload[position + 7]))
                let start = position + 8
                guard length > 0, start + length <= payload.count else { position += 1; continue }
                items.append(PrivacyItem(kind: .device, name: "GPMF " + key, value: printable(Array(payload[start..<start + length])), path: path,
                                         offset: box.offset, removal: .overwrite([.init(offset: box.payloadOffset + UInt64(start), bytes: [UInt8](repeating: 0, count: length))])))
                position = start + length
            }
        }
        return items
    }
}
