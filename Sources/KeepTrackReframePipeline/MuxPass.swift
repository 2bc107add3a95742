import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming
import KeepTrackTranscode

extension Reframer {
    /// The mux: the new, upright video track in the old one's place (same track id), every other kept track
    /// byte for byte (`PassthroughMux`). Returns the write's summary and the ids of the tracks written.
    static func mux(movie: Movie, tracks: ReframeTracks, video replacement: ReplacementVideoTrack,
                    data dataFile: OutputFile, into destination: OutputFile) throws -> (written: MovieOutput.Summary, keptTracks: [UInt32]) {
        let video = try replacement.outputTrack(data: dataFile)
        return try PassthroughMux.write(movie: movie, tracks: tracks.outputTracks(in: movie, video: video), into: destination)
    }
}
