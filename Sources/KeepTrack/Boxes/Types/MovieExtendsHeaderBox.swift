/// `mvex/mehd`: the whole fragmented movie's duration, in the movie time scale.
public struct MovieExtendsHeaderBox: BoxView {
    public static let types: [FourCC] = ["mehd"]
    public var header = FullBoxHeader()
    public var fragmentDuration: UInt64 = 0
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.versioned("fragmentDuration", &fragmentDuration, version: header.version)
    }
}
