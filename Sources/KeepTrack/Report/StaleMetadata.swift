import Foundation

/// Metadata left in free space: a writer that rewrote its header can leave the old one behind in a
/// `free` box (the iPhone recording's trailing `free` holds the `meta` of the header written while
/// recording: location, make, model, software, creation date). No reader shows it; a byte search does.
extension PrivacyItems {
    /// Free-space boxes larger than this are not read (a reserve that big holds no header copy worth
    /// the read; the limit keeps inspect's cost independent of padding).
    static let staleScanLimit = 16 << 20

    static func staleCopies(in box: Box, path: String, source: ByteSource) -> [PrivacyItem] {
        let length = box.payloadSize
        guard length >= 16, length <= UInt64(staleScanLimit) else { return [] }
        let bytes: [UInt8]
        switch box.content {
        case .bytes(let payload): bytes = payload
        case .external(let offset, let count): guard let read = try? source.read(at: offset, count: Int(count)) else { return [] }; bytes = read
        case .container: return []
        }
        let base = box.payloadOffset
        var items = staleKeyedItems(bytes, base: base, path: path, boxOffset: box.offset)
        let covered = items.flatMap { item -> [Range<UInt64>] in
            guard case .overwrite(let runs) = item.removal else { return [] }
            return runs.map { $0.offset..<$0.offset + UInt64($0.bytes.count) }
        }
        for match in iso6709Matches(bytes) {
            let range = base + UInt64(match.lowerBound)..<base + UInt64(match.upperBound)
            guard !covered.contains(where: { $0.overlaps(range) }) else { continue }
            items.append(PrivacyItem(kind: .location, name: "ISO 6709 text in free space", value: String(decoding: bytes[match], as: UTF8.self),
                                     path: path, offset: box.offset,
                                     removal: .overwrite([.init(offset: range.lowerBound, bytes: [UInt8](repeating: 0, count: match.count))])))
        }
        return items
    }

    static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    /// A stale `keys` box followed by its `ilst`: each item whose key tells something, with the
    /// item's whole box and its key's name as the bytes to zero (both lie in free space).
    static func staleKeyedItems(_ bytes: [UInt8], base: UInt64, path: String, boxOffset: UInt64) -> [PrivacyItem] {
        var items: [PrivacyItem] = []
        let keysType = Array("keys".utf8), ilstType = Array("ilst".utf8)
        var position = 4
        while position + 12 <= bytes.count {
            defer { position += 1 }
            guard bytes[position..<position + 4].elementsEqual(keysType) else { continue }
            let keysStart = position - 4
            let keysSize = bigEndian32(bytes, keysStart)
            guard keysSize >= 16, keysSize <= bytes.count - keysStart else { continue }
            let keysEnd = keysStart + keysSize
            let count = bigEndian32(bytes, position + 8)
            var names: [(name: String, range: Range<Int>)] = []
            var entry = position + 12
            while names.count < count, entry + 8 <= keysEnd {
                let size = bigEndian32(bytes, entry)
                guard size >= 8, size <= keysEnd - entry else { break }
                names.append((String(decoding: bytes[entry + 8..<entry + size], as: UTF8.self), entry + 8..<entry + size))
                entry += size
            }
            guard names.count == count, keysEnd + 8 <= bytes.count, bytes[keysEnd + 4..<keysEnd + 8].elementsEqual(ilstType) else { continue }
            let ilstSize = bigEndian32(bytes, keysEnd)
            guard ilstSize >= 8, ilstSize <= bytes.count - keysEnd else { continue }
            var child = keysEnd + 8
            while child + 8 <= keysEnd + ilstSize {
                let size = bigEndian32(bytes, child)
                guard size >= 8, size <= keysEnd + ilstSize - child else { break }
                let index = bigEndian32(bytes, child + 4)
                defer { child += size }
                guard index >= 1, index <= names.count, let kind = keyKind(names[index - 1].name) else { continue }
                let valueStart = child + 24 <= child + size ? child + 24 : child + size
                let value = String(decoding: bytes[valueStart..<child + size], as: UTF8.self)
                let removable = kind == .location || kind == .device
                let key = names[index - 1].range
                items.append(PrivacyItem(kind: kind, name: names[index - 1].name + " (stale copy)", value: value, path: path, offset: boxOffset,
                    removal: removable ? .overwrite([.init(offset: base + UInt64(key.lowerBound), bytes: [UInt8](repeating: 0, count: key.count)),
                                                     .init(offset: base + UInt64(child), bytes: [UInt8](repeating: 0, count: size))]) : .kept))
            }
            position = keysEnd + ilstSize - 1
        }
        return items
    }

    /// ISO 6709 points as QuickTime writes them: `+48.4270-123.3603+025.813/` (latitude, longitude,
    /// optional altitude, a closing slash).
    static func iso6709Matches(_ bytes: [UInt8]) -> [Range<Int>] {
        let text = String(decoding: bytes.map { $0 < 0x80 ? $0 : 0x3F }, as: UTF8.self)
        guard let expression = try? NSRegularExpression(pattern: #"[+-][0-9]{2}(\.[0-9]+)?[+-][0-9]{3}(\.[0-9]+)?([+-][0-9]+(\.[0-9]+)?)?(CRS[A-Za-z0-9:]+)?/"#) else { return [] }
        return expression.matches(in: text, range: NSRange(location: 0, length: (text as NSString).length)).map { $0.range.location..<$0.range.location + $0.range.length }
    }
}

/// The movie header's creation time, as a date.
enum MovieHeaderBoxDate {
    static func creation(_ moov: Box) throws -> (text: String, offset: UInt64)? {
        guard let box = moov.first("mvhd") else { return nil }
        let header = try MovieHeaderBox(box: box)
        guard header.times.creationTime > 0 else { return nil }
        // Seconds since 1904-01-01 UTC.
        let date = Date(timeIntervalSince1970: Double(header.times.creationTime) - 2_082_844_800)
        let formatter = ISO8601DateFormatter()
        return (formatter.string(from: date), box.offset)
    }
}
