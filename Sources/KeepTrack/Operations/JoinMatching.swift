/// Which track of each clip continues which track of the first: matched by what they are, never by
/// position or ID. Video with video; audio by format and channels (the stereo fallback with the stereo
/// fallback, APAC with APAC); `mebx` tracks by their key set; text by handler. Tracks of one kind
/// that look alike pair up in file order. A clip with a track too few or too many, or a paired track
/// that cannot continue the first clip's (another codec, picture size, orientation, channel layout,
/// flags, group, references), is refused (65) naming the clip, the track and the difference.
extension Join {
    /// A clip as the messages name it: its number (1-based) and file name.
    struct Clip {
        let number: Int
        let name: String
        let movie: Movie
        var label: String { "clip \(number) (\(name))" }
    }

    /// What pairs a track with tracks of other clips.
    static func matchKey(_ track: Track) -> String {
        let format = track.format?.description ?? "none"
        switch track.kind {
        case .video:
            return "video"
        case .audio:
            return "audio \(format) \(track.audio?.channels.map(String.init) ?? "?") ch"
        case .metadata where track.format == "mebx":
            let keys = track.sampleEntries.first?.first("keys").flatMap { try? $0.serialized() } ?? []
            return "mebx keys " + keys.map { String($0, radix: 16) }.joined(separator: ".")
        case .text:
            return "text \(track.handler.handlerType)"
        default:
            return "\(track.kind.rawValue) \(track.handler.handlerType) \(format)"
        }
    }

    static func describe(_ track: Track) -> String {
        var text = "track \(track.id) (\(track.kind.rawValue) \(track.format?.description ?? "?")"
        if let channels = track.audio?.channels { text += ", \(channels) ch" }
        if track.format == "mebx", let keys = track.sampleEntries.first?.first("keys") { text += ", key set of \(keys.size) bytes" }
        return text + ")"
    }

    /// Each of the first clip's tracks with its counterpart in every clip (`[output track][clip]`).
    static func matchTracks(_ clips: [Clip]) throws -> [[Track]] {
        func keyed(_ movie: Movie) -> [(key: String, track: Track)] {
            var seen: [String: Int] = [:]
            return movie.tracks.map { track in
                let key = matchKey(track)
                seen[key, default: 0] += 1
                return ("\(key) #\(seen[key]!)", track)
            }
        }
        // A track whose samples have no description cannot be matched or continued (its stsd renamed: join wrote one
        // entry where the clips had none, its read-back failed and it exited 74 naming no box; damage sweep).
        for clip in clips {
            for track in clip.movie.tracks where track.sampleEntries.isEmpty && track.sampleTable.sampleCount > 0 {
                let stbl = track.box.find(["mdia", "minf", "stbl"])
                throw KeepTrackError.malformed(path: "\(clip.label): \(track.path)/mdia/minf/stbl", offset: stbl?.offset ?? track.box.offset,
                    reason: "track \(track.id) has \(track.sampleTable.sampleCount) samples but no sample description (stsd): nothing says what it holds, so no clip can continue it")
            }
        }
        let first = keyed(clips[0].movie)
        var result = first.map { [$0.track] }
        for clip in clips.dropFirst() {
            let tracks = keyed(clip.movie)
            var byKey: [String: Track] = [:]
            for entry in tracks { byKey[entry.key] = entry.track }
            for (index, entry) in first.enumerated() {
                guard let match = byKey.removeValue(forKey: entry.key) else {
                    throw KeepTrackError.unsupported("\(clip.label) has no track matching \(describe(entry.track)) of \(clips[0].label): a missing track")
                }
                result[index].append(match)
            }
            if let extra = tracks.first(where: { byKey[$0.key] != nil }) {
                throw KeepTrackError.unsupported("\(clip.label) has \(describe(extra.track)), which \(clips[0].label) does not have: an extra track")
            }
        }
        try checkAgreement(result, clips: clips)
        return result
    }

    /// Refuses a paired track that cannot continue the first clip's.
    static func checkAgreement(_ matches: [[Track]], clips: [Clip]) throws {
        for (clipIndex, clip) in clips.enumerated().dropFirst() {
            // This clip's track IDs in the first clip's numbering, to compare references.
            var toFirst: [UInt32: UInt32] = [:]
            for row in matches { toFirst[row[clipIndex].id] = row[0].id }
            for row in matches {
                let (reference, track) = (row[0], row[clipIndex])
                func refuse(_ difference: String) -> KeepTrackError {
                    .unsupported("\(clip.label) \(describe(track)) cannot continue \(clips[0].label) \(describe(reference)): \(difference)")
                }
                if track.format != reference.format {
                    throw refuse("another codec (\(track.format?.description ?? "none") where the first clip has \(reference.format?.description ?? "none"))")
                }
                if track.mediaHeader.timescale != reference.mediaHeader.timescale {
                    throw refuse("another media time scale (\(track.mediaHeader.timescale), the first clip \(reference.mediaHeader.timescale))")
                }
                if track.header.header.flags != reference.header.header.flags {
                    throw refuse("mismatched flags (tkhd flags 0x\(String(track.header.header.flags, radix: 16)), the first clip 0x\(String(reference.header.header.flags, radix: 16)))")
                }
                if track.alternateGroup != reference.alternateGroup {
                    throw refuse("mismatched alternate group (\(track.alternateGroup), the first clip \(reference.alternateGroup))")
                }
                if track.header.matrix != reference.header.matrix {
                    let angle = { (t: Track) in t.header.rotation.map { "\($0)°" } ?? "not a rotation" }
                    throw refuse("another orientation matrix (\(angle(track)), the first clip \(angle(reference)))")
                }
                if let video = track.video, let first = reference.video, (video.width, video.height) != (first.width, first.height) {
                    throw refuse("another picture size (\(video.width)x\(video.height), the first clip \(first.width)x\(first.height))")
                }
                if let audio = track.audio, let first = reference.audio, audio.sampleRate != first.sampleRate {
                    throw refuse("another sample rate (\(audio.sampleRate ?? 0) Hz, the first clip \(first.sampleRate ?? 0) Hz)")
                }
                let layout = { (t: Track) in t.sampleEntries.first?.first("chan").flatMap { try? $0.serialized() } }
                if track.kind == .audio, layout(track) != layout(reference) {
                    throw refuse("another channel layout (chan box)")
                }
                let mapped = track.references.map { TrackReference(type: $0.type, trackIDs: $0.trackIDs.map { toFirst[$0] ?? 0 }) }
                if mapped != reference.references {
                    let text = { (refs: [TrackReference]) in refs.isEmpty ? "none" : refs.map { "\($0.type)→\($0.trackIDs.map(String.init).joined(separator: ","))" }.joined(separator: " ") }
                    throw refuse("mismatched references (\(text(mapped)) in the first clip's numbering, the first clip \(text(reference.references)))")
                }
            }
        }
    }
}
