/// `frma` (in `sinf`, or a QuickTime `wave`): the original sample entry format of a protected or
/// wrapped entry — `encv`/`enca` hide `avc1`/`mp4a` here.
public struct OriginalFormatBox: BoxView {
    public static let types: [FourCC] = ["frma"]
    public var dataFormat: FourCC = FourCC(rawValue: 0)
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.fourCC("dataFormat", &dataFormat)
        try coder.rest("rest", &rest)
    }
}

/// `schm` (in `sinf`): the protection scheme (`cenc`, `cbcs`, `cens`, `cbc1`) and its version;
/// flag 1 adds a URI.
public struct SchemeTypeBox: BoxView {
    public static let types: [FourCC] = ["schm"]
    public var header = FullBoxHeader()
    public var schemeType: FourCC = FourCC(rawValue: 0)
    public var schemeVersion: UInt32 = 0
    public var uri: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.fourCC("schemeType", &schemeType)
        try coder.uint("schemeVersion", &schemeVersion, bytes: 4)
        try coder.rest("schemeURI", &uri)
    }
}
