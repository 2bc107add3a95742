/// Pieces of one recording (`split`, `trim`) overlap in decode order: a piece cut after a sync frame
/// starts with the GOP lead-in the piece before already holds, audio with the warm-up or pre-roll packet
/// the piece before ended with, a metadata sample spanning the cut is in both. Where a clip begins with
/// the very samples the previous clip of the track ends with (same bytes, sizes, durations, composition
/// offsets, sync flags and description), the joined track keeps them once: the joined media then is the
/// recording's own, and a decoder never meets a picture twice (HEVC's "duplicate POC").
extension Join {
    /// Longest run considered (samples).
    static let overlapLimit = 1024

    /// How many of `next`'s first samples repeat `previous`'s last ones (0: none).
    static func overlap(_ previous: Part, _ next: Part) throws -> Int {
        let a = previous.timeline, b = next.timeline
        let aCount = a.decodeTimes.count - previous.skip
        let limit = min(aCount, b.decodeTimes.count, overlapLimit)
        guard limit > 0 else { return 0 }
        func description(_ part: Part, _ index: Int) -> UInt32 {
            part.descriptionIndexes[safe: Int(part.timeline.descriptions[index]) - 1] ?? 0
        }
        func sameFacts(_ i: Int, _ j: Int) -> Bool {
            a.sizes[i] == b.sizes[j] && a.durations[i] == b.durations[j] && a.compositionOffsets[i] == b.compositionOffsets[j]
                && a.syncs[i] == b.syncs[j] && description(previous, i) == description(next, j)
        }
        var length = limit
        while length > 0 {
            let start = a.decodeTimes.count - length
            if (0..<length).allSatisfy({ sameFacts(start + $0, $0) }),
               try (0..<length).allSatisfy({ index in
                   try previous.file.read(at: a.offsets[start + index], count: Int(a.sizes[start + index]))
                       == next.file.read(at: b.offsets[index], count: Int(b.sizes[index]))
               }) {
                return length
            }
            length -= 1
        }
        return 0
    }
}
