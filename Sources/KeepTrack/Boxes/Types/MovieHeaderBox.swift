/// `mvhd`: the movie's time scale and duration.
public struct MovieHeaderBox: BoxView {
    public static let types: [FourCC] = ["mvhd"]
    public var header = FullBoxHeader()
    public var times = VersionedTimes()
    public var timescale: UInt32 = 600
    public var duration: UInt64 = 0
    public var rate: Int32 = 0x10000
    public var volume: Int16 = 0x100
    public var reserved: [UInt8] = []
    public var matrix: [UInt32] = TrackHeaderBox.identityMatrix
    /// QuickTime preview/poster/selection/current times, or ISO pre_defined.
    public var quickTimeTimes: [UInt8] = []
    public var nextTrackID: UInt32 = 1
    public init() {}

    /// The duration field says "unknown" (all ones).
    public var durationIsUnknown: Bool { header.isUnknownDuration(duration) }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try times.code(&coder, version: header.version)
        try coder.uint("timescale", &timescale, bytes: 4)
        try coder.versioned("duration", &duration, version: header.version)
        try coder.int("rate", &rate, bytes: 4)
        try coder.int("volume", &volume, bytes: 2)
        try coder.bytes("reserved", &reserved, count: 10)
        try coder.u32Array("matrix", &matrix, count: 9)
        try coder.bytes("reservedTimes", &quickTimeTimes, count: 24)
        try coder.uint("nextTrackID", &nextTrackID, bytes: 4)
    }
}
