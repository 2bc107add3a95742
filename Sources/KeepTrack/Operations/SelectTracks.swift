/// `select`: one track per alternate group, enabled, group 0 — for tools that cannot handle groups.
public enum SelectTracks {
    public enum Preference: String, Sendable, CaseIterable {
        /// The track the source enables (or the one `fix` would choose).
        case enabled
        /// The non-spatial audio track (the fallback others name).
        case stereo
        /// The spatial audio track.
        case spatial
    }

    /// Picks from one group; `language` (ISO 639-2 or BCP 47 as stored) narrows first when it matches any member.
    public static func choose(from group: [Track], prefer: Preference, language: String?) -> Track? {
        var candidates = group
        if let language {
            let matching = group.filter { $0.language?.lowercased() == language.lowercased() }
            if !matching.isEmpty { candidates = matching }
        }
        let byID = candidates.sorted { $0.id < $1.id }
        switch prefer {
        case .enabled:
            break
        case .stereo:
            let stereo = byID.filter { $0.kind == .audio && !$0.isSpatialAudio }
            if !stereo.isEmpty { return GroupFix.preferredTrack(in: stereo) }
        case .spatial:
            let spatial = byID.filter(\.isSpatialAudio)
            if !spatial.isEmpty { return spatial.first(where: \.isEnabled) ?? spatial[0] }
        }
        return GroupFix.preferredTrack(in: byID)
    }

    public static func edit(_ movie: Movie, prefer: Preference, language: String?) throws -> MovieEdit {
        var edit = MovieEdit(movie)
        var dropped: Set<UInt32> = []
        var kept: [UInt32] = []
        for group in movie.alternateGroups {
            guard let chosen = choose(from: group.tracks, prefer: prefer, language: language) else { continue }
            kept.append(chosen.id)
            dropped.formUnion(group.tracks.map(\.id).filter { $0 != chosen.id })
        }
        // The reason names what chose: a language that matched narrows before the preference does.
        let matched = language.map { code in movie.alternateGroups.contains { $0.tracks.contains { $0.language?.lowercased() == code.lowercased() } } } ?? false
        let basis = matched ? "language \(language ?? ""), then preferring \(prefer.rawValue)" : "preferring \(prefer.rawValue)"
        if !dropped.isEmpty { try edit.removeTracks(dropped, reason: "not selected (\(basis))") }
        for id in kept {
            try edit.setEnabled(id, true)
            try edit.setAlternateGroup(id, 0)
        }
        return edit
    }
}
