/// `join --chapters`: a QuickTime chapter track, one chapter per clip named after its file: a disabled
/// text track (one sample per clip: a 16-bit length, the UTF-8 name and an `encd` box saying UTF-8)
/// that the first video track (else the first track) names with a `chap` track reference.
extension Join {
    static func chapterTrack(names: [String], lengths: [UInt64], clock: Trim.Clock, writer: inout MovieWriter) throws -> TrackJoin {
        guard let target = writer.tracks.firstIndex(where: { $0.trak.find(["mdia", "hdlr"]).flatMap { try? HandlerBox(box: $0) }?.handlerType == "vide" }) ?? writer.tracks.indices.first else {
            throw KeepTrackError.unsupported("--chapters needs a track to attach the chapters to")
        }
        if writer.tracks.contains(where: { $0.trak.first("tref")?.first("chap") != nil }) {
            throw KeepTrackError.unsupported("the first clip has chapters already (a chap track reference): --chapters would add a second chapter track")
        }
        let largest = writer.tracks.compactMap { MovieWriter.trackID($0.trak) }.max() ?? 0
        guard largest < UInt32.max else { throw KeepTrackError.unsupported("track \(largest) has the largest ID there is: no ID is left for a chapter track") }
        let id = largest + 1
        // Chapter samples timed on the movie clock (every clip start exact).
        var samples: [UInt8] = []
        var sizes: [UInt32] = []
        var stts: [UInt32] = []
        for (name, length) in zip(names, lengths) {
            let text = Array(name.utf8.prefix(Int(UInt16.max)))
            var sample = ByteWriter()
            sample.u16(UInt16(text.count)); sample.append(text)
            sample.u32(12); sample.fourCC("encd"); sample.u32(0x100)
            samples += sample.bytes
            sizes.append(UInt32(sample.bytes.count))
            guard length <= UInt64(UInt32.max) else { throw KeepTrackError.unsupported("a clip of \(length) movie units is too long for a chapter sample") }
            appendRun(&stts, 1, UInt32(length))
        }
        let total = lengths.reduce(0, +)
        let table = SampleTable(sampleCount: names.count, sizes: sizes, constantSize: 0, chunkOffsets: [0],
                                sampleToChunk: [1, UInt32(names.count), 1], timeToSample: stts, syncSamples: nil)
        let timing = DefragmentedTiming(mediaDuration: total, trackDuration: total, edits: nil)
        let output = try OutputTrack(trak: chapterTrak(id: id, timescale: clock.scale, duration: total), rebuilding: table,
                                     timing: timing, data: MemoryByteSource(samples), timescale: clock.scale)
        writer.tracks.append(output)
        writer.tracks[target].trak.modifyChildren { children in
            var chap = ByteWriter(); chap.u32(id)
            let reference = Box(type: "chap", bytes: chap.bytes)
            if let tref = children.firstIndex(where: { $0.type == "tref" }) {
                children[tref].modifyChildren { $0.append(reference) }
            } else {
                let after = children.lastIndex { ["tkhd", "tapt", "clip", "matt", "edts"].contains($0.type) } ?? 0
                children.insert(Box(type: "tref", children: [reference]), at: after + 1)
            }
        }
        return TrackJoin(trackID: id, kind: .text, format: "text", samples: names.count, descriptions: 1, edits: [])
    }

