/// `mfra/mfro`: the size of the enclosing `mfra`, so a reader can find it from the end of the file.
public struct MovieFragmentRandomAccessOffsetBox: BoxView {
    public static let types: [FourCC] = ["mfro"]
    public var header = FullBoxHeader()
    public var size: UInt32 = 0
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("size", &size, bytes: 4)
    }
}
