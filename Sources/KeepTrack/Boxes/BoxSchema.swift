/// Which boxes hold other boxes, and how many bytes of their own fields come first.
///
/// This is the one place that knows the shape of containers; typed fields of leaf boxes live
/// in `Types/`, one file per box. A container is *strict* when keeptrack relies on it (a broken
/// `moov` or `stbl` is malformed input) and *lenient* otherwise (a `udta` whose contents are not
/// boxes is kept as opaque bytes instead of rejecting the file).
public enum BoxLayout: Equatable, Sendable {
    case leaf
    case container(prefix: Int, strict: Bool)
}

/// Where a box is, to tell apart boxes whose layout and meaning depend on context. The parser and
/// the dump walk the tree the same way through `entering(_:)` and `noting(_:payload:)`, so they
/// always agree on a box's handler.
public struct ParseContext: Sendable {
    /// Types from the top of the file down to the parent of the box being parsed.
    public var ancestors: [FourCC] = []
    /// Handler type of the enclosing media (`vide`, `soun`, `meta`, ...), known once its `mdia/hdlr` was read.
    public var handler: FourCC?

    public init() {}

    public var parent: FourCC? { ancestors.last }
    public var grandparent: FourCC? { ancestors.dropLast().last }

    /// Each ancestor's position among its same-type siblings (0: the first), to name paths in messages.
    var ancestorIndices: [Int] = []

    /// The context of the children of a box of `type` (a new track starts without a handler).
    public func entering(_ type: FourCC) -> ParseContext {
        var inner = self
        inner.enter(type, index: 0)
        return inner
    }

    /// `entering(_:)` in place, for a walk that calls `leave(restoring:)` after the box's children:
    /// the parser keeps one context for a whole tree instead of copying it into every container.
    mutating func enter(_ type: FourCC, index: Int) {
        ancestors.append(type)
        ancestorIndices.append(index)
        if type == "trak" { handler = nil }
    }

    /// Back to the parent's context after `enter`: `handler` is what the parent's level had.
    mutating func leave(restoring handler: FourCC?) {
        ancestors.removeLast()
        ancestorIndices.removeLast()
        self.handler = handler
    }

    /// The path of the current level (`moov/trak[2]/mdia`), or of its child `type` at `index` among
    /// its same-type siblings. Built only for messages.
    func path(appending type: FourCC? = nil, index: Int = 0) -> String {
        var parts: [String] = []
        for (level, ancestor) in ancestors.enumerated() {
            parts.append(Self.name(ancestor, index: level < ancestorIndices.count ? ancestorIndices[level] : 0))
        }
        if let type { parts.append(Self.name(type, index: index)) }
        return parts.joined(separator: "/")
    }

    static func name(_ type: FourCC, index: Int) -> String { index == 0 ? type.description : "\(type)[\(index + 1)]" }

    /// Takes note of a box at this level before its own children are read: an `mdia/hdlr` names
    /// the handler its siblings (and their sample entries) belong to.
    public mutating func noting(_ type: FourCC, payload: some Collection<UInt8>) {
        if type == "hdlr", parent == "mdia", let handlerType = BoxSchema.handlerType(hdlrPayload: payload) { handler = handlerType }
    }
}

/// The shape of a track's sample entries, from its handler type.
public enum SampleEntryForm: Sendable, Equatable {
    /// VisualSampleEntry / ImageDescription: 78 bytes of fields, then boxes.
    case visual
    /// AudioSampleEntry / SoundDescription v0, v1 or v2: 28, 44 or 64 bytes, then boxes.
    case audio
    /// Anything else: boxed metadata entries (`mebx`, ...) or opaque entries.
    case other
}

