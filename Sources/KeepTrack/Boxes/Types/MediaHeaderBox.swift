/// `mdhd`: the media time scale, duration and language.
public struct MediaHeaderBox: BoxView {
    public static let types: [FourCC] = ["mdhd"]
    public var header = FullBoxHeader()
    public var times = VersionedTimes()
    public var timescale: UInt32 = 0
    public var duration: UInt64 = 0
    /// ISO-639-2/T packed in 5-bit letters, or a Macintosh language code below 0x400.
    public var language: UInt16 = 0
    public var quality: UInt16 = 0
    public init() {}

    /// The duration field says "unknown" (all ones).
    public var durationIsUnknown: Bool { header.isUnknownDuration(duration) }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try times.code(&coder, version: header.version)
        try coder.uint("timescale", &timescale, bytes: 4)
        try coder.versioned("duration", &duration, version: header.version)
        try coder.uint("language", &language, bytes: 2)
        try coder.uint("quality", &quality, bytes: 2)
    }

    /// Three-letter code, or nil for "unspecified" (`und`, 0, or Macintosh code 0x7FFF).
    public var languageCode: String? {
        if language == 0 || language == 0x7FFF { return nil }
        if language < 0x400 { return language == 0 ? "eng" : nil }
        let letters = [(language >> 10) & 0x1F, (language >> 5) & 0x1F, language & 0x1F]
        guard letters.allSatisfy({ $0 >= 1 && $0 <= 26 }) else { return nil }
        let code = String(letters.map { Character(Unicode.Scalar(UInt8($0 + 0x60))) })
        return code == "und" ? nil : code
    }
}
