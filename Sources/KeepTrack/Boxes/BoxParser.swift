/// Reads a box tree. Top-level boxes are located by their headers alone; `moov` (and other small
/// top-level boxes) are loaded and parsed in memory, `mdat` stays in the file.
public enum BoxParser {
    /// Deeper nesting than this is not a movie but an attempt to exhaust the stack.
    public static let maximumDepth = 48
    /// More top-level boxes than this is not a movie (a fragmented one has a moof+mdat pair per fragment:
    /// 14 hours of 2-second fragments) but a way to make the box list itself exhaust memory and time.
    public static let maximumTopLevelBoxes = 50_000
    /// Top-level boxes other than `moov`/`moof`/`meta` larger than this stay in the file.
    public static let loadLimit: UInt64 = 1 << 20
    static let alwaysLoaded: Set<FourCC> = ["moov", "moof", "meta", "ftyp", "styp", "sidx", "mfra", "uuid", "udta"]

    /// Parses the top level of `source`.
    public static func parseFile(_ source: ByteSource) throws -> [Box] {
        var boxes: [Box] = []
        var offset: UInt64 = 0
        let size = source.size
        if size == 0 { throw KeepTrackError.malformed(path: "", offset: 0, reason: "the file is empty") }
        var reader = ReadAhead(source: source)
        // One context for every box of the file: entering a container pushes onto it, leaving pops.
        var context = ParseContext()
        while offset < size {
            let remaining = size - offset
            guard remaining >= 8 else {
                if offset == 0 { throw notAMovie(try source.read(at: 0, count: Int(remaining)), size: size) }
                throw KeepTrackError.malformed(path: "", offset: offset, reason: "\(remaining) stray bytes at the end of the file, too few for a box header")
            }
            // 16 header bytes (32 for a uuid box): reading further could reach into media data.
            var head = try reader.read(at: offset, count: Int(min(remaining, 16)))
            if head.count >= 8, FourCC(bytes: head.dropFirst(4).prefix(4)) == "uuid" { head = try reader.read(at: offset, count: Int(min(remaining, 32))) }
            var header: Header
            do {
                // A last mdat that claims bytes past the end (a writer that did not finish its size, or
                // counted a few bytes twice) is read as what is there, as players do; `Movie` says so
                // (`shortMediaData`) and a sample beyond the end is still malformed input.
                // So is a last free or skip box: padding, whose bytes mean nothing (an iPhone movie one byte short,
                // inside the padding after its moov, was refused by every command; ffprobe read every frame).
                let type = FourCC(bytes: head.dropFirst(4).prefix(4))
                let readAsThere = type == "mdat" || type == "free" || type == "skip"
                header = try parseHeader(head, available: readAsThere ? UInt64.max : remaining, offset: offset, path: "", topLevel: true)
                if readAsThere, header.form == .toEnd || header.size > remaining { header.size = remaining }
            } catch {
                // A first "box" that is not one means the file is something else (text, an image, ...):
                // say so instead of naming four bytes of it as a box type.
                if offset == 0, !knownTopLevel.contains(FourCC(bytes: head.dropFirst(4).prefix(4))) { throw notAMovie(Array(head), size: size) }
                throw error
            }
            if offset == 0, !knownTopLevel.contains(header.type), !header.type.isPrintable { throw notAMovie(Array(head), size: size) }
            let payloadLength = header.size - UInt64(header.headerSize)
            let payloadOffset = offset + UInt64(header.headerSize)
            var box: Box
            if header.type == "mdat" || (payloadLength > loadLimit && !alwaysLoaded.contains(header.type)) {
                box = Box(type: header.type, content: .external(offset: payloadOffset, length: payloadLength),
                          headerForm: header.form, userType: header.userType, offset: offset)
            } else {
                guard payloadLength <= UInt64(Int32.max) else {
                    throw KeepTrackError.malformed(path: header.type.description, offset: offset, reason: "box of \(payloadLength) bytes is too large to be a header box")
                }
                let payload = try reader.read(at: payloadOffset, count: Int(payloadLength))
                box = try parseBox(type: header.type, form: header.form, userType: header.userType, payload: payload,
                                   offset: offset, headerSize: header.headerSize, context: &context, index: 0, depth: 0)
            }
            boxes.append(box)
            offset += header.size
            if boxes.count >= maximumTopLevelBoxes, offset < size {
                throw KeepTrackError.malformed(path: "", offset: offset, reason: "more than \(maximumTopLevelBoxes) top-level boxes")
            }
        }
        return boxes
    }

