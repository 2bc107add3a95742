/// `traf/tfhd`: which track a fragment belongs to, where its data is counted from, and the defaults
/// its runs use. Each optional field is present when its flag is set.
public struct TrackFragmentHeaderBox: BoxView {
    public static let types: [FourCC] = ["tfhd"]
    public static let baseDataOffsetPresent: UInt32 = 0x1
    public static let sampleDescriptionIndexPresent: UInt32 = 0x2
    public static let defaultSampleDurationPresent: UInt32 = 0x8
    public static let defaultSampleSizePresent: UInt32 = 0x10
    public static let defaultSampleFlagsPresent: UInt32 = 0x20
    /// The fragment has no samples, only a duration (an empty fragment).
    public static let durationIsEmpty: UInt32 = 0x1_0000
    /// Without a base data offset, data offsets count from the start of the enclosing `moof`.
    public static let defaultBaseIsMoof: UInt32 = 0x2_0000

    public var header = FullBoxHeader()
    public var trackID: UInt32 = 0
    public var baseDataOffsetValue: UInt64 = 0
    public var sampleDescriptionIndexValue: UInt32 = 0
    public var defaultSampleDurationValue: UInt32 = 0
    public var defaultSampleSizeValue: UInt32 = 0
    public var defaultSampleFlagsValue: UInt32 = 0
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("trackID", &trackID, bytes: 4)
        let flags = header.flags
        if flags & Self.baseDataOffsetPresent != 0 { try coder.uint("baseDataOffset", &baseDataOffsetValue, bytes: 8) }
        if flags & Self.sampleDescriptionIndexPresent != 0 { try coder.uint("sampleDescriptionIndex", &sampleDescriptionIndexValue, bytes: 4) }
        if flags & Self.defaultSampleDurationPresent != 0 { try coder.uint("defaultSampleDuration", &defaultSampleDurationValue, bytes: 4) }
        if flags & Self.defaultSampleSizePresent != 0 { try coder.uint("defaultSampleSize", &defaultSampleSizeValue, bytes: 4) }
        if flags & Self.defaultSampleFlagsPresent != 0 { try coder.uint("defaultSampleFlags", &defaultSampleFlagsValue, bytes: 4) }
    }

    func present(_ flag: UInt32, _ value: UInt32) -> UInt32? { header.flags & flag != 0 ? value : nil }
    public var baseDataOffset: UInt64? { header.flags & Self.baseDataOffsetPresent != 0 ? baseDataOffsetValue : nil }
    public var sampleDescriptionIndex: UInt32? { present(Self.sampleDescriptionIndexPresent, sampleDescriptionIndexValue) }
    public var defaultSampleDuration: UInt32? { present(Self.defaultSampleDurationPresent, defaultSampleDurationValue) }
    public var defaultSampleSize: UInt32? { present(Self.defaultSampleSizePresent, defaultSampleSizeValue) }
    public var defaultSampleFlags: UInt32? { present(Self.defaultSampleFlagsPresent, defaultSampleFlagsValue) }
    public var isDurationEmpty: Bool { header.flags & Self.durationIsEmpty != 0 }
    public var isDefaultBaseMoof: Bool { header.flags & Self.defaultBaseIsMoof != 0 }
}
