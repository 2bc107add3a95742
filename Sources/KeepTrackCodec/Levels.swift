import Foundation
import KeepTrack

/// Levels of every audio track of a movie and of what a simple player plays: the enabled audio
/// tracks summed sample-aligned (each downmixed to stereo), measured the same way.
public struct MovieLevels: Sendable {
    public struct TrackResult: Sendable {
        public var id: UInt32
        public var format: String
        public var codec: String
        public var enabled: Bool
        public var alternateGroup: UInt16
        /// nil when not decodable here (`note` says why); never silence instead.
        public var levels: AudioLevels?
        public var note: String?
        /// Packets the decoder rejected, left out of `levels`.
        public var skippedPackets: [SkippedPacket] = []

        /// What the levels leave out, for the note in text and JSON.
        public var skippedNote: String? {
            guard let first = skippedPackets.first else { return nil }
            let count = skippedPackets.count
            return "left out \(count) packet\(count == 1 ? "" : "s") the decoder rejects" + (count == 1 ? "" : ", the first") + ": " + first.reason
        }
    }

    public var name: String
    public var tracks: [TrackResult]
    /// Ids of the enabled audio tracks that went into the mix.
    public var mixedTrackIDs: [UInt32]
    /// Enabled audio tracks left out of the mix because they cannot be decoded here.
    public var unmixedTrackIDs: [UInt32]
    public var enabledMix: AudioLevels?
    /// Alternate groups (non-zero) in which more than one audio track is enabled: players mix them (echo).
    public var groupsPlayingSeveral: [UInt16]

    /// Most audio tracks of one group enabled at once (1 for a correct file, 0 when none play).
    public var maximumEnabledPerGroup: Int
}

public enum LevelsAnalyzer {
    /// Stereo frames per mixing step.
    static let block = 8192

    /// Decodes every audio track once (in lockstep for the enabled ones) and measures.
    public static func measure(path: String) throws -> MovieLevels {
        try measure(Movie.open(path: path), name: path)
    }

    /// Sums `streams` block by block (each converted to stereo at `rate`) and measures the sum.
    static func mix(_ streams: [PresentedAudioStream], rate: Int) throws -> AudioLevels {
        let meter = LevelMeter(channels: 2, sampleRate: rate)
        var mix = [Float](repeating: 0, count: block * 2)
        while true {
            for stream in streams { try stream.fill(block) }
            let available = streams.map(\.bufferedFrames).max() ?? 0
            if available == 0 { break }
            let frames = min(block, available)
            mix.withUnsafeMutableBufferPointer { buffer in
                for index in 0..<frames * 2 { buffer[index] = 0 }
                for stream in streams { _ = stream.take(frames, addingInto: buffer) }
            }
            mix.withUnsafeBufferPointer { meter.add(UnsafeBufferPointer(rebasing: $0[0..<frames * 2])) }
        }
        return meter.levels
    }

    public static func measure(_ movie: Movie, name: String) throws -> MovieLevels {
        let audio = movie.tracks.filter { $0.kind == .audio }
        let enabled = audio.filter(\.isEnabled)
        let mixRate = enabled.compactMap { $0.audio?.sampleRate }.first.map { Int($0) } ?? 48000
        var results: [UInt32: MovieLevels.TrackResult] = [:]
        var streams: [UInt32: PresentedAudioStream] = [:]
        let decodableEnabled = enabled.filter { (try? DecoderConfiguration.make(for: $0)) != nil }
        // One enabled track: the mix is that track (when it is stereo), so it is decoded and measured once.
        let mixing = decodableEnabled.count > 1
        for track in audio {
            var result = MovieLevels.TrackResult(id: track.id, format: track.format?.description ?? "?", codec: track.codecName ?? "?",
                                                 enabled: track.isEnabled, alternateGroup: track.alternateGroup)
            do {
                streams[track.id] = try PresentedAudioStream(track: track, source: movie.source, mixRate: track.isEnabled && mixing ? mixRate : nil)
            } catch let error as CodecError {
                result.note = error.description
            }
            results[track.id] = result
        }
        let mixed = enabled.compactMap { streams[$0.id] }
        var mixLevels: AudioLevels?
        if mixing { mixLevels = try mix(mixed, rate: mixRate) }
        for track in audio {
            guard let stream = streams[track.id] else { continue }
            if !mixing || !track.isEnabled { try stream.drain() }
            results[track.id]?.levels = stream.meter?.levels
            results[track.id]?.skippedPackets = stream.skipped
            if stream.meter == nil { results[track.id]?.note = "no audio decoded" }
            if stream.meter != nil, let note = results[track.id]?.skippedNote { results[track.id]?.note = note }
        }
        if !mixing, let only = mixed.first {
            if only.meter?.channels == 2 {
                mixLevels = only.meter?.levels
            } else if only.meter != nil {
                // Mono or multichannel: the mix is its stereo downmix, a second decode.
                mixLevels = try mix([PresentedAudioStream(track: only.track, source: movie.source, mixRate: mixRate)], rate: mixRate)
            }
        }
        var perGroup: [UInt16: Int] = [:]
        for track in enabled where track.alternateGroup != 0 { perGroup[track.alternateGroup, default: 0] += 1 }
        let ungroupedEnabled = enabled.contains { $0.alternateGroup == 0 } ? 1 : 0
        return MovieLevels(name: name, tracks: audio.compactMap { results[$0.id] }, mixedTrackIDs: enabled.filter { streams[$0.id] != nil }.map(\.id),
                           unmixedTrackIDs: enabled.filter { streams[$0.id] == nil }.map(\.id), enabledMix: mixLevels,
                           groupsPlayingSeveral: perGroup.filter { $0.value > 1 }.map(\.key).sorted(),
                           maximumEnabledPerGroup: max(perGroup.values.max() ?? 0, ungroupedEnabled))
    }
}

