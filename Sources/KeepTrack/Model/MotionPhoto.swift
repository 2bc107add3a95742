import Foundation

/// A still photo carrying a short movie, as phones store "motion photos":
/// - Samsung HEIC: the movie is the payload of a top-level `mpvd` box after the picture's boxes;
/// - Google MotionPhoto JPEG (Samsung writes this layout too): the movie is appended after the JPEG,
///   its length in the XMP (`GCamera:MicroVideoOffset`, bytes from the movie's start to the end of the
///   file, or `Container:Directory` items whose `Item:Length`s lay the appended files out up to the end);
/// - older Samsung JPEGs: the movie follows a `MotionPhoto_Data` marker after the JPEG, before the
///   Samsung trailer.
/// `find` only locates the bytes; the movie is read from them as any movie (`movie()`).
public struct MotionPhoto: Sendable, Equatable {
    public enum Layout: String, Sendable {
        case samsungHEIC = "Samsung HEIC (mpvd box)"
        case googleMicroVideo = "Google MotionPhoto JPEG (GCamera:MicroVideoOffset)"
        case googleContainer = "Google MotionPhoto (Container:Directory)"
        case samsungMarker = "Samsung JPEG (MotionPhoto_Data)"
    }

    public var layout: Layout
    /// Where the movie's first byte is in the photo file, and its length.
    public var offset: UInt64
    public var size: UInt64

    /// The movie's bytes as a source of their own (offsets from the movie's first byte).
    public func source(in photo: ByteSource) -> ByteSource { WindowByteSource(base: photo, offset: offset, length: size) }

    /// The embedded movie, read as any movie.
    public func movie(in photo: ByteSource) throws -> Movie { try Movie(source: source(in: photo)) }

    /// The embedded movie of `source`, or nil when it is not a motion photo this recognises. Reads the
    /// JPEG marker segments (not the picture data) or the top-level boxes, and a few bytes to check that
    /// what the layout points at starts with a box; never throws on bad bytes.
    public static func find(in source: ByteSource) -> MotionPhoto? {
        guard let head = try? source.read(at: 0, count: Int(min(source.size, 12))), head.count >= 4 else { return nil }
        let found: MotionPhoto?
        if head[0] == 0xFF, head[1] == 0xD8 {
            found = jpeg(source)
        } else {
            found = heic(source)
        }
        guard let found, startsWithBox(source, at: found.offset, size: found.size) else { return nil }
        return found
    }

    /// A top-level `mpvd` box of an ISO file (HEIC), its payload the movie.
    static func heic(_ source: ByteSource) -> MotionPhoto? {
        var offset: UInt64 = 0
        for _ in 0..<4096 {
            guard offset + 8 <= source.size, let header = try? source.read(at: offset, count: 8) else { return nil }
            var size = UInt64(be(header[0..<4]))
            var headerSize: UInt64 = 8
            if size == 1 {
                guard offset + 16 <= source.size, let large = try? source.read(at: offset + 8, count: 8) else { return nil }
                size = be(large[0..<8])
                headerSize = 16
            } else if size == 0 {
                size = source.size - offset
            }
            guard size >= headerSize, size <= source.size - offset else { return nil }
            if FourCC(bytes: header[4..<8]) == "mpvd" {
                return MotionPhoto(layout: .samsungHEIC, offset: offset + headerSize, size: size - headerSize)
            }
            offset += size
        }
        return nil
    }

    /// The JPEG's XMP says where the movie is; without XMP, Samsung's marker does.
    static func jpeg(_ source: ByteSource) -> MotionPhoto? {
        if let xmp = xmpPacket(source), let found = fromXMP(xmp, fileSize: source.size) { return found }
        return samsungMarker(source)
    }

    /// The XMP packet of the first APP1 segment that holds one (marker segments before the scan only).
    static func xmpPacket(_ source: ByteSource) -> String? {
        let signature = Array("http://ns.adobe.com/xap/1.0/\u{0}".utf8)
        var offset: UInt64 = 2
        for _ in 0..<256 {
            guard offset + 4 <= source.size, let marker = try? source.read(at: offset, count: 4), marker[0] == 0xFF else { return nil }
            let kind = marker[1]
            // Start of scan or end of image: no more metadata segments.
            if kind == 0xDA || kind == 0xD9 { return nil }
            let length = UInt64(marker[2]) << 8 | UInt64(marker[3])
            guard length >= 2, offset + 2 + length <= source.size else { return nil }
            if kind == 0xE1, length - 2 > UInt64(signature.count),
               let payload = try? source.read(at: offset + 4, count: Int(length - 2)), Array(payload.prefix(signature.count)) == signature {
                return String(decoding: payload.dropFirst(signature.count), as: UTF8.self)
            }
            offset += 2 + length
        }
        return nil
    }

    /// `GCamera:MicroVideoOffset` (motion photo version 1), else the `Container:Directory` item marked
    /// `MotionPhoto`: the items after the primary picture fill the end of the file in order.
    static func fromXMP(_ xmp: String, fileSize: UInt64) -> MotionPhoto? {
        if let length = value(of: "GCamera:MicroVideoOffset", in: xmp).flatMap(UInt64.init), length > 0, length < fileSize {
            return MotionPhoto(layout: .googleMicroVideo, offset: fileSize - length, size: length)
        }
        let items = containerItems(xmp)
        guard let index = items.firstIndex(where: { $0.semantic == "MotionPhoto" }), index > 0 else { return nil }
        var after: UInt64 = 0
        for item in items[index...] {
            let (sum, overflow) = after.addingReportingOverflow(item.length &+ item.padding)
            guard !overflow, item.length > 0 || item.semantic != "MotionPhoto" else { return nil }
            after = sum
        }
        guard after > 0, after < fileSize else { return nil }
        return MotionPhoto(layout: .googleContainer, offset: fileSize - after, size: items[index].length)
    }

