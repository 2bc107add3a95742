/// "Write this trak with this sample table": for a track whose table did not come from its own
/// `stbl` (a fragmented track's moov+fragment samples, and next a trimmed track), the per-sample
/// boxes are rebuilt from the table and the durations from its samples. The writer then treats it
/// like any other track (it always rebuilds `stsc` and `stco`/`co64` for the new layout).
extension OutputTrack {
    /// Sample-table boxes rebuilt from the table (besides the layout boxes the writer always rebuilds).
    public static let rebuiltTableBoxes: Set<FourCC> = ["stsz", "stz2", "stts", "ctts", "cslg", "stss", "sdtp"]

    /// `trak` with `table` written into it:
    /// - `stsz`, `stts`, `ctts` (version 1 when an offset is negative), `stss` (absent when every
    ///   sample is a sync sample) and `sdtp` (when `table.dependencies` has one byte per sample)
    ///   describe `table`; `stz2` becomes `stsz`; `cslg`, which described the old offsets, goes.
    /// - `mdhd`'s duration is `timing.mediaDuration`, `tkhd`'s `timing.trackDuration`, and `edts/elst`
    ///   holds `timing.edits` (removed when nil). Every other byte of the trak stays as given.
    /// The table's samples are written from time 0: `table.firstDecodeTime` must be carried by
    /// `timing.edits` (``DefragmentedTiming`` does).
    /// - `groups` (when given) replaces the stbl's `sbgp` of every grouping it has and the `sgpd` of
    ///   every grouping type whose descriptions grew; ``expectedGroups`` is set to it for verification.
    public init(trak: Box, rebuilding table: SampleTable, timing: DefragmentedTiming, groups: SampleGroupMembership? = nil,
                data: ByteSource, timescale: UInt32) throws {
        var table = table
        table.firstDecodeTime = 0
        var trak = trak
        try Self.rewriteHeaders(&trak, timing: timing)
        let descriptions = Self.groupDescriptions(trak)
        try trak.modifySampleTable { children in
            try Self.replaceTableBoxes(&children, table: table)
            if let groups { try Self.replaceGroupBoxes(&children, groups: groups, stblDescriptions: descriptions) }
        }
        self.init(trak: trak, table: table, data: data, timescale: timescale)
        expectedGroups = groups
    }

    /// The stbl's sgpd boxes by grouping type (the first of each).
    static func groupDescriptions(_ trak: Box) -> [FourCC: Box] {
        var result: [FourCC: Box] = [:]
        for sgpd in trak.find(["mdia", "minf", "stbl"])?.all("sgpd") ?? [] {
            if let view = try? SampleGroupDescriptionBox(box: sgpd), result[view.groupingType] == nil { result[view.groupingType] = sgpd }
        }
        return result
    }

    /// The group boxes of `groups` in place of the stbl's (where the first of them was, else at the end).
    static func replaceGroupBoxes(_ children: inout [Box], groups: SampleGroupMembership, stblDescriptions: [FourCC: Box]) throws {
        let rebuilt = try groups.boxes(stblDescriptions: stblDescriptions)
        let types = Set(groups.descriptions.keys).union(groups.runs.keys.map(\.type))
        var result: [Box] = []
        var placed = false
        for child in children {
            let payload = child.payload
            let grouping = (child.type == "sbgp" || child.type == "sgpd") && payload.count >= 8 ? FourCC(bytes: payload[4..<8]) : nil
            if let grouping, types.contains(grouping) {
                if !placed { result += rebuilt; placed = true }
            } else {
                result.append(child)
            }
        }
        if !placed { result += rebuilt }
        children = result
    }

    /// The per-sample boxes describing `table`, in `stbl` order.
    static func tableBoxes(_ table: SampleTable) throws -> [Box] {
        var boxes: [Box] = []
        var stts = TimeToSampleBox()
        stts.pairs = table.timeToSample
        boxes.append(Box(type: "stts", bytes: try stts.encoded()))
        if !table.compositionOffsets.isEmpty {
            var ctts = CompositionOffsetBox()
            let negative = stride(from: 1, to: table.compositionOffsets.count, by: 2).contains { Int32(bitPattern: table.compositionOffsets[$0]) < 0 }
            ctts.header.version = table.compositionOffsetsSigned || negative ? 1 : 0
            ctts.pairs = table.compositionOffsets
            boxes.append(Box(type: "ctts", bytes: try ctts.encoded()))
        }
        if let sync = table.syncSamples {
            var stss = SyncSampleBox()
            stss.sampleNumbers = sync
            boxes.append(Box(type: "stss", bytes: try stss.encoded()))
        }
        if table.dependencies.count == table.sampleCount, table.sampleCount > 0 {
            var sdtp = SampleDependencyBox()
            sdtp.flags = table.dependencies
            boxes.append(Box(type: "sdtp", bytes: try sdtp.encoded()))
        }
        var stsz = SampleSizeBox()
        stsz.constantSize = table.sizes.isEmpty ? table.constantSize : 0
        stsz.sampleCount = UInt32(table.sampleCount)
        stsz.sizes = table.sizes
        boxes.append(Box(type: "stsz", bytes: try stsz.encoded()))
        return boxes
    }

