/// What a clip's track presents, as edits on the joined clock with media times in the track's own
/// media: its one presented edit as `Trim.Timeline` reads it (a duration of 0 running to the end of
/// the media), or every entry of an edit list with several (a movie join made before), each scaled.
extension Join {
    static func clipEdits(_ timeline: Trim.Timeline, clock: Trim.Clock, movieScale: UInt32) throws -> [EditListBox.Entry] {
        let track = timeline.track
        let entries = track.defragmentedTiming.map { $0.edits ?? [] } ?? track.editList?.entries ?? []
        var result: [EditListBox.Entry] = []
        func append(_ mediaTime: Int64, _ duration: UInt64) {
            guard duration > 0 else { return }
            var entry = EditListBox.Entry()
            entry.mediaTime = mediaTime
            entry.segmentDuration = duration
            result.append(entry)
        }
        // An edit from media time -2 (only -1, "empty", may be negative) or from past the last sample: read as empty
        // or as presenting nothing, the joined video showed none of its frames and join exited 0 (damage sweep).
        let elstOffset = track.box.find(["edts", "elst"])?.offset ?? track.box.offset
        let mediaEnd = Int64(clamping: track.sampleTable.compositionEnd)
        for (number, entry) in entries.enumerated() {
            if entry.mediaTime < -1 {
                throw KeepTrackError.malformed(path: track.path + "/edts/elst", offset: elstOffset,
                    reason: "edit \(number + 1) starts at media time \(entry.mediaTime): only -1 (an empty edit) may be negative")
            }
            if entry.mediaTime >= 0, track.defragmentedTiming == nil, track.sampleTable.sampleCount > 0, entry.mediaTime >= mediaEnd {
                throw KeepTrackError.malformed(path: track.path + "/edts/elst", offset: elstOffset,
                    reason: "edit \(number + 1) starts at media time \(entry.mediaTime), at or after the end of the track's samples (\(mediaEnd)): it presents none of them")
            }
        }
        let presented = entries.filter { $0.mediaTime >= 0 }
        let emptyAfterPresented = entries.drop { $0.mediaTime < 0 }.contains { $0.mediaTime < 0 }
        guard presented.count > 1 || emptyAfterPresented else {
            append(-1, timeline.emptyBefore)
            append(timeline.mediaStart, timeline.presentedLength)
            return result
        }
        let sourceScale = track.movieTimescale > 0 ? track.movieTimescale : movieScale
        for entry in entries {
            guard entry.rateInteger == 1, entry.rateFraction == 0 else {
                throw KeepTrackError.unsupported("\(track.path)/edts/elst plays at rate \(entry.rateInteger).\(entry.rateFraction); join copies edits at rate 1")
            }
            guard entry.segmentDuration > 0, entry.segmentDuration < 1 << 60 else {
                throw KeepTrackError.unsupported("\(track.path)/edts/elst has an edit of duration \(entry.segmentDuration) among several; join copies edits of a known length")
            }
            append(entry.mediaTime < 0 ? -1 : entry.mediaTime, Trim.scale(entry.segmentDuration, from: sourceScale, to: clock.scale))
        }
        return result
    }

    /// Where the edits end (clock units), refused past 2^60 so no later sum overflows.
    static func editsEnd(_ edits: [EditListBox.Entry], _ label: String, _ track: Track) throws -> UInt64 {
        var end: UInt64 = 0
        for edit in edits {
            let (sum, overflow) = end.addingReportingOverflow(edit.segmentDuration)
            guard !overflow, sum < 1 << 60 else {
                throw KeepTrackError.unsupported("\(label): \(track.path)/edts/elst lasts past 2^60 units of the movie clock")
            }
            end = sum
        }
        return end
    }
}