    struct ContainerItem: Equatable {
        var semantic: String
        var length: UInt64
        var padding: UInt64
    }

    /// Each `Container:Item` (attributes or child elements) in order.
    static func containerItems(_ xmp: String) -> [ContainerItem] {
        var items: [ContainerItem] = []
        var rest = Substring(xmp)
        while items.count < 64, let start = rest.range(of: "<Container:Item") {
            rest = rest[start.upperBound...]
            // The item runs to the next item (or the end of the directory).
            let end = rest.range(of: "<Container:Item")?.lowerBound ?? rest.range(of: "</Container:Directory")?.lowerBound ?? rest.endIndex
            let text = String(rest[..<end])
            items.append(ContainerItem(semantic: value(of: "Item:Semantic", in: text) ?? "",
                                       length: value(of: "Item:Length", in: text).flatMap(UInt64.init) ?? 0,
                                       padding: value(of: "Item:Padding", in: text).flatMap(UInt64.init) ?? 0))
            rest = rest[end...]
        }
        return items
    }

    /// An XMP property written as an attribute (`name="v"`) or an element (`<name>v</name>`).
    static func value(of name: String, in xmp: String) -> String? {
        if let start = xmp.range(of: name + "=\"") {
            let rest = xmp[start.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]).trimmingCharacters(in: .whitespaces) }
        }
        if let start = xmp.range(of: "<" + name + ">") {
            let rest = xmp[start.upperBound...]
            return rest.range(of: "</" + name + ">").map { String(rest[..<$0.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        return nil
    }

    /// `MotionPhoto_Data` followed by the movie; the movie ends where its top-level boxes stop.
    static func samsungMarker(_ source: ByteSource) -> MotionPhoto? {
        let marker = Array("MotionPhoto_Data".utf8)
        let block = 1 << 20
        var offset: UInt64 = 0
        while offset < source.size {
            let count = Int(min(UInt64(block + marker.count), source.size - offset))
            guard let bytes = try? source.read(at: offset, count: count) else { return nil }
            if let found = firstIndex(of: marker, in: bytes) {
                let start = offset + UInt64(found + marker.count)
                let size = boxRunLength(source, from: start)
                return size > 0 ? MotionPhoto(layout: .samsungMarker, offset: start, size: size) : nil
            }
            offset += UInt64(block)
        }
        return nil
    }

    static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var index = 0
        while index <= bytes.count - needle.count {
            guard let next = bytes[index...].firstIndex(of: needle[0]), next <= bytes.count - needle.count else { return nil }
            if Array(bytes[next..<next + needle.count]) == needle { return next }
            index = next + 1
        }
        return nil
    }

    /// Bytes from `start` covered by consecutive well-formed box headers (printable type, size inside the file).
    static func boxRunLength(_ source: ByteSource, from start: UInt64) -> UInt64 {
        var offset = start
        for _ in 0..<4096 {
            guard offset + 8 <= source.size, let header = try? source.read(at: offset, count: 8) else { break }
            var size = be(header[0..<4])
            if size == 1 {
                guard offset + 16 <= source.size, let large = try? source.read(at: offset + 8, count: 8) else { break }
                size = be(large[0..<8])
            }
            guard FourCC(bytes: header[4..<8]).isPrintable, size >= 8, size <= source.size - offset else { break }
            offset += size
        }
        return offset - start
    }

    /// What the layout points at must start with a box (`ftyp`, or any printable type) inside the file.
    static func startsWithBox(_ source: ByteSource, at offset: UInt64, size: UInt64) -> Bool {
        guard size >= 8, offset <= source.size, size <= source.size - offset,
              let header = try? source.read(at: offset, count: 8) else { return false }
        let boxSize = be(header[0..<4])
        return FourCC(bytes: header[4..<8]).isPrintable && (boxSize == 1 || (boxSize >= 8 && boxSize <= size) || boxSize == 0)
    }

    static func be<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }

    /// One line: where the movie is and in what layout.
    public var summary: String { "motion photo, \(layout.rawValue): an embedded movie at byte \(offset), \(size) bytes" }

    /// The sentence an error about the photo adds: what reads it.
    public var hint: String {
        "a motion photo (\(layout.rawValue)) with a movie of \(size) bytes at byte \(offset): `keeptrack extract-movie PHOTO OUT` writes it as a movie of its own, `inspect` shows it"
    }
}

/// `length` bytes of another source from `offset`, read as a source of their own.
final class WindowByteSource: ByteSource {
    let base: ByteSource
    let offset: UInt64
    let size: UInt64

    init(base: ByteSource, offset: UInt64, length: UInt64) {
        self.base = base
        self.offset = offset
        size = length
    }

    func read(at position: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, position <= size, UInt64(count) <= size - position else {
            throw KeepTrackError.malformed(path: "", offset: position, reason: "read of \(count) bytes past the end of the embedded movie (\(size) bytes)")
        }
        return try base.read(at: offset + position, count: count)
    }
}
