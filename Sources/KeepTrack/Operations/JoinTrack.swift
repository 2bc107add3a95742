/// One track of a joined movie: the samples of its counterpart in every clip, one after another in
/// decode order, with one edit per clip presenting what that clip presents.
extension Join {
    /// A clip's part of a joined track.
    struct Part {
        let track: Track
        let timeline: Trim.Timeline
        /// The clip's file.
        let file: ByteSource
        /// Where the clip's file starts in the joined media data.
        let base: UInt64
        /// Each of the track's sample description indexes (1-based) → its index in the joined stsd.
        let descriptionIndexes: [UInt32]
        /// What the clip's track presents (`clipEdits`): media times in its own media, durations on the joined clock.
        let edits: [EditListBox.Entry]
        var presentedEnd: UInt64 { edits.reduce(0) { $0 + $1.segmentDuration } }
        /// Leading samples left out: the previous clip of the track ends with them (`JoinOverlap`).
        var skip = 0
        /// Media time of the skipped samples.
        var skipDuration: UInt64 { timeline.durations.prefix(skip).reduce(0, +) }
        /// The last sample's duration in the joined track when it differs from the clip's (see `fullLastDuration`).
        var lastDuration: UInt64?
        /// Its last edit runs on to the clip's end, past its media by under a unit (`mergeCuesAcrossCuts`).
        var presentsToClipEnd = false
        /// Media time of every sample in the joined track (the skipped ones included).
        var totalDuration: UInt64 {
            guard let last = timeline.durations.last else { return 0 }
            return timeline.durations.reduce(0, +) - last + (lastDuration ?? last)
        }
    }

    /// Audio of fixed-length packets whose last packet the clip's stts shortens (ffmpeg writes the
    /// presented remainder there: 768 where the packet decodes 1024 frames): followed by another clip,
    /// the packet keeps its full length, so the next clip's samples start after all of it and the edit
    /// ends inside it (a decoder cuts the edit there instead of playing the packet's tail). nil otherwise.
    static func fullLastDuration(_ part: Part) -> UInt64? {
        let durations = part.timeline.durations
        guard part.track.kind == .audio, durations.count >= 2 + part.skip, let last = durations.last else { return nil }
        let packet = durations[durations.count - 2]
        guard last < packet, durations[part.skip..<(durations.count - 1)].allSatisfy({ $0 == packet }) else { return nil }
        return packet
    }

