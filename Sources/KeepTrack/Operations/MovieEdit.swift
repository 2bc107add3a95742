/// A movie being changed track by track: flags, alternate groups, references, which tracks stay.
/// Every change edits the kept `trak` boxes in place (only the touched bytes differ), and each is
/// described in `changes` for the command to print. `writer()` hands the result to `MovieWriter`.
public struct MovieEdit: Sendable {
    public let movie: Movie
    /// The tracks that stay, in source order, with their boxes as edited.
    public private(set) var tracks: [Track]
    /// Human-readable list of what changed, in order.
    public private(set) var changes: [String] = []

    public init(_ movie: Movie) {
        self.movie = movie
        tracks = movie.tracks
    }

    public func track(id: UInt32) -> Track? { tracks.first { $0.id == id } }

    public var isChanged: Bool { !changes.isEmpty }

    /// Sets the track-enabled flag (only the flag bit of tkhd changes).
    public mutating func setEnabled(_ id: UInt32, _ enabled: Bool) throws {
        try editHeader(id) { header in
            guard header.isEnabled != enabled else { return nil }
            header.isEnabled = enabled
            return "track \(id): \(enabled ? "enabled" : "disabled")"
        }
    }

    public mutating func setAlternateGroup(_ id: UInt32, _ group: UInt16) throws {
        try editHeader(id) { header in
            guard header.alternateGroup != group else { return nil }
            let old = header.alternateGroup
            header.alternateGroup = group
            return "track \(id): alternate group \(old) → \(group)"
        }
    }

    /// Drops tracks and every reference to them (empty reference types and an empty `tref` go too).
    public mutating func removeTracks(_ ids: Set<UInt32>, reason: String) throws {
        for track in tracks where ids.contains(track.id) {
            changes.append("removed track \(track.id) (\(track.kind.rawValue) \(track.format?.description ?? "?")): \(reason)")
        }
        tracks.removeAll { ids.contains($0.id) }
        try removeReferences(to: ids)
    }

    /// Removes references naming any of `ids` from every kept track.
    public mutating func removeReferences(to ids: Set<UInt32>) throws {
        for index in tracks.indices {
            let removed = try tracks[index].removeReferences(to: ids)
            guard !removed.isEmpty else { continue }
            changes.append("track \(tracks[index].id): removed \(removed.joined(separator: "; "))")
        }
    }

    /// Re-encodes tkhd after `body` changes it; bytes past the decoded fields are kept as they were.
    mutating func editHeader(_ id: UInt32, _ body: (inout TrackHeaderBox) -> String?) throws {
        guard let index = tracks.firstIndex(where: { $0.id == id }) else { return }
        var header = tracks[index].header
        guard let change = body(&header) else { return }
        try tracks[index].replaceHeader(header)
        changes.append(change)
    }

    /// A writer for the kept tracks; everything else in the movie passes through.
    public func writer(options: MovieWriter.Options = MovieWriter.Options()) -> MovieWriter {
        var writer = MovieWriter(passingThrough: movie, options: options)
        writer.tracks = tracks.map { OutputTrack($0, in: movie) }
        return writer
    }
}
