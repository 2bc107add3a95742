/// One track of a movie being written: its `trak` box as it should appear (the writer replaces
/// only the layout boxes `stsc` and `stco`/`co64`), the sample table that describes its samples in
/// decode order, and where those samples' bytes are.
///
/// Samples stay in decode order, so every per-sample table (stsz, stts, ctts, stss, sdtp, sbgp)
/// remains valid byte for byte. A trimmed or re-encoded track supplies its own trak and table.
public struct OutputTrack: Sendable {
    public var trak: Box
    public var table: SampleTable
    /// Holds the sample bytes at the offsets `table` gives: the input file, or an encoder's output.
    public var data: ByteSource
    /// Media time scale, to interleave tracks by time.
    public var timescale: UInt32

    public init(trak: Box, table: SampleTable, data: ByteSource, timescale: UInt32) {
        self.trak = trak
        self.table = table
        self.data = data
        self.timescale = timescale
    }

    /// The track exactly as it is in `movie`.
    public init(_ track: Track, in movie: Movie) {
        self.init(trak: track.box, table: track.sampleTable, data: movie.source, timescale: track.mediaHeader.timescale)
    }
}
