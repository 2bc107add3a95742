/// One track of a movie being written: its `trak` box as it should appear (the writer replaces
/// only the layout boxes `stsc` and `stco`/`co64`), the sample table that describes its samples in
/// decode order, and where those samples' bytes are.
///
/// Samples stay in decode order, so every per-sample table (stsz, stts, ctts, stss, sdtp, sbgp)
/// remains valid byte for byte. A trimmed or re-encoded track supplies its own trak and table.
public struct OutputTrack: Sendable {
    public var trak: Box
    public var table: SampleTable {
        didSet { sampleFactsSource = nil; sampleSizesChanged = false }
    }
    /// The source track whose samples this track passes through as they are (same sizes, times, flags,
    /// groups): the write verification checks them against an independent reading of both files
    /// (`SampleAccount`). nil for a track with new or changed samples; replacing `table` clears it.
    public var sampleFactsSource: UInt32?
    /// The file that holds the source track `sampleFactsSource` names (its movie, even when `data` is another source).
    public var sampleFactsFile: ByteSource?
    /// The samples are the source's with other bytes (flatten-stereo's base layers): sizes are not compared.
    public var sampleSizesChanged = false
    /// Holds the sample bytes at the offsets `table` gives: the input file, or an encoder's output.
    public var data: ByteSource
    /// Media time scale, to interleave tracks by time.
    public var timescale: UInt32
    /// Why this track cannot be written (encrypted fragments), or nil; the writer refuses with it.
    public var refusal: String?
    /// Every sample's sample groups as the source has them, when the writer rebuilt the trak's
    /// sbgp/sgpd (a fragmented source with groups in its trafs); verification checks the output against it.
    public var expectedGroups: SampleGroupMembership?
    /// A track joined from several files' tracks end to end (`join`): each part's samples pass through
    /// as they are but for their description index; the write verification checks the output against
    /// independent readings of every part (`SampleAccount`). Empty for any other track.
    public var joinedParts: [JoinedPart] = []

    public struct JoinedPart: Sendable {
        /// The file the part's track is in, its ID there, and each of its description indexes (1-based) in the output.
        public var file: ByteSource
        public var trackID: UInt32
        public var descriptionIndexes: [UInt32]
        /// Leading samples of the part not in the output (the part before ends with them).
        public var skip: Int
        /// The last sample's duration in the output where join gave it another (a shortened audio packet's full length).
        public var lastDuration: UInt32?
        public init(file: ByteSource, trackID: UInt32, descriptionIndexes: [UInt32], skip: Int = 0, lastDuration: UInt32? = nil) {
            self.file = file
            self.trackID = trackID
            self.descriptionIndexes = descriptionIndexes
            self.skip = skip
            self.lastDuration = lastDuration
        }
    }

    public init(trak: Box, table: SampleTable, data: ByteSource, timescale: UInt32) {
        self.trak = trak
        self.table = table
        self.data = data
        self.timescale = timescale
    }

    /// The track exactly as it is in `movie`.
    /// A fragmented track (samples in `moof`s) comes out progressive: its tables rebuilt from every sample.
    public init(_ track: Track, in movie: Movie) {
        var groups: SampleGroupMembership?
        var groupRefusal: String?
        if track.fragments?.hasFragmentGroups == true {
            do {
                groups = try track.sampleGroups()
            } catch KeepTrackError.malformed(let path, let offset, let reason) {
                groupRefusal = "sample groups of track \(track.id): \(path) at byte \(offset): \(reason)"
            } catch KeepTrackError.unsupported(let reason) {
                groupRefusal = "sample groups of track \(track.id): \(reason)"
            } catch {
                groupRefusal = "sample groups of track \(track.id): \(error)"
            }
        }
        if let timing = track.defragmentedTiming {
            do {
                try self.init(trak: track.box, rebuilding: track.sampleTable, timing: timing, groups: groups, data: movie.source, timescale: track.mediaHeader.timescale)
            } catch {
                self.init(trak: track.box, table: track.sampleTable, data: movie.source, timescale: track.mediaHeader.timescale)
                refusal = "its tables cannot be rebuilt from its fragments: \(error)"
                return
            }
        } else {
            self.init(trak: track.box, table: track.sampleTable, data: movie.source, timescale: track.mediaHeader.timescale)
        }
        sampleFactsSource = track.id
        sampleFactsFile = movie.source
        if let reason = track.fragments?.encryption {
            refusal = "\(reason); writing it into a progressive movie would need every auxiliary-information (saio) offset rewritten, which keeptrack does not do for fragments"
        } else if let reason = track.fragments?.refusals.first ?? groupRefusal {
            refusal = reason
        }
    }
}
