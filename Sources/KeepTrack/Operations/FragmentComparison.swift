/// Comparing a fragmented movie with its progressive copy: the copy's sample tables, durations and
/// edits were rebuilt from the fragments, so those boxes are compared through what they describe
/// (every sample's times, sync flag and dependencies; the edits on a timeline starting at 0) and
/// every other byte of each trak as usual.
extension MovieComparison {
    /// Boxes a defragmented copy rebuilds (besides the layout boxes), compared through their meaning.
    static let rebuiltByDefragmenting: Set<FourCC> = MovieComparison.layoutBoxes.union(OutputTrack.rebuiltTableBoxes).union(["edts"])
        .union(FilePointers.pointerBoxes).union(["sbgp", "sgpd"])

    /// Paths inside the traks whose bytes differ, durations and rebuilt tables left out.
    static func differingDefragmentedBoxes(_ a: Track, _ b: Track) throws -> [String] {
        differingBoxes(try withoutDurations(a.box), try withoutDurations(b.box), path: "", ignoring: rebuiltByDefragmenting)
    }

    /// The trak with the tkhd and mdhd durations set to 0 (a fragmented source says 0 or less than its samples last).
    static func withoutDurations(_ trak: Box) throws -> Box {
        var trak = trak
        try trak.modifyChildren { children in
            for index in children.indices {
                if children[index].type == "tkhd" { children[index] = try children[index].reencoded(TrackHeaderBox.self) { $0.duration = 0 } }
                if children[index].type == "mdia" {
                    try children[index].modifyChildren { mdia in
                        for m in mdia.indices where mdia[m].type == "mdhd" { mdia[m] = try mdia[m].reencoded(MediaHeaderBox.self) { $0.duration = 0 } }
                    }
                }
            }
        }
        return trak
    }

    /// Movie-level boxes of a fragmented movie as its progressive copy has them: no mvex, mvhd duration left out.
    static func defragmentedMovieBoxes(_ movie: Movie) throws -> [Box] {
        try movie.moov.children.filter { $0.type != "trak" && $0.type != "mvex" }.map { box in
            box.type == "mvhd" ? try box.reencoded(MovieHeaderBox.self) { $0.duration = 0 } : box
        }
    }

    /// The first way the two tracks' samples differ in time, sync flag or dependencies, or nil.
    /// Decode times are compared from each track's first sample (a fragment may start later than 0;
    /// its copy shows that with an empty edit, compared with the edits).
    static func timingDifference(_ a: Track, _ b: Track) -> String? {
        let editsA = a.defragmentedTiming?.edits ?? a.editList?.entries
        let editsB = b.defragmentedTiming?.edits ?? b.editList?.entries
        if editsA != editsB { return "track \(a.id): edit lists differ" }
        var left = a.sampleTable.samples.makeIterator()
        var right = b.sampleTable.samples.makeIterator()
        let startA = a.sampleTable.firstDecodeTime, startB = b.sampleTable.firstDecodeTime
        let dependenciesA = dependencies(a), dependenciesB = dependencies(b)
        while let x = left.next(), let y = right.next() {
            if x.decodeTime - startA != y.decodeTime - startB || x.compositionOffset != y.compositionOffset || x.isSync != y.isSync {
                return "track \(a.id): sample \(x.index + 1) differs in decode time, composition offset or sync flag"
            }
            let dependencyA = x.index < dependenciesA.count ? dependenciesA[x.index] : 0
            let dependencyB = y.index < dependenciesB.count ? dependenciesB[y.index] : 0
            if dependencyA != dependencyB { return "track \(a.id): sample \(x.index + 1) differs in its dependencies (sdtp)" }
        }
        // Sample groups through what they say about each sample (a copy merges the trafs' into stbl).
        do {
            if let difference = try a.sampleGroups().difference(from: b.sampleGroups()) { return "track \(a.id): \(difference)" }
        } catch let error as KeepTrackError {
            return "track \(a.id): sample groups cannot be compared: \(error.description)"
        } catch {
            return "track \(a.id): sample groups cannot be compared: \(error)"
        }
        return nil
    }

    /// One sdtp byte per sample: from the fragments, or from the track's own sdtp.
    static func dependencies(_ track: Track) -> [UInt8] {
        if !track.sampleTable.dependencies.isEmpty { return track.sampleTable.dependencies }
        return track.box.find(["mdia", "minf", "stbl", "sdtp"]).map { Array($0.payload.dropFirst(4)) } ?? []
    }
}
