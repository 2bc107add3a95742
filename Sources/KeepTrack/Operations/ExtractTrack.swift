/// `extract`: one track as a movie of its own — sample entry, edit list and timing as in the source.
public enum ExtractTrack {
    /// The file type for an output name: `.m4a` (audio, brand `M4A `), `.mp4`/`.m4v` (`mp42`), `.mov`/`.qt` (`qt  `).
    public static func fileType(forOutput path: String, track: Track) throws -> FileTypeBox {
        let ext = path.split(separator: "/").last.flatMap { name in name.contains(".") ? name.split(separator: ".").last : nil }.map { $0.lowercased() } ?? ""
        var ftyp = FileTypeBox()
        switch ext {
        case "m4a":
            guard track.kind == .audio else { throw KeepTrackError.usage("track \(track.id) is \(track.kind.rawValue); .m4a holds audio only (use .mov or .mp4)") }
            ftyp.majorBrand = "M4A "
            ftyp.compatibleBrands = ["M4A ", "mp42", "isom"]
        case "mp4", "m4v":
            ftyp.majorBrand = "mp42"
            ftyp.compatibleBrands = ["mp42", "isom"]
        case "mov", "qt":
            ftyp.majorBrand = "qt  "
            ftyp.minorVersion = 0
            ftyp.compatibleBrands = ["qt  "]
            return ftyp
        default:
            throw KeepTrackError.usage("cannot tell the file type from '\(path)': name it .mov, .mp4, .m4v or .m4a")
        }
        // A QuickTime SoundDescription v2 (APAC in .mov) has no ISO form: readers would misparse it.
        if let entry = track.audioEntry, entry.version == 2 {
            throw KeepTrackError.usage("track \(track.id) (\(track.format?.description ?? "?")) has a QuickTime sound description version 2, which .\(ext) files cannot carry; name the output .mov")
        }
        return ftyp
    }

    /// What an extraction writes and the changes it makes, one sentence each.
    public struct Extraction {
        public var writer: MovieWriter
        public var changes: [String]
    }

    /// A writer for the single track `id`: enabled, alternate group 0, no references (the tracks they
    /// named are gone), movie duration set to the track's.
    public static func writer(_ movie: Movie, trackID: UInt32, output: String, options: MovieWriter.Options = MovieWriter.Options()) throws -> Extraction {
        guard let track = movie.track(id: trackID) else {
            throw KeepTrackError.usage("no track \(trackID); the movie has tracks \(movie.tracks.map { String($0.id) }.joined(separator: ", "))")
        }
        let fileType = try fileType(forOutput: output, track: track)
        var edit = MovieEdit(movie)
        try edit.removeTracks(Set(movie.tracks.map(\.id)).subtracting([trackID]), reason: "not extracted")
        try edit.removeReferences(to: Set(track.references.flatMap(\.trackIDs)))
        try edit.setEnabled(trackID, true)
        try edit.setAlternateGroup(trackID, 0)
        var writer = edit.writer(options: options)
        writer.fileType = Box(type: "ftyp", bytes: try fileType.encoded())
        var mvhd = movie.header
        if track.header.durationIsUnknown {
            mvhd.duration = mvhd.header.version == 1 ? UInt64.max : UInt64(UInt32.max) // "unknown" in mvhd's own width
        } else {
            mvhd.duration = track.header.duration
            if mvhd.duration > UInt64(UInt32.max) { mvhd.header.version = 1 }
        }
        let header = try mvhd.encoded()
        var moov = movie.moov
        moov.modifyChildren { children in
            if let index = children.firstIndex(where: { $0.type == "mvhd" }) {
                children[index].content = .bytes(header + children[index].payload.dropFirst(header.count))
            }
        }
        writer.moovTemplate = moov
        return Extraction(writer: writer, changes: edit.changes)
    }
}