public enum BoxSchema {
    static let strictContainers: Set<FourCC> = [
        "moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "mvex", "moof", "traf", "mfra",
    ]
    static let lenientContainers: Set<FourCC> = [
        "udta", "tref", "tapt", "gmhd", "ilst", "wave", "sinf", "schi", "clip", "matt", "rinf",
        // Spatial and immersive video, in a visual sample entry (StereoVideoBoxes.swift); Google's spherical `proj` too.
        "vexu", "eyes", "proj", "cams", "cmfy",
    ]
    /// The same sets as raw values, searched without hashing (asked for every box parsed).
    static let strictContainerCodes = strictContainers.map(\.rawValue)
    static let lenientContainerCodes = lenientContainers.map(\.rawValue)
    /// Handler types whose sample entries are VisualSampleEntry.
    static let visualHandlers: Set<FourCC> = ["vide", "pict", "auxv"]
    /// Handler types whose sample entries are AudioSampleEntry / SoundDescription.
    static let audioHandlers: Set<FourCC> = ["soun"]
    /// Sample entries of metadata tracks whose children are boxes right after the 8-byte SampleEntry header.
    static let boxedMetadataEntries: Set<FourCC> = ["mebx", "mett", "metx", "urim"]

    /// The handler type in an `hdlr` payload (after version/flags and the QuickTime component type).
    public static func handlerType(hdlrPayload payload: some Collection<UInt8>) -> FourCC? {
        guard payload.count >= 12 else { return nil }
        return FourCC(bytes: payload.dropFirst(8).prefix(4))
    }

    /// What sample entries under `handler` look like.
    public static func sampleEntryForm(handler: FourCC?) -> SampleEntryForm {
        guard let handler else { return .other }
        if visualHandlers.contains(handler) { return .visual }
        if audioHandlers.contains(handler) { return .audio }
        return .other
    }

    /// The typed view of the fields of a sample entry under `handler` (nil: no typed fields).
    public static func sampleEntryView(handler: FourCC?) -> (any FieldCodable.Type)? {
        switch sampleEntryForm(handler: handler) {
        case .visual: VisualSampleEntry.self
        case .audio: AudioSampleEntry.self
        case .other: nil
        }
    }

    public static func layout(of type: FourCC, payload: [UInt8], context: ParseContext) -> BoxLayout {
        layout(of: type, payload: payload[...], context: context)
    }

    /// The layout from the first bytes of the payload, read in place (asked for every box parsed).
    static func layout(of type: FourCC, payload: ArraySlice<UInt8>, context: ParseContext) -> BoxLayout {
        let parent = context.ancestors.last
        if strictContainerCodes.contains(type.rawValue) { return .container(prefix: 0, strict: true) }
        if type == "stsd" { return .container(prefix: 8, strict: true) }
        if type == "dref" { return .container(prefix: 8, strict: false) }
        if parent == "stsd" { return sampleEntryLayout(format: type, payload: payload, context: context) }
        if parent == "ilst" { return .container(prefix: 0, strict: false) }
        if type == "meta" {
            // QuickTime `meta` has no version/flags; ISO `meta` is a full box. The first child tells.
            if payload.count >= 8, FourCC(bytes: payload.dropFirst(4).prefix(4)) == "hdlr" { return .container(prefix: 0, strict: false) }
            return .container(prefix: 4, strict: false)
        }
        // Inside a `mebx` sample entry: `keys` holds one box per local key id, each holding keyd/dtyp/...
        if type == "keys", let parent, boxedMetadataEntries.contains(parent) { return .container(prefix: 0, strict: false) }
        if parent == "keys", context.ancestors.dropLast().last.map(boxedMetadataEntries.contains) == true {
            return .container(prefix: 0, strict: false)
        }
        if lenientContainerCodes.contains(type.rawValue) { return .container(prefix: 0, strict: false) }
        return .leaf
    }

    static func sampleEntryLayout(format: FourCC, payload: ArraySlice<UInt8>, context: ParseContext) -> BoxLayout {
        guard context.handler != nil else { return .leaf }
        switch sampleEntryForm(handler: context.handler) {
        case .visual: return .container(prefix: 78, strict: false)
        case .audio:
            guard payload.count >= 28 else { return .leaf }
            let version = UInt16(payload[payload.startIndex + 8]) << 8 | UInt16(payload[payload.startIndex + 9])
            switch version {
            case 0: return .container(prefix: 28, strict: false)
            case 1: return .container(prefix: 44, strict: false)
            case 2:
                guard payload.count >= 64 else { return .leaf }
                return .container(prefix: 64, strict: false)
            default: return .leaf
            }
        case .other:
            return boxedMetadataEntries.contains(format) ? .container(prefix: 8, strict: false) : .leaf
        }
    }
}
