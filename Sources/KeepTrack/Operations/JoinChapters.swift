/// `join --chapters`: a QuickTime chapter track (a disabled text track that the first video track,
/// else the first track, names with a `chap` reference), one sample per clip holding its file name.
extension Join {
    static func chapterTrack(names: [String], starts: [UInt64], lengths: [UInt64], clock: Trim.Clock, writer: inout MovieWriter) throws -> TrackJoin {
        throw KeepTrackError.unsupported("--chapters is not written yet")
    }
}
