import KeepTrack
import KeepTrackTranscode

/// Which tracks a reframed movie keeps: the video track being reframed is replaced by its re-encoded
/// version (same track id, so references to it stay valid); every audio track and every other track is
/// passed through byte for byte with its flags, group and references; timed metadata that describes the
/// old picture geometry (face rectangles, orientation) no longer fits the new picture and is dropped.
public struct ReframeTracks: Sendable {
    public struct Dropped: Sendable {
        public var track: Track
        public var reason: String
    }

    /// The video track to reframe: the first enabled video track (the first video track when none is enabled).
    public var video: Track
    /// Tracks passed through unchanged, in source order (the reframed video takes its own place in that order).
    public var passedThrough: [Track]
    public var dropped: [Dropped]
    /// Other video tracks (kept unchanged, reported).
    public var otherVideo: [Track]

    /// Key fragments of timed metadata whose values are positions or orientation in the source picture.
    public static let geometryKeyFragments = ["detected-face", "detected-object", "video-orientation", "orientation", "bounds"]

    public init(movie: Movie) throws {
        let videos = movie.tracks.filter { $0.kind == .video }
        guard let video = videos.first(where: \.isEnabled) ?? videos.first else {
            throw KeepTrackError.unsupported("\(movie.tracks.count) tracks and none is video: nothing to reframe")
        }
        self.video = video
        var passedThrough: [Track] = [], dropped: [Dropped] = []
        for track in movie.tracks where track.id != video.id {
            if track.kind == .metadata, let key = Self.geometryKey(of: track) {
                dropped.append(Dropped(track: track, reason: "describes the source picture's geometry (\(key))"))
            } else {
                passedThrough.append(track)
            }
        }
        self.passedThrough = passedThrough
        self.dropped = dropped
        otherVideo = passedThrough.filter { $0.kind == .video }
    }

    static func geometryKey(of track: Track) -> String? {
        track.timedMetadataKeys.first { key in geometryKeyFragments.contains { key.contains($0) } }
    }

    /// Output tracks in source order, with `video` standing in for the reframed track.
    public func outputTracks(in movie: Movie, video replacement: OutputTrack) -> [OutputTrack] {
        let keep = Set(passedThrough.map(\.id))
        return movie.tracks.compactMap { track in
            if track.id == video.id { return replacement }
            return keep.contains(track.id) ? OutputTrack(track, in: movie) : nil
        }
    }
}
