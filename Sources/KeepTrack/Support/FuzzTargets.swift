/// Everything the fuzzer drives on one input, shared by the libFuzzer harness (Fuzz/FuzzEntry.swift)
/// and the regression corpus test, so a committed crash input replays the same code paths.
/// Nothing is written to disk.
enum FuzzTargets {
    /// Parser, track model, inspect report, lint, the remux planner and the in-memory edits of
    /// fix, strip-spatial, select and extract on one input. Returns the errors that are not a
    /// `KeepTrackError` (each one a bug: bad input must end in a value or a KeepTrackError).
    @discardableResult
    static func exercise(_ bytes: [UInt8]) -> [any Error] {
        var unexpected: [any Error] = []
        let parseError = attempt {
            let movie = try Movie(source: MemoryByteSource(bytes))
            let report = InspectReport(movie: movie, name: "fuzz")
            _ = report.json.rendered()
            _ = report.text
            for track in movie.tracks {
                _ = (track.audio, track.video, track.codecName)
                var oddSizes = 0
                for sample in track.sampleTable.samples { oddSizes += Int(sample.size & 1) }
                _ = oddSizes
            }
            try layOut(MovieWriter(passingThrough: movie))
            unexpected = exerciseEdits(movie)
        }
        return unexpected + [parseError].compactMap { $0 }
    }

    /// Runs `body`; a KeepTrackError is the expected end for bad input, anything else is recorded.
    static func attempt(_ body: () throws -> Void) -> (any Error)? {
        do { try body() } catch is KeepTrackError {} catch { return error }
        return nil
    }

    /// The moov the writer would produce (chunk plan and offsets); nothing is written to disk.
    static func layOut(_ writer: MovieWriter) throws {
        let plan = ChunkPlan(tracks: writer.tracks, chunkDuration: writer.options.chunkDuration)
        _ = try writer.makeLayout(plan: plan, prefixSize: 0).moov.serialized()
    }

    /// lint rules, then the in-memory edits of fix (rewrite and in-place patches), strip-spatial,
    /// select and extract, each laid out. One edit refusing must not stop the others.
    static func exerciseEdits(_ movie: Movie) -> [any Error] {
        var unexpected: [any Error] = []
        for finding in Linter.lint(movie) { _ = finding.message }
        let fixPlan = GroupFix.plan(movie)
        _ = GroupFix.inPlacePatches(fixPlan, for: movie)
        let edits: [() throws -> MovieEdit?] = [
            { try GroupFix.edit(movie, plan: fixPlan) },
            { try StripSpatial.edit(movie, allowSilence: false) },
            { try StripSpatial.edit(movie, allowSilence: true) },
        ] + SelectTracks.Preference.allCases.map { prefer in { try SelectTracks.edit(movie, prefer: prefer, language: "und") } }
        for makeEdit in edits {
            unexpected += [attempt { if let edit = try makeEdit() { try layOut(edit.writer()) } }].compactMap { $0 }
        }
        for track in movie.tracks.prefix(4) {
            for name in ["fuzz.mov", "fuzz.m4a"] {
                unexpected += [attempt { try layOut(ExtractTrack.writer(movie, trackID: track.id, output: name).0) }].compactMap { $0 }
            }
        }
        return unexpected
    }
}