    /// The joined `stsd`: identical entries shared, differing ones that play in one decoder (parameter
    /// sets, `colr`, bit rate fields) added; another sample entry type or picture size is refused.
    /// Returns the stsd box and, per clip, its entries' joined indexes.
    static func joinDescriptions(_ tracks: [Track], clips: [Clip]) throws -> (stsd: Box, indexes: [[UInt32]]) {
        var entries: [[UInt8]] = []
        var boxes: [Box] = []
        var indexes: [[UInt32]] = []
        let visualSize = { (entry: [UInt8]) -> [UInt8]? in entry.count >= 8 + 28 ? Array(entry[8 + 24..<8 + 28]) : nil }
        for (clip, track) in zip(clips, tracks) {
            var map: [UInt32] = []
            for entry in track.sampleEntries {
                let bytes = try entry.serialized()
                if let index = entries.firstIndex(of: bytes) { map.append(UInt32(index + 1)); continue }
                if let first = boxes.first {
                    if entry.type != first.type {
                        throw KeepTrackError.unsupported("\(clip.label) \(describe(track)): sample description \(map.count + 1) is \(entry.type), the first clip's is \(first.type): another codec")
                    }
                    if track.kind == .video, visualSize(bytes) != visualSize(entries[0]) {
                        throw KeepTrackError.unsupported("\(clip.label) \(describe(track)): sample description \(map.count + 1) has another picture size than the first clip's")
                    }
                }
                entries.append(bytes)
                boxes.append(entry)
                map.append(UInt32(entries.count))
            }
            indexes.append(map)
        }
        // The first clip's stsd header (version, flags), the new count.
        let sourceHeader = tracks[0].box.find(["mdia", "minf", "stbl", "stsd"]).map { Array($0.payload.prefix(4)) } ?? [0, 0, 0, 0]
        let count = UInt32(boxes.count)
        let prefix = sourceHeader + [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        return (Box(type: "stsd", prefix: prefix, children: boxes), indexes)
    }

    /// The joined track: samples of every part in turn (their bytes where they are in each clip's file,
    /// through `data`), per-sample tables rebuilt, sample groups concatenated and the edit list.
    /// `lengths[c]` is how long clip `c` lasts (clock units): a track that ends earlier waits for the next clip.
    static func joinTrack(_ parts: [Part], stsd: Box, clock: Trim.Clock, lengths: [UInt64],
                          data: ConcatenatedByteSource) throws -> (output: OutputTrack, edits: [EditListBox.Entry], mergedCues: [Int]) {
        let first = parts[0].track
        let mediaScale = first.mediaHeader.timescale
        var builder = TableBuilder(hasComposition: parts.contains { !$0.track.sampleTable.compositionOffsets.isEmpty },
                                   hasSyncTable: parts.contains { $0.track.sampleTable.syncSamples != nil },
                                   hasDependencies: parts.contains { !dependencies($0).isEmpty },
                                   constantSize: commonConstantSize(parts))
        var edits = EditBuilder(clockScale: UInt64(clock.scale), mediaScale: UInt64(mediaScale))
        // Every sum below stays far from overflow (hostile durations are refused here, not trapped on).
        var total: UInt64 = 0
        for part in parts {
            for duration in part.timeline.durations {
                let (sum, overflow) = total.addingReportingOverflow(duration)
                guard !overflow, sum < 1 << 60 else { throw KeepTrackError.unsupported("\(part.track.path): the clips' sample durations add up past 2^60 media units") }
                total = sum
            }
        }
        var mediaBase: UInt64 = 0
        var parts = parts
        // Text is cut in its samples (no lead-in to repeat), so a cue equal to the one before is no overlap: two
        // clips each holding one "Chapter 1" lost the second clip's cue to it, and ffprobe listed a chapter of 0 s.
        for index in parts.indices.dropFirst() where first.kind != .text {
            parts[index].skip = try overlap(Array(parts[..<index]), parts[index])
        }
        for index in parts.indices.dropLast() where parts[index].timeline.decodeTimes.count > parts[index].skip {
            parts[index].lastDuration = fullLastDuration(parts[index])
        }
        let merged = first.kind == .text ? try mergeCuesAcrossCuts(&parts, clock: clock, lengths: lengths) : []
        for (index, part) in parts.enumerated() {
            // The skipped samples are the joined track's last ones: this clip's media starts that much earlier.
            mediaBase -= part.skipDuration
            builder.append(part, dependencies: dependencies(part))
            for (number, edit) in part.edits.enumerated() {
                if edit.mediaTime < 0 { edits.empty(edit.segmentDuration); continue }
                let (mediaTime, overflow) = Int64(mediaBase).addingReportingOverflow(edit.mediaTime)
                guard !overflow else { throw KeepTrackError.unsupported("\(part.track.path)/edts/elst: a media time past 2^63") }
                let last = number == part.edits.count - 1 && part.presentsToClipEnd && lengths[index] > part.presentedEnd
                edits.present(mediaTime: mediaTime, duration: edit.segmentDuration + (last ? lengths[index] - part.presentedEnd : 0))
            }
            if index < parts.count - 1, lengths[index] > part.presentedEnd, !part.presentsToClipEnd { edits.empty(lengths[index] - part.presentedEnd) }
            mediaBase += part.totalDuration
        }
        let table = builder.table()
        var trak = try first.trakWithFragmentGroupsMerged()
        // The other clips' fragments must be joinable too (their refusals apply).
        for part in parts.dropFirst() { _ = try part.track.trakWithFragmentGroupsMerged() }
        try trak.modifySampleTable { children in
            if let index = children.firstIndex(where: { $0.type == "stsd" }) { children[index] = stsd }
            if let stps = children.first(where: { $0.type == "stps" }) {
                throw KeepTrackError.unsupported("\(first.path)/mdia/minf/stbl/stps at byte \(stps.offset): partial sync samples are not joined")
            }
        }
        let groups = try joinedGroups(parts)
        let timing = DefragmentedTiming(mediaDuration: mediaBase, trackDuration: edits.entries.reduce(0) { $0 + $1.segmentDuration },
                                        edits: edits.entries.isEmpty ? nil : edits.entries)
        var output = try OutputTrack(trak: trak, rebuilding: table, timing: timing, groups: groups, data: data, timescale: mediaScale)
        output.joinedParts = parts.map { OutputTrack.JoinedPart(file: $0.file, trackID: $0.track.id, descriptionIndexes: $0.descriptionIndexes, skip: $0.skip,
                                                                 lastDuration: $0.lastDuration.map { UInt32(truncatingIfNeeded: $0) }) }
        return (output, edits.entries, merged)
    }

    /// Text cut by `trim`/`split` ends each piece inside the cue playing at the cut, and the next piece opens with the
    /// rest of it (the same sample, shortened). Joined as two samples, ffprobe listed that chapter twice (Intro
    /// 0-1.469 s and 1.469-1.501 s). Where a clip's text ends where its clip does and the next clip's text starts
    /// at its start with the same sample (bytes and description), the two are one sample lasting both.
    /// Returns the indexes of the parts whose first cue was merged into the one before.
    static func mergeCuesAcrossCuts(_ parts: inout [Part], clock: Trim.Clock, lengths: [UInt64]) throws -> [Int] {
        var merged: [Int] = []
        let mediaScale = UInt64(parts[0].track.mediaHeader.timescale), clockScale = UInt64(clock.scale)
        for index in parts.indices.dropFirst() {
            let previous = parts[index - 1], next = parts[index]
            let count = previous.timeline.decodeTimes.count
            guard next.skip == 0, !next.timeline.durations.isEmpty, count > previous.skip, mediaScale > 0,
                  previous.edits.count == 1, let edit = previous.edits.first, edit.mediaTime >= 0,
                  // The clip lasts what its text presents, or under one media unit more (its media ends on a whole unit).
                  lengths[index - 1] >= previous.presentedEnd,
                  (lengths[index - 1] - previous.presentedEnd) * mediaScale < clockScale,
                  let opening = next.edits.first, opening.mediaTime == 0 else { continue }
            // The previous clip's text plays to the end of its media (within one media unit).
            let (scaled, overflow) = edit.segmentDuration.multipliedReportingOverflow(by: mediaScale)
            guard !overflow else { continue }
            let presentedEnd = UInt64(edit.mediaTime) + scaled / clockScale
            let mediaEnd = previous.totalDuration
            guard presentedEnd == mediaEnd || (scaled % clockScale != 0 && presentedEnd + 1 == mediaEnd) else { continue }
            let a = facts(previous, (count - 1)..<count)[0], b = facts(next, 0..<1)[0]
            guard a.size == b.size, a.description == b.description, a.compositionOffset == 0, b.compositionOffset == 0,
                  try previous.file.read(at: previous.timeline.offsets[count - 1], count: Int(a.size))
                      == next.file.read(at: next.timeline.offsets[0], count: Int(b.size)) else { continue }
            let last = previous.lastDuration ?? previous.timeline.durations[count - 1]
            let (sum, tooLong) = last.addingReportingOverflow(next.timeline.durations[0])
            guard !tooLong, sum <= UInt64(UInt32.max) else { continue }
            parts[index - 1].lastDuration = sum
            parts[index - 1].presentsToClipEnd = true
            parts[index].skip = 1
            merged.append(index)
        }
        return merged
    }

    /// One sdtp byte per sample of the part, or none.
    static func dependencies(_ part: Part) -> [UInt8] {
        let track = part.track
        if track.sampleTable.dependencies.count == track.sampleTable.sampleCount { return track.sampleTable.dependencies }
        guard let sdtp = track.box.find(["mdia", "minf", "stbl", "sdtp"]), sdtp.payload.count == 4 + track.sampleTable.sampleCount else { return [] }
        return Array(sdtp.payload.dropFirst(4))
    }

    /// The size every sample of every part has when all say so with a constant stsz (LPCM), else nil.
    static func commonConstantSize(_ parts: [Part]) -> UInt32? {
        let sizes = Set(parts.map { $0.track.sampleTable.sizes.isEmpty ? $0.track.sampleTable.constantSize : 0 })
        return sizes.count == 1 && !sizes.contains(0) ? sizes.first : nil
    }

    /// Every part's sample groups one after another: descriptions shared when their bytes agree
    /// (the first clip's first, in its order), indexes renumbered; nil when no part has groups.
    static func joinedGroups(_ parts: [Part]) throws -> SampleGroupMembership? {
        let memberships = try parts.map { try $0.track.sampleGroups() }
        guard memberships.contains(where: { !$0.runs.isEmpty }) else { return nil }
        var joined = SampleGroupMembership()
        joined.descriptions = memberships[0].descriptions
        let groupings = Set(memberships.flatMap(\.runs.keys))
        for (part, membership) in zip(parts, memberships) {
            let count = part.track.sampleTable.sampleCount
            for grouping in groupings {
                var runs = joined.runs[grouping] ?? []
                var covered = 0
                var skipped = 0
                let source = membership.runs[grouping] ?? []
                for run in stride(from: 0, to: source.count - 1, by: 2) {
                    var length = Int(min(source[run], UInt32(max(count - covered, 0))))
                    guard length > 0 else { break }
                    // The samples the previous clip already holds.
                    let drop = min(length, part.skip - skipped)
                    skipped += drop
                    covered += drop
                    length -= drop
                    guard length > 0 else { continue }
                    var index = source[run + 1]
                    if index > 0 {
                        let entries = membership.descriptions[grouping.type] ?? []
                        let position = Int(index) - 1
                        guard position < entries.count else {
                            throw KeepTrackError.malformed(path: part.track.path + "/mdia/minf/stbl/sbgp", offset: part.track.box.offset,
                                                           reason: "group description index \(index) of \(grouping) is past its \(entries.count) descriptions")
                        }
                        var known = joined.descriptions[grouping.type] ?? []
                        if let found = known.firstIndex(of: entries[position]) {
                            index = UInt32(found + 1)
                        } else {
                            known.append(entries[position])
                            joined.descriptions[grouping.type] = known
                            joined.grownTypes.insert(grouping.type)
                            index = UInt32(known.count)
                        }
                    }
                    appendRun(&runs, UInt32(length), index)
                    covered += length
                }
                if covered < part.skip { covered = part.skip }
                if covered < count { appendRun(&runs, UInt32(count - covered), 0) }
                joined.runs[grouping] = runs
            }
        }
        return joined
    }

    static func appendRun(_ runs: inout [UInt32], _ count: UInt32, _ index: UInt32) {
        if runs.count >= 2, runs[runs.count - 1] == index { runs[runs.count - 2] += count } else { runs += [count, index] }
    }

    /// The joined edit list: an empty edit where a track shows nothing, a presented edit per clip,
    /// joined into one where a clip's media simply continues the one before.
    struct EditBuilder {
        let clockScale: UInt64
        let mediaScale: UInt64
        private(set) var entries: [EditListBox.Entry] = []

        mutating func empty(_ duration: UInt64) {
            guard duration > 0 else { return }
            if let last = entries.last, last.mediaTime == -1 {
                entries[entries.count - 1].segmentDuration += duration
                return
            }
            var entry = EditListBox.Entry()
            entry.mediaTime = -1
            entry.segmentDuration = duration
            entries.append(entry)
        }

        /// An edit that starts where the last one ends continues it. "Where it ends" is exact when the last edit
        /// lasts a whole number of media units; otherwise either neighbour of the exact end counts: pieces cut at a
        /// 29.97 fps frame end their audio edit inside a 48 kHz sample (352352/240000 s is 70470.4 samples), and the
        /// next piece's media starts on a whole sample. Kept as two edits, GStreamer played 40 % less of the audio.
        mutating func present(mediaTime: Int64, duration: UInt64) {
            let (scaled, overflow) = (entries.last?.segmentDuration ?? 0).multipliedReportingOverflow(by: mediaScale)
            if let last = entries.last, last.mediaTime >= 0, !overflow, scaled / clockScale < 1 << 62 {
                let whole = last.mediaTime &+ Int64(scaled / clockScale)
                if mediaTime == whole || (scaled % clockScale != 0 && mediaTime == whole &+ 1) {
                    entries[entries.count - 1].segmentDuration += duration
                    return
                }
            }
            var entry = EditListBox.Entry()
            entry.mediaTime = mediaTime
            entry.segmentDuration = duration
            entries.append(entry)
        }
    }

    /// Per-sample tables of the parts one after another, chunks as in each source (the writer lays them out anew).
    struct TableBuilder {
        let hasComposition: Bool
        let hasSyncTable: Bool
        let hasDependencies: Bool
        let constantSize: UInt32?
        var count = 0
        var stts: [UInt32] = [], ctts: [UInt32] = [], sync: [UInt32] = [], sizes: [UInt32] = []
        var chunkOffsets: [UInt64] = [], stsc: [UInt32] = [], dependencies: [UInt8] = []
        var signed = false

        init(hasComposition: Bool, hasSyncTable: Bool, hasDependencies: Bool, constantSize: UInt32?) {
            self.hasComposition = hasComposition
            self.hasSyncTable = hasSyncTable
            self.hasDependencies = hasDependencies
            self.constantSize = constantSize
        }

        mutating func append(_ part: Part, dependencies partDependencies: [UInt8]) {
            let timeline = part.timeline
            let allSync = part.track.sampleTable.syncSamples == nil
            signed = signed || part.track.sampleTable.compositionOffsetsSigned
            var inChunk = 0, chunk = -1, description: UInt32 = 0, chunkEnd: UInt64 = 0
            func close() {
                guard inChunk > 0 else { return }
                if stsc.count >= 3, stsc[stsc.count - 2] == UInt32(inChunk), stsc[stsc.count - 1] == description { return }
                stsc += [UInt32(chunkOffsets.count), UInt32(inChunk), description]
            }
            let (durations, offsets, sizes, syncs) = (timeline.durations, timeline.offsets, timeline.sizes, timeline.syncs)
            let (chunks, descriptions, compositionOffsets) = (timeline.chunks, timeline.descriptions, timeline.compositionOffsets)
            let lastIndex = durations.count - 1
            for index in part.skip..<timeline.decodeTimes.count {
                let delta = UInt32(truncatingIfNeeded: index == lastIndex ? part.lastDuration ?? durations[index] : durations[index])
                Join.appendRun(&stts, 1, delta)
                if hasComposition { Join.appendRun(&ctts, 1, UInt32(truncatingIfNeeded: compositionOffsets[index])) }
                count += 1
                if allSync || syncs[index] { sync.append(UInt32(count)) }
                if constantSize == nil { self.sizes.append(sizes[index]) }
                if hasDependencies { dependencies.append(index < partDependencies.count ? partDependencies[index] : 0) }
                let sourceDescription = Int(descriptions[index]) - 1
                let joinedDescription = part.descriptionIndexes.indices.contains(sourceDescription) ? part.descriptionIndexes[sourceDescription] : 1
                let offset = part.base + offsets[index]
                if chunks[index] != chunk || joinedDescription != description || offset != chunkEnd {
                    close()
                    chunkOffsets.append(offset)
                    inChunk = 0
                    chunk = chunks[index]
                    description = joinedDescription
                }
                inChunk += 1
                chunkEnd = offset + UInt64(sizes[index])
            }
            close()
        }

        func table() -> SampleTable {
            var table = SampleTable(sampleCount: count, sizes: sizes, constantSize: constantSize ?? 0, chunkOffsets: chunkOffsets,
                                    sampleToChunk: stsc, timeToSample: stts, compositionOffsets: ctts, compositionOffsetsSigned: signed,
                                    syncSamples: hasSyncTable ? sync : nil, usesLargeOffsets: chunkOffsets.contains { $0 > UInt64(UInt32.max) })
            table.dependencies = dependencies
            return table
        }
    }
}
