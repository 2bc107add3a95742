/// `strip-spatial`: removes spatial audio tracks (by format and `fall` relations, never position),
/// leaving their stereo fallback enabled — for tools that choke on APAC.
public enum StripSpatial {
    /// The edit, or nil when the movie has no spatial track. Throws `refused(.wouldLeaveSilence)` (65)
    /// for a spatial track without an existing non-spatial fallback unless `allowSilence`.
    public static func edit(_ movie: Movie, allowSilence: Bool) throws -> MovieEdit? {
        let spatial = movie.tracks.filter(\.isSpatialAudio)
        guard !spatial.isEmpty else { return nil }
        var edit = MovieEdit(movie)
        var fallbackIDs: [UInt32] = []
        for track in spatial {
            let fallbacks = track.referencedIDs("fall").compactMap { movie.track(id: $0) }.filter { !$0.isSpatialAudio }
            if fallbacks.isEmpty && !allowSilence {
                throw KeepTrackError.refused(.init(.wouldLeaveSilence,
                    "spatial track \(track.id) (\(track.format?.description ?? "?")) has no stereo fallback; removing it would leave no audio in its place"))
            }
            fallbackIDs += fallbacks.map(\.id)
        }
        let removed = Set(spatial.map(\.id))
        try edit.removeTracks(removed, reason: "spatial audio")
        for id in Set(fallbackIDs).sorted() { try edit.setEnabled(id, true) }
        // A group left with one track is no longer a choice; a group with several keeps one enabled.
        for group in Set(spatial.map(\.alternateGroup)).subtracting([0]).sorted() {
            let members = edit.tracks.filter { $0.alternateGroup == group }
            if members.count == 1 {
                try edit.setEnabled(members[0].id, true)
                try edit.setAlternateGroup(members[0].id, 0)
            } else if let keep = members.first(where: { fallbackIDs.contains($0.id) }) ?? GroupFix.preferredTrack(in: members) {
                for member in members { try edit.setEnabled(member.id, member.id == keep.id) }
            }
        }
        return edit
    }
}
