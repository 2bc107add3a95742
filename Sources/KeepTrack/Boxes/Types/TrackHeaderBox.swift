/// `tkhd`: the track's id, enabled flag and alternate group — the fields that decide what plays.
public struct TrackHeaderBox: BoxView {
    public static let types: [FourCC] = ["tkhd"]
    /// Bit 0 of the 24-bit flags: the track plays.
    public static let enabledFlag: UInt32 = 0x1
    public static let identityMatrix: [UInt32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]
    /// Byte index of the flags inside the payload (after the version byte); `fix --in-place` patches these.
    public static let flagsPayloadRange = 1..<4

    public var header = FullBoxHeader(version: 0, flags: 0x7)
    public var times = VersionedTimes()
    public var trackID: UInt32 = 0
    public var reserved1: UInt32 = 0
    public var duration: UInt64 = 0
    public var reserved2: [UInt8] = []
    public var layer: Int16 = 0
    public var alternateGroup: UInt16 = 0
    public var volume: Int16 = 0
    public var reserved3: UInt16 = 0
    public var matrix: [UInt32] = TrackHeaderBox.identityMatrix
    /// 16.16 fixed point.
    public var width: UInt32 = 0
    public var height: UInt32 = 0
    public init() {}

    /// The duration field says "unknown" (all ones).
    public var durationIsUnknown: Bool { header.isUnknownDuration(duration) }

    public var isEnabled: Bool {
        get { header.flags & Self.enabledFlag != 0 }
        set { header.flags = newValue ? header.flags | Self.enabledFlag : header.flags & ~Self.enabledFlag }
    }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try times.code(&coder, version: header.version)
        try coder.uint("trackID", &trackID, bytes: 4)
        try coder.uint("reserved1", &reserved1, bytes: 4)
        try coder.versioned("duration", &duration, version: header.version)
        try coder.bytes("reserved2", &reserved2, count: 8)
        try coder.int("layer", &layer, bytes: 2)
        try coder.uint("alternateGroup", &alternateGroup, bytes: 2)
        try coder.int("volume", &volume, bytes: 2)
        try coder.uint("reserved3", &reserved3, bytes: 2)
        try coder.u32Array("matrix", &matrix, count: 9)
        try coder.uint("width", &width, bytes: 4)
        try coder.uint("height", &height, bytes: 4)
    }

    /// Rotation in degrees (0, 90, 180, 270) read from the matrix; nil for a matrix that is not a pure rotation.
    public var rotation: Int? {
        let m = matrix.map { Int32(bitPattern: $0) }
        let (a, b, c, d) = (m[0], m[1], m[3], m[4])
        switch (a.signum(), b.signum(), c.signum(), d.signum()) {
        case (1, 0, 0, 1): return 0
        case (0, 1, -1, 0): return 90
        case (-1, 0, 0, -1): return 180
        case (0, -1, 1, 0): return 270
        default: return nil
        }
    }
}
