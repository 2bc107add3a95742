/// Pieces of one recording (`split`, `trim`) overlap in decode order: a piece cut after a sync frame
/// starts with the GOP lead-in the piece before already holds, audio with the warm-up or pre-roll packet
/// the piece before ended with, a metadata sample spanning the cut is in both. Where a clip begins with
/// the very samples the previous clip of the track ends with (same bytes, sizes, durations, composition
/// offsets, sync flags and description), the joined track keeps them once: the joined media then is the
/// recording's own, and a decoder never meets a picture twice (HEVC's "duplicate POC").
extension Join {
    /// Longest run considered (samples).
    static let overlapLimit = 1024

    /// What must agree for two samples to be the same sample (besides their bytes).
    struct SampleFacts: Equatable {
        var size: UInt32, duration: UInt64, compositionOffset: Int64, isSync: Bool, description: UInt32
    }

    static func facts(_ part: Part, _ indexes: Range<Int>) -> [SampleFacts] {
        let timeline = part.timeline
        let (sizes, durations, offsets, syncs, descriptions) = (timeline.sizes, timeline.durations, timeline.compositionOffsets, timeline.syncs, timeline.descriptions)
        let map = part.descriptionIndexes
        return indexes.map { index in
            let description = Int(descriptions[index]) - 1
            return SampleFacts(size: sizes[index], duration: durations[index], compositionOffset: offsets[index], isSync: syncs[index],
                               description: description >= 0 && description < map.count ? map[description] : 0)
        }
    }

    /// How many of `next`'s first samples repeat the last samples the joined track holds so far (0: none): the
    /// longest run whose facts and bytes agree, tried from the longest. The run may reach back across several
    /// clips: a piece cut after two cuts in one GOP starts with the lead-in both pieces before it hold (split
    /// at 1.2 s and 3.5 s in a one-GOP movie: the third piece begins with every sample of the first two).
    static func overlap(_ previous: [Part], _ next: Part) throws -> Int {
        // The joined track's last samples, oldest first: (part, sample index) for up to `overlapLimit` of them.
        var held: [(part: Int, index: Int)] = []
        for partIndex in previous.indices.reversed() where held.count < overlapLimit {
            let part = previous[partIndex]
            let retained = part.skip..<part.timeline.decodeTimes.count
            let take = min(retained.count, overlapLimit - held.count)
            held = (retained.upperBound - take..<retained.upperBound).map { (partIndex, $0) } + held
        }
        let b = next.timeline
        let limit = min(held.count, b.decodeTimes.count)
        guard limit > 0 else { return 0 }
        held = Array(held.suffix(limit))
        let tail = held.map { facts(previous[$0.part], $0.index..<($0.index + 1))[0] }
        let head = facts(next, 0..<limit)
        let bOffsets = b.offsets
        // The next clip's first samples, read once however many lengths are tried.
        var headBytes: [[UInt8]] = []
        func bytes(ofHead index: Int) throws -> [UInt8] {
            while headBytes.count <= index {
                headBytes.append(try next.file.read(at: bOffsets[headBytes.count], count: Int(head[headBytes.count].size)))
            }
            return headBytes[index]
        }
        for length in stride(from: limit, through: 1, by: -1) {
            let start = limit - length
            guard tail[start] == head[0], tail[start...] == head[..<length] else { continue }
            var same = true
            for index in 0..<length where same {
                let sample = held[start + index], part = previous[sample.part]
                same = try part.file.read(at: part.timeline.offsets[sample.index], count: Int(head[index].size)) == bytes(ofHead: index)
            }
            if same { return length }
        }
        return 0
    }
}
