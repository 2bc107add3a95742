/// `hdlr`: the kind of media (`vide`, `soun`, `meta`, ...). QuickTime puts a component type
/// (`mhlr`/`dhlr`) where ISO has zero, and a Pascal string where ISO has a C string.
public struct HandlerBox: BoxView, DumpAnnotated {
    public static let types: [FourCC] = ["hdlr"]
    public var header = FullBoxHeader()
    public var componentType: FourCC = FourCC(rawValue: 0)
    public var handlerType: FourCC = FourCC(rawValue: 0)
    public var reserved: [UInt8] = []
    public var nameBytes: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.fourCC("componentType", &componentType)
        try coder.fourCC("handlerType", &handlerType)
        try coder.bytes("reserved", &reserved, count: 12)
        try coder.rest("name", &nameBytes)
    }

    public var annotationLines: [String] { ["nameText: \(name)"] }

    public var name: String {
        guard let first = nameBytes.first else { return "" }
        // A Pascal string: a length byte that matches the rest.
        if componentType.rawValue != 0, Int(first) == nameBytes.count - 1 {
            return String(decoding: nameBytes.dropFirst(), as: UTF8.self)
        }
        return String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// A data reference entry in `dinf/dref`: `url ` or `urn ` (ISO) or `alis` (a QuickTime alias
/// record). Flag 1 (self-contained) means the media is in this file; otherwise `location` names
/// the file that holds it.
public struct DataEntryBox: BoxView, DumpAnnotated {
    public static let types: [FourCC] = ["url ", "urn ", "alis"]
    public static let selfContainedFlag: UInt32 = 0x1
    public var header = FullBoxHeader(version: 0, flags: 0x1)
    public var location: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.rest("location", &location)
    }

    public var isSelfContained: Bool { header.flags & Self.selfContainedFlag != 0 }

    /// The referenced file as text: a `url `'s location, a `urn `'s name and location, an alias
    /// record's file name (a Pascal string of at most 63 bytes at offset 50 of the record).
    public func locationText(type: FourCC) -> String? {
        if type == "alis" {
            guard location.count > 50, Int(location[50]) <= min(63, location.count - 51), location[50] > 0 else { return nil }
            return String(decoding: location[51..<51 + Int(location[50])], as: UTF8.self)
        }
        let strings = location.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        return strings.isEmpty ? nil : strings.joined(separator: " ")
    }

    public var annotationLines: [String] { [isSelfContained ? "selfContained: yes (media in this file)" : "selfContained: no (media in another file)"] }
}
