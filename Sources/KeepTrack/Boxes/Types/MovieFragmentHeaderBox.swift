/// `moof/mfhd`: the fragment's sequence number.
public struct MovieFragmentHeaderBox: BoxView {
    public static let types: [FourCC] = ["mfhd"]
    public var header = FullBoxHeader()
    public var sequenceNumber: UInt32 = 0
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("sequenceNumber", &sequenceNumber, bytes: 4)
    }
}
