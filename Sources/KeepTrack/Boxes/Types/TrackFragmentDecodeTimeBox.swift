/// `traf/tfdt`: decode time of the fragment's first sample, in the media time scale.
public struct TrackFragmentDecodeTimeBox: BoxView {
    public static let types: [FourCC] = ["tfdt"]
    public var header = FullBoxHeader()
    public var baseMediaDecodeTime: UInt64 = 0
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.versioned("baseMediaDecodeTime", &baseMediaDecodeTime, version: header.version)
    }
}
