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

/// What the parser knows about where it is, to tell apart boxes whose layout depends on context.
public struct ParseContext: Sendable {
    /// Types from the top of the file down to the parent of the box being parsed.
    public var ancestors: [FourCC] = []
    /// Handler type of the enclosing track (`vide`, `soun`, `meta`, ...), known once `mdia/hdlr` was read.
    public var handler: FourCC?

    public init() {}
}

public enum BoxSchema {
    static let strictContainers: Set<FourCC> = [
        "moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "mvex", "moof", "traf", "mfra",
    ]
    static let lenientContainers: Set<FourCC> = [
        "udta", "tref", "tapt", "gmhd", "ilst", "wave", "sinf", "schi", "clip", "matt", "rinf",
    ]
    /// Handler types whose sample entries are VisualSampleEntry.
    static let visualHandlers: Set<FourCC> = ["vide", "pict", "auxv"]
    /// Handler types whose sample entries are AudioSampleEntry / SoundDescription.
    static let audioHandlers: Set<FourCC> = ["soun"]
    /// Sample entries of metadata tracks whose children are boxes right after the 8-byte SampleEntry header.
    static let boxedMetadataEntries: Set<FourCC> = ["mebx", "mett", "metx", "urim"]

    public static func layout(of type: FourCC, payload: [UInt8], context: ParseContext) -> BoxLayout {
        let parent = context.ancestors.last
        if strictContainers.contains(type) { return .container(prefix: 0, strict: true) }
        if type == "stsd" { return .container(prefix: 8, strict: true) }
        if type == "dref" { return .container(prefix: 8, strict: false) }
        if parent == "stsd" { return sampleEntryLayout(format: type, payload: payload, context: context) }
        if parent == "ilst" { return .container(prefix: 0, strict: false) }
        if type == "meta" {
            // QuickTime `meta` has no version/flags; ISO `meta` is a full box. The first child tells.
            if payload.count >= 8, FourCC(bytes: payload[4..<8]) == "hdlr" { return .container(prefix: 0, strict: false) }
            return .container(prefix: 4, strict: false)
        }
        // Inside a `mebx` sample entry: `keys` holds one box per local key id, each holding keyd/dtyp/...
        if type == "keys", let parent, boxedMetadataEntries.contains(parent) { return .container(prefix: 0, strict: false) }
        if parent == "keys", context.ancestors.dropLast().last.map(boxedMetadataEntries.contains) == true {
            return .container(prefix: 0, strict: false)
        }
        if lenientContainers.contains(type) { return .container(prefix: 0, strict: false) }
        return .leaf
    }

    static func sampleEntryLayout(format: FourCC, payload: [UInt8], context: ParseContext) -> BoxLayout {
        guard let handler = context.handler else { return .leaf }
        if visualHandlers.contains(handler) { return .container(prefix: 78, strict: false) }
        if audioHandlers.contains(handler) {
            guard payload.count >= 28 else { return .leaf }
            let version = UInt16(payload[8]) << 8 | UInt16(payload[9])
            switch version {
            case 0: return .container(prefix: 28, strict: false)
            case 1: return .container(prefix: 44, strict: false)
            case 2:
                guard payload.count >= 64 else { return .leaf }
                return .container(prefix: 64, strict: false)
            default: return .leaf
            }
        }
        if boxedMetadataEntries.contains(format) { return .container(prefix: 8, strict: false) }
        return .leaf
    }
}