// MARK: Rendering

extension AudioLevels {
    /// "-23.01", or "-inf" for silence.
    public static func format(_ value: Double) -> String {
        value.isFinite ? String(format: "%.2f", value) : "-inf"
    }

    /// JSON numbers; −infinity (silence) becomes null.
    public var json: JSONValue {
        func number(_ value: Double) -> JSONValue { value.isFinite ? .double((value * 100).rounded() / 100) : .null }
        return .object([("rmsDBFS", number(rmsDBFS)), ("peakDBFS", number(peakDBFS)), ("integratedLUFS", number(integratedLUFS)),
                        ("seconds", .double((duration * 1000).rounded() / 1000)), ("sampleRate", .int(Int64(sampleRate))),
                        ("channels", .int(Int64(channels)))])
    }
}

extension MovieLevels {
    public var json: JSONValue {
        .object([
            ("file", .string(name)),
            ("tracks", .array(tracks.map { track in
                var pairs: [(String, JSONValue)] = [("id", .int(Int64(track.id))), ("format", .string(track.format)), ("codec", .string(track.codec)),
                                                    ("enabled", .bool(track.enabled)), ("alternateGroup", .int(Int64(track.alternateGroup)))]
                pairs.append(("decodable", .bool(track.levels != nil)))
                if let levels = track.levels { pairs.append(("levels", levels.json)) }
                if let note = track.note { pairs.append(("note", .string(note))) }
                if !track.skippedPackets.isEmpty {
                    pairs.append(("skippedPackets", .array(track.skippedPackets.map { packet in
                        .object([("packet", .int(Int64(packet.packet))), ("bytes", .int(Int64(packet.bytes))),
                                 ("offset", .int(Int64(packet.offset))), ("reason", .string(packet.reason))])
                    })))
                }
                return .object(pairs)
            })),
            ("enabledMix", .object([
                ("tracks", .array(mixedTrackIDs.map { .int(Int64($0)) })),
                ("notDecodable", .array(unmixedTrackIDs.map { .int(Int64($0)) })),
                ("levels", enabledMix?.json ?? .null),
            ])),
            ("groupsPlayingSeveral", .array(groupsPlayingSeveral.map { .int(Int64($0)) })),
        ])
    }

    public var text: String {
        var rows = [["track", "format", "plays", "group", "RMS dBFS", "peak dBFS", "LUFS", "seconds", "ch"]]
        func cells(_ levels: AudioLevels) -> [String] {
            [AudioLevels.format(levels.rmsDBFS), AudioLevels.format(levels.peakDBFS), AudioLevels.format(levels.integratedLUFS),
             String(format: "%.3f", levels.duration), String(levels.channels)]
        }
        for track in tracks {
            var row = [String(track.id), track.format, track.enabled ? "yes" : "no", track.alternateGroup == 0 ? "-" : String(track.alternateGroup)]
            row += track.levels.map(cells) ?? ["not decodable here", "", "", "", ""]
            rows.append(row)
        }
        let mixLabel = mixedTrackIDs.isEmpty ? "none" : mixedTrackIDs.map(String.init).joined(separator: "+")
        rows.append(["mix", mixLabel, "", ""] + (enabledMix.map(cells) ?? ["no enabled audio decodable", "", "", "", ""]))
        var lines = ["\(name): audio levels (presented range, edit list applied)", ""]
        lines += TextTable.render(rows).map { "  " + $0 }
        lines.append("")
        lines.append("  mix = what a simple player plays: the enabled audio tracks summed, downmixed to stereo.")
        for track in tracks where track.levels == nil {
            lines.append("  track \(track.id): \(track.note ?? "not decodable here")" + (track.enabled ? " — left out of the mix, so the mix is incomplete" : ""))
        }
        for track in tracks where track.levels != nil && !track.skippedPackets.isEmpty {
            let count = track.skippedPackets.count
            lines.append("  note: track \(track.id): \(count) packet\(count == 1 ? "" : "s") the decoder rejects \(count == 1 ? "is" : "are") left out of its levels:")
            for packet in track.skippedPackets.prefix(5) { lines.append("    \(packet.reason)") }
            if count > 5 { lines.append("    … \(count - 5) more (all of them in the JSON report)") }
        }
        for group in groupsPlayingSeveral {
            lines.append("  warning: alternate group \(group) has several enabled audio tracks; players mix them (echo, louder)")
        }
        return lines.joined(separator: "\n")
    }
}

/// Left-aligned columns separated by two spaces.
enum TextTable {
    static func render(_ rows: [[String]]) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
    }
}