    /// Replaces the per-sample boxes in place (new ones go where the first old one was, after `stsd`
    /// when there was none); sample groups and everything else stay.
    static func replaceTableBoxes(_ children: inout [Box], table: SampleTable) throws {
        let rebuilt = try tableBoxes(table)
        var result: [Box] = []
        var placed = false
        for child in children {
            if rebuiltTableBoxes.contains(child.type) {
                if !placed { result += rebuilt; placed = true }
            } else {
                result.append(child)
            }
        }
        if !placed {
            let index = (result.firstIndex { $0.type == "stsd" }).map { $0 + 1 } ?? 0
            result.insert(contentsOf: rebuilt, at: index)
        }
        children = result
    }

    /// New durations in tkhd and mdhd (bytes past the decoded fields kept) and the new edit list.
    static func rewriteHeaders(_ trak: inout Box, timing: DefragmentedTiming) throws {
        try trak.modifyChildren { children in
            for index in children.indices {
                switch children[index].type {
                case "tkhd":
                    children[index] = try children[index].reencoded(TrackHeaderBox.self) { tkhd in
                        if timing.trackDuration > UInt64(UInt32.max) { tkhd.header.version = 1 }
                        tkhd.duration = timing.trackDuration
                    }
                case "mdia":
                    try children[index].modifyChildren { mdia in
                        for m in mdia.indices where mdia[m].type == "mdhd" {
                            mdia[m] = try mdia[m].reencoded(MediaHeaderBox.self) { mdhd in
                                if timing.mediaDuration > UInt64(UInt32.max) { mdhd.header.version = 1 }
                                mdhd.duration = timing.mediaDuration
                            }
                        }
                    }
                default: break
                }
            }
            try Self.replaceEdits(&children, edits: timing.edits)
        }
    }

    static func replaceEdits(_ children: inout [Box], edits: [EditListBox.Entry]?) throws {
        let existing = children.firstIndex { $0.type == "edts" }
        guard let edits else {
            if let existing { children.remove(at: existing) }
            return
        }
        var elst = EditListBox()
        elst.entries = edits
        let large = edits.contains { $0.segmentDuration > UInt64(UInt32.max) || $0.mediaTime > Int64(Int32.max) || $0.mediaTime < Int64(Int32.min) }
        if let existing, let old = children[existing].first("elst"), let view = try? EditListBox(box: old) {
            elst.header = view.header
        }
        if large { elst.header.version = 1 }
        let elstBox = Box(type: "elst", bytes: try elst.encoded())
        if let existing {
            children[existing].modifyChildren { edtsChildren in
                if let index = edtsChildren.firstIndex(where: { $0.type == "elst" }) { edtsChildren[index] = elstBox } else { edtsChildren.append(elstBox) }
            }
        } else {
            let index = (children.firstIndex { $0.type == "tkhd" }).map { $0 + 1 } ?? 0
            children.insert(Box(type: "edts", children: [elstBox]), at: index)
        }
    }

}

extension Box {
    /// The box with its typed fields changed by `change` and re-encoded; bytes past the decoded
    /// fields stay as they were (a box that does not decode is returned unchanged).
    func reencoded<V: BoxView>(_ type: V.Type, _ change: (inout V) -> Void) throws -> Box {
        guard var view = try? V(box: self) else { return self }
        let length = try view.encoded().count
        change(&view)
        var edited = self
        edited.content = .bytes(try view.encoded() + payload.dropFirst(length))
        return edited
    }

    /// Edits the children of this trak's `mdia/minf/stbl`; false when it has none.
    @discardableResult
    mutating func modifySampleTable(_ body: (inout [Box]) throws -> Void) rethrows -> Bool {
        var found = false
        try modifyChildren { trakChildren in
            for t in trakChildren.indices where trakChildren[t].type == "mdia" {
                try trakChildren[t].modifyChildren { mdiaChildren in
                    for m in mdiaChildren.indices where mdiaChildren[m].type == "minf" {
                        try mdiaChildren[m].modifyChildren { minfChildren in
                            for s in minfChildren.indices where minfChildren[s].type == "stbl" {
                                found = true
                                try minfChildren[s].modifyChildren(body)
                            }
                        }
                    }
                }
            }
        }
        return found
    }
}
