/// `elng`: an RFC 4646 language tag, overriding `mdhd`'s code.
public struct ExtendedLanguageBox: BoxView {
    public static let types: [FourCC] = ["elng"]
    public var header = FullBoxHeader()
    public var tag: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.rest("tag", &tag)
    }

    public var language: String? {
        let text = String(decoding: tag.prefix { $0 != 0 }, as: UTF8.self)
        return text.isEmpty || text == "und" ? nil : text
    }
}
