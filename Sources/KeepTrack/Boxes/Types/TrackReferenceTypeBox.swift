/// A child of `tref` (`fall`, `cdsc`, `chap`, ...): the ids of the tracks this one refers to.
public struct TrackReferenceTypeBox: BoxView {
    /// Any type may appear under `tref` (`fall`, `cdsc`, `chap`, `vdep`, ...): the registry picks
    /// this view by parent, never by type, so a `tmcd` or `sync` box elsewhere is not read as one.
    public static let types: [FourCC] = []
    public var trackIDs: [UInt32] = []
    public init() {}
    public init(trackIDs: [UInt32]) { self.trackIDs = trackIDs }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.u32Array("trackIDs", &trackIDs, count: coder.isDecoding ? coder.remaining / 4 : trackIDs.count)
    }
}
