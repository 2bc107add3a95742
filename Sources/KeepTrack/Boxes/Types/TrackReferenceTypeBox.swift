/// A child of `tref` (`fall`, `cdsc`, `chap`, ...): the ids of the tracks this one refers to.
public struct TrackReferenceTypeBox: BoxView {
    /// Any type may appear under `tref`; the registry matches this view by parent instead.
    public static let types: [FourCC] = ["fall", "folw", "cdsc", "cdep", "rndr", "chap", "tmcd", "hint", "sync", "vdep", "subt", "font", "forc", "auxl", "sbtl", "vplx", "mpod", "ipir", "scpt", "ssrc"]
    public var trackIDs: [UInt32] = []
    public init() {}
    public init(trackIDs: [UInt32]) { self.trackIDs = trackIDs }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.u32Array("trackIDs", &trackIDs, count: coder.isDecoding ? coder.remaining / 4 : trackIDs.count)
    }
}
