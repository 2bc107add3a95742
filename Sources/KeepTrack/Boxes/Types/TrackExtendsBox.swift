/// `mvex/trex`: a fragmented track's defaults, used where a fragment's `tfhd` and `trun` say nothing.
public struct TrackExtendsBox: BoxView {
    public static let types: [FourCC] = ["trex"]
    public var header = FullBoxHeader()
    public var trackID: UInt32 = 0
    public var defaultSampleDescriptionIndex: UInt32 = 1
    public var defaultSampleDuration: UInt32 = 0
    public var defaultSampleSize: UInt32 = 0
    public var defaultSampleFlags: UInt32 = 0
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("trackID", &trackID, bytes: 4)
        try coder.uint("defaultSampleDescriptionIndex", &defaultSampleDescriptionIndex, bytes: 4)
        try coder.uint("defaultSampleDuration", &defaultSampleDuration, bytes: 4)
        try coder.uint("defaultSampleSize", &defaultSampleSize, bytes: 4)
        try coder.uint("defaultSampleFlags", &defaultSampleFlags, bytes: 4)
    }
}
