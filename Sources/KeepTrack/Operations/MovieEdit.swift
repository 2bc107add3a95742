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
            let track = tracks[index]
            var removed: [String] = []
            var references: [TrackReference] = []
            for reference in track.references {
                let kept = reference.trackIDs.filter { !ids.contains($0) }
                let gone = reference.trackIDs.filter { ids.contains($0) }
                if !gone.isEmpty { removed.append("tref/\(reference.type) → \(gone.map(String.init).joined(separator: ", "))") }
                if !kept.isEmpty { references.append(TrackReference(type: reference.type, trackIDs: kept)) }
            }
            guard !removed.isEmpty else { continue }
            try tracks[index].box.modifyChildren { children in
                guard let trefIndex = children.firstIndex(where: { $0.type == "tref" }) else { return }
                var tref = children[trefIndex]
                try tref.modifyChildren { referenceBoxes in
                    referenceBoxes = try referenceBoxes.compactMap { box in
                        guard let view = try? TrackReferenceTypeBox(box: box) else { return box }
                        let kept = view.trackIDs.filter { !ids.contains($0) }
                        if kept.count == view.trackIDs.count { return box }
                        if kept.isEmpty { return nil }
                        var edited = box
                        edited.content = .bytes(try TrackReferenceTypeBox(trackIDs: kept).encoded())
                        return edited
                    }
                }
                if tref.children.isEmpty { children.remove(at: trefIndex) } else { children[trefIndex] = tref }
            }
            tracks[index].references = references
            changes.append("track \(track.id): removed \(removed.joined(separator: "; "))")
        }
    }

    /// Re-encodes tkhd after `body` changes it; bytes past the decoded fields are kept as they were.
    mutating func editHeader(_ id: UInt32, _ body: (inout TrackHeaderBox) -> String?) throws {
        guard let index = tracks.firstIndex(where: { $0.id == id }) else { return }
        var header = tracks[index].header
        guard let change = body(&header) else { return }
        let box = tracks[index].box
        guard let tkhdIndex = box.children.firstIndex(where: { $0.type == "tkhd" }) else {
            throw KeepTrackError.malformed(path: tracks[index].path, offset: box.offset, reason: "track has no tkhd")
        }
        let original = box.children[tkhdIndex].payload
        let encoded = try header.encoded()
        let payload = encoded + original.dropFirst(encoded.count)
        tracks[index].box.modifyChildren { $0[tkhdIndex].content = .bytes(payload) }
        tracks[index].header = header
        changes.append(change)
    }

    /// A writer for the kept tracks; everything else in the movie passes through.
    public func writer(options: MovieWriter.Options = MovieWriter.Options()) -> MovieWriter {
        var writer = MovieWriter(passingThrough: movie, options: options)
        writer.tracks = tracks.map { OutputTrack($0, in: movie) }
        return writer
    }
}
