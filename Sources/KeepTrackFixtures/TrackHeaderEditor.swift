import KeepTrack

/// Writes a copy of a movie with some track headers changed (enabled flag, alternate group) through
/// the box layer and `MovieWriter`: how tests and the demo make "both enabled" and "fixed" files.
public enum TrackHeaderEditor {
    /// Copies `input` to `output` (replacing it), letting `edit` change each track's `tkhd`.
    public static func rewrite(_ input: String, to output: String, edit: (Track, inout TrackHeaderBox) -> Void) throws {
        let movie = try Movie.open(path: input)
        var writer = MovieWriter(passingThrough: movie)
        for (index, track) in movie.tracks.enumerated() {
            var header = track.header
            edit(track, &header)
            try writer.tracks[index].trak.modifyChildren { children in
                for child in children.indices where children[child].type == "tkhd" {
                    children[child] = Box(type: "tkhd", bytes: try header.encoded())
                }
            }
        }
        try MovieOutput.write(writer, to: output, inputs: [input], overwrite: true)
    }
}