    /// An `mdat` whose header claims more bytes than the file holds: the box (holding what is there)
    /// and the size it declares.
    public struct ShortMediaData: Sendable {
        public let box: Box
        public let declaredSize: UInt64
    }

    /// The last top-level box when it is an `mdat` whose header claims more bytes than the file holds.
    public static func shortMediaData(_ boxes: [Box], source: ByteSource) -> ShortMediaData? {
        guard let last = boxes.last, last.type == "mdat", case .external = last.content else { return nil }
        return shortLastBox(boxes, source: source)
    }

    /// The last top-level box when it is a `free` or `skip` whose header claims more bytes than the file holds.
    public static func shortPadding(_ boxes: [Box], source: ByteSource) -> ShortMediaData? {
        guard let last = boxes.last, last.type == "free" || last.type == "skip" else { return nil }
        return shortLastBox(boxes, source: source)
    }

    private static func shortLastBox(_ boxes: [Box], source: ByteSource) -> ShortMediaData? {
        guard let last = boxes.last, last.headerForm != .toEnd,
              let head = try? source.read(at: last.offset, count: last.headerForm == .large ? 16 : 8) else { return nil }
        let declared = last.headerForm == .large ? head[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                                                 : head[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return declared > last.size ? ShortMediaData(box: last, declaredSize: declared) : nil
    }

    /// Reads the top level in as few reads as it can without reading media data: each read takes
    /// what is asked and the next box header after it (16 bytes), so a box's payload read also
    /// brings the following header, and a fragment's moof read never runs into the mdat after it
    /// (a 64 KiB window did: 16 % of a fragmented movie's media data read by inspect).
    struct ReadAhead {
        let source: ByteSource
        var window: [UInt8] = []
        var start: UInt64 = 0
        static let windowSize = 1 << 16
        static let nextHeader = 16

        /// `count` bytes at `offset`; the caller has checked they lie inside the file.
        mutating func read(at offset: UInt64, count: Int) throws -> ArraySlice<UInt8> {
            if offset >= start, offset - start + UInt64(count) <= UInt64(window.count) {
                let from = window.startIndex + Int(offset - start)
                return window[from..<from + count]
            }
            if count > Self.windowSize { return try source.read(at: offset, count: count)[...] }
            window = try source.read(at: offset, count: Int(min(UInt64(count + Self.nextHeader), source.size - offset)))
            start = offset
            return window[0..<count]
        }
    }

    /// Types a movie file can start with (QuickTime files without `ftyp` start with any of these).
    static let knownTopLevel: Set<FourCC> = [
        "ftyp", "moov", "mdat", "wide", "free", "skip", "pnot", "uuid", "junk", "PICT", "styp", "sidx", "moof", "mfra", "meta", "pdin", "udta",
    ]

    static func notAMovie(_ head: [UInt8], size: UInt64) -> KeepTrackError {
        let start = Array(head.prefix(16))
        let isText = start.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let shown = isText
            ? "text \"" + String(decoding: start.map { $0 < 0x20 ? 0x20 : $0 }, as: UTF8.self) + "\""
            : "bytes " + FieldDumper.hex(start)
        return .malformed(path: "", offset: 0, reason: "not a QuickTime/MP4 movie: the file (\(size) bytes) starts with \(shown), not a box header")
    }

    /// Parses a sequence of boxes held in memory (the payload of a container, or a test buffer).
    public static func parseBoxes(_ bytes: [UInt8], baseOffset: UInt64 = 0) throws -> [Box] {
        var context = ParseContext()
        let result = try parseChildren(bytes[...], from: 0, baseOffset: baseOffset, context: &context, depth: 0, strict: true)
        guard result.trailer.isEmpty else {
            throw KeepTrackError.malformed(path: "", offset: baseOffset + UInt64(bytes.count - result.trailer.count),
                                           reason: "\(result.trailer.count) stray bytes after the last box")
        }
        return result.children
    }

    struct Header {
        var type: FourCC
        var size: UInt64
        var headerSize: Int
        var form: Box.HeaderForm
        var userType: [UInt8]?
    }

    /// The header at the start of `bytes`; `path` (the parent's, for messages) is built only when one is thrown.
    static func parseHeader(_ bytes: ArraySlice<UInt8>, available: UInt64, offset: UInt64, path: @autoclosure () -> String, topLevel: Bool) throws -> Header {
        let count = min(bytes.count, 32)
        let base = bytes.startIndex
        func byte(_ index: Int) -> UInt8 { bytes[base + index] }
        guard count >= 8 else {
            throw KeepTrackError.malformed(path: path(), offset: offset, reason: "box header needs 8 bytes, only \(count) left")
        }
        let size32 = UInt32(byte(0)) << 24 | UInt32(byte(1)) << 16 | UInt32(byte(2)) << 8 | UInt32(byte(3))
        let type = FourCC(rawValue: UInt32(byte(4)) << 24 | UInt32(byte(5)) << 16 | UInt32(byte(6)) << 8 | UInt32(byte(7)))
        // Built only for error messages: parsing many boxes must not build as many strings.
        func name() -> String { let parent = path(); return parent.isEmpty ? type.description : parent + "/" + type.description }
        var headerSize = 8
        var size: UInt64
        var form = Box.HeaderForm.compact
        switch size32 {
        case 1:
            guard count >= 16 else {
                throw KeepTrackError.malformed(path: name(), offset: offset, reason: "64-bit box size needs 16 header bytes, only \(count) left")
            }
            size = (8..<16).reduce(0) { $0 << 8 | UInt64(byte($1)) }
            headerSize = 16
            form = .large
        case 0:
            size = available
            form = .toEnd
        default:
            size = UInt64(size32)
        }
        var userType: [UInt8]?
        if type == "uuid" {
            guard count >= headerSize + 16 else {
                throw KeepTrackError.malformed(path: name(), offset: offset, reason: "uuid box header needs \(headerSize + 16) bytes")
            }
            userType = Array(bytes[(base + headerSize)..<(base + headerSize + 16)])
            headerSize += 16
        }
        guard size >= UInt64(headerSize) else {
            throw KeepTrackError.malformed(path: name(), offset: offset, reason: "box size \(size) is smaller than its \(headerSize)-byte header")
        }
        guard size <= available else {
            throw KeepTrackError.malformed(path: name(), offset: offset,
                                           reason: "box claims \(size) bytes but only \(available) remain in \(topLevel ? "the file" : "its parent")")
        }
        return Header(type: type, size: size, headerSize: headerSize, form: form, userType: userType)
    }

    /// Parses one box whose payload is `payload` (a slice of its parent's bytes, so nesting copies nothing).
    /// `context` is the parent's level; `index` is the box's position among its same-type siblings
    /// (its path, `context.path(appending: type, index: index)`, is built only for a message).
    static func parseBox(type: FourCC, form: Box.HeaderForm, userType: [UInt8]?, payload: ArraySlice<UInt8>, offset: UInt64, headerSize: Int,
                         context: inout ParseContext, index: Int, depth: Int) throws -> Box {
        guard depth < maximumDepth else {
            throw KeepTrackError.malformed(path: context.path(appending: type, index: index), offset: offset, reason: "boxes nested more than \(maximumDepth) deep")
        }
        let payloadOffset = offset + UInt64(headerSize)
        context.noting(type, payload: payload)
        // The layout depends only on the first fields (sample-entry versions), never on more than 64 bytes.
        switch BoxSchema.layout(of: type, payload: payload.prefix(64), context: context) {
        case .leaf:
            return Box(type: type, content: .bytes(Array(payload)), headerForm: form, userType: userType, offset: offset)
        case .container(let prefixLength, let strict):
            guard payload.count >= prefixLength else {
                if strict {
                    throw KeepTrackError.malformed(path: context.path(appending: type, index: index), offset: payloadOffset,
                                                   reason: "needs \(prefixLength) bytes of fields, has \(payload.count)")
                }
                return Box(type: type, content: .bytes(Array(payload)), headerForm: form, userType: userType, offset: offset)
            }
            let handler = context.handler
            context.enter(type, index: index)
            defer { context.leave(restoring: handler) }
            do {
                let parsed = try parseChildren(payload, from: prefixLength, baseOffset: payloadOffset, context: &context, depth: depth + 1, strict: strict)
                let container = Box.Container(prefix: Array(payload.prefix(prefixLength)), children: parsed.children, trailer: parsed.trailer)
                return Box(type: type, content: .container(container), headerForm: form, userType: userType, offset: offset)
            } catch let error as KeepTrackError where !strict {
                // A lenient container whose contents are not boxes: keep it whole, as it was.
                if case .malformed(_, _, let reason) = error, reason.contains("nested more than") { throw error }
                return Box(type: type, content: .bytes(Array(payload)), headerForm: form, userType: userType, offset: offset)
            }
        }
    }

    /// Counts boxes of each type among one container's children, without allocating for the few
    /// types a container usually holds.
    struct SiblingCounter {
        var types: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var counts: (Int, Int, Int, Int) = (0, 0, 0, 0)
        var used = 0
        var others: [FourCC: Int] = [:]

        /// How many boxes of `type` came before this one; counts it.
        mutating func next(_ type: FourCC) -> Int {
            let raw = type.rawValue
            if used > 0, types.0 == raw { counts.0 += 1; return counts.0 - 1 }
            if used > 1, types.1 == raw { counts.1 += 1; return counts.1 - 1 }
            if used > 2, types.2 == raw { counts.2 += 1; return counts.2 - 1 }
            if used > 3, types.3 == raw { counts.3 += 1; return counts.3 - 1 }
            switch used {
            case 0: types.0 = raw; counts.0 = 1
            case 1: types.1 = raw; counts.1 = 1
            case 2: types.2 = raw; counts.2 = 1
            case 3: types.3 = raw; counts.3 = 1
            default:
                let index = others[type, default: 0]
                others[type] = index + 1
                return index
            }
            used += 1
            return 0
        }
    }

    /// How many boxes the 32-bit sizes in `payload` chain through (stopping at the first one that does
    /// not fit), so the children array is allocated once; parsing checks every header properly.
    static func childCountEstimate(_ payload: ArraySlice<UInt8>, from start: Int) -> Int {
        var count = 0, position = payload.startIndex + start
        while payload.endIndex - position >= 8, count < 64 {
            let size = Int(payload[position]) << 24 | Int(payload[position + 1]) << 16 | Int(payload[position + 2]) << 8 | Int(payload[position + 3])
            guard size >= 8, size <= payload.endIndex - position else { break }
            position += size
            count += 1
        }
        return count
    }

    /// Parses the boxes in `payload` after its first `start` bytes; positions are relative to the slice start.
    /// `context` is the container's own level (its path names the container in messages).
    static func parseChildren(_ payload: ArraySlice<UInt8>, from start: Int, baseOffset: UInt64, context: inout ParseContext,
                              depth: Int, strict: Bool) throws -> (children: [Box], trailer: [UInt8]) {
        var children: [Box] = []
        let base = payload.startIndex
        var position = start
        var counter = SiblingCounter()
        children.reserveCapacity(childCountEstimate(payload, from: start))
        while position < payload.count {
            let remaining = payload.count - position
            let childOffset = baseOffset + UInt64(position)
            if remaining < 8 {
                // Fewer bytes than a header: QuickTime's 32-bit zero terminator, or padding.
                if strict, payload[(base + position)...].contains(where: { $0 != 0 }) {
                    throw KeepTrackError.malformed(path: context.path(), offset: childOffset, reason: "\(remaining) stray bytes after the last child box")
                }
                return (children, Array(payload[(base + position)...]))
            }
            let header = try parseHeader(payload[(base + position)...], available: UInt64(remaining), offset: childOffset, path: context.path(), topLevel: false)
            if header.form == .toEnd {
                let parent = context.path()
                throw KeepTrackError.malformed(path: (parent.isEmpty ? "" : parent + "/") + header.type.description, offset: childOffset,
                                               reason: "size 0 (box runs to the end of the file) is only allowed for top-level boxes")
            }
            let childPayload = payload[(base + position + header.headerSize)..<(base + position + Int(header.size))]
            let child = try parseBox(type: header.type, form: header.form, userType: header.userType, payload: childPayload,
                                     offset: childOffset, headerSize: header.headerSize, context: &context, index: counter.next(header.type), depth: depth)
            children.append(child)
            position += Int(header.size)
        }
        return (children, [])
    }
}