    /// The chapter track's boxes (its sample tables filled in by `OutputTrack(rebuilding:)` and the writer).
    static func chapterTrak(id: UInt32, timescale: UInt32, duration: UInt64) -> Box {
        func box(_ type: FourCC, _ body: (inout ByteWriter) -> Void) -> Box {
            var writer = ByteWriter()
            body(&writer)
            return Box(type: type, bytes: writer.bytes)
        }
        let wide = duration > UInt64(UInt32.max)
        let identity: [UInt32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]
        let tkhd = box("tkhd") { w in
            w.u8(wide ? 1 : 0); w.u24(0) // disabled: a chapter track is not played
            if wide { w.u64(0); w.u64(0) } else { w.u32(0); w.u32(0) }
            w.u32(id); w.u32(0)
            if wide { w.u64(duration) } else { w.u32(UInt32(duration)) }
            w.u64(0); w.u16(0); w.u16(0); w.u16(0); w.u16(0)
            w.u32Array(identity); w.u32(0); w.u32(0)
        }
        let mdhd = box("mdhd") { w in
            w.u8(wide ? 1 : 0); w.u24(0)
            if wide { w.u64(0); w.u64(0) } else { w.u32(0); w.u32(0) }
            w.u32(timescale)
            if wide { w.u64(duration) } else { w.u32(UInt32(duration)) }
            w.u16(0x55C4); w.u16(0) // "und"
        }
        let hdlr = box("hdlr") { w in w.u32(0); w.fourCC("mhlr"); w.fourCC("text"); w.append([UInt8](repeating: 0, count: 12)); w.u8(0) }
        let gmin = box("gmin") { w in w.u32(0); w.u16(0x40); w.u16(0x8000); w.u16(0x8000); w.u16(0x8000); w.u16(0); w.u16(0) }
        let gmhdText = box("text") { w in w.u32Array(identity) }
        let dref = Box(type: "dref", prefix: [0, 0, 0, 0, 0, 0, 0, 1], children: [box("url ") { w in w.u32(1) }])
        let entry = box("text") { w in
            w.append([UInt8](repeating: 0, count: 6)); w.u16(1)
            w.u32(0); w.u32(1) // display flags, justification
            w.u16(0); w.u16(0); w.u16(0) // background colour
            w.u16(0); w.u16(0); w.u16(0); w.u16(0) // default text box
            w.u64(0) // reserved
            w.u16(0); w.u16(0); w.u8(0); w.u16(0) // font number, face, reserved
            w.u16(0); w.u16(0); w.u16(0) // foreground colour
            w.u8(0) // empty font name
        }
        let stsd = Box(type: "stsd", prefix: [0, 0, 0, 0, 0, 0, 0, 1], children: [entry])
        let stbl = Box(type: "stbl", children: [stsd, box("stts") { w in w.u64(0) }, box("stsc") { w in w.u64(0) },
                                                 box("stsz") { w in w.u64(0); w.u32(0) }, box("stco") { w in w.u64(0) }])
        let minf = Box(type: "minf", children: [Box(type: "gmhd", children: [gmin, gmhdText]), Box(type: "dinf", children: [dref]), stbl])
        return Box(type: "trak", children: [tkhd, Box(type: "mdia", children: [mdhd, hdlr, minf])])
    }
}

/// The Nero chapter list (`moov/udta/chpl`) of the movie whose metadata the join keeps, rewritten for the joined
/// movie: every clip's chapters at its start on the joined timeline (a chapter opening a clip at 0 with the title
/// of the one playing before is a chapter `split` cut in two: kept once), or with `--chapters` one per clip,
/// named as the chapter track names them. Kept as it was, it listed the first clip's chapters alone.
extension Join {
    static func joinChapterLists(_ movies: [Movie], starts: [UInt64], clock: Trim.Clock, names: [String]?, writer: inout MovieWriter) -> [String] {
        guard let udta = writer.moovTemplate.first("udta"), udta.first("chpl") != nil else { return [] }
        let units = ChapterListBox.unitsPerSecond
        var joined: [ChapterListBox.Chapter] = []
        var unreadable: [String] = []
        for (index, movie) in movies.enumerated() {
            let offset = TimeScale.convert(starts[index], from: clock.scale, to: units, rounding: .down)
            if let names {
                joined.append(.init(start: offset, title: Array(names[index].utf8.prefix(255))))
                continue
            }
            guard let box = movie.moov.first("udta")?.first("chpl") else { continue }
            guard let list = try? ChapterListBox(box: box, path: "moov/udta/chpl") else { unreadable.append("clip \(index + 1)"); continue }
            for chapter in list.chapters.sorted(by: { $0.start < $1.start }) {
                let (start, overflow) = offset.addingReportingOverflow(chapter.start)
                guard !overflow else { continue }
                if chapter.start == 0, index > 0, joined.last?.title == chapter.title { continue }
                joined.append(.init(start: start, title: chapter.title))
            }
        }
        var notes: [String] = []
        writer.moovTemplate.modifyChildren { children in
            guard let at = children.firstIndex(where: { $0.type == "udta" }) else { return }
            children[at].modifyChildren { boxes in
                guard let position = boxes.firstIndex(where: { $0.type == "chpl" }) else { return }
                var list = (try? ChapterListBox(box: boxes[position])) ?? ChapterListBox()
                list.chapters = joined
                if !unreadable.isEmpty || joined.isEmpty || joined.count > 255 {
                    boxes.remove(at: position)
                    let why = !unreadable.isEmpty ? "the chapter list of \(unreadable.joined(separator: ", ")) cannot be read"
                        : joined.isEmpty ? "no clip has chapters in it" : "the clips have \(joined.count) chapters, a chpl holds 255"
                    notes.append("dropped moov/udta/chpl: \(why)")
                    return
                }
                guard let bytes = try? list.encoded() else { boxes.remove(at: position); notes.append("dropped moov/udta/chpl: it cannot be written"); return }
                boxes[position] = Box(type: "chpl", bytes: bytes)
                notes.append("moov/udta/chpl: \(joined.count) chapters \(names == nil ? "from the clips" : "named after the clips"), timed on the joined movie")
            }
        }
        return notes
    }
}
