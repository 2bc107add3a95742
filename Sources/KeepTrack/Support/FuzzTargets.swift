/// Everything the fuzzer drives on one input, shared by the libFuzzer harness (Fuzz/FuzzEntry.swift)
/// and the regression corpus test, so a committed crash input replays the same code paths.
/// Nothing is written to disk.
enum FuzzTargets {
    /// Parser, track model, inspect report, lint, the remux planner and the in-memory edits of fix,
    /// strip-spatial, select, extract and flatten-stereo, all on one input (what the regression tests replay). Returns the errors that are not a `KeepTrackError` (each
    /// one a bug: bad input must end in a value or a KeepTrackError).
    @discardableResult
    static func exercise(_ bytes: [UInt8]) -> [any Error] {
        exercise(bytes, only: nil)
    }

    /// One execution of the fuzzer: the parser and track model on every input, then one of the
    /// planners, edits or the inspect report (`target(for:)`), chosen from the input so a crash replays.
    /// Running every edit on every input cost ~16 moov layouts per execution; one keeps the
    /// executions cheap while each edit still runs on a steady share of all inputs. (The harness
    /// sends Annex B streams to the codec layer's parameter-set parser instead: Fuzz/ParameterSetTarget.swift.)
    @discardableResult
    static func exerciseOne(_ bytes: [UInt8]) -> [any Error] {
        exercise(bytes, only: target(for: bytes))
    }

    /// The layouts and edits after the model, each one of the fuzzer's targets.
    enum Target: Hashable, CaseIterable {
        case passThrough, lint, fix, stripSpatial, stripSpatialAllowingSilence, select, extract
        /// flatten-stereo's NAL walk, spliced base layers and new sample entry.
        case flattenStereo
        /// The inspect report, text and JSON: on every execution it was a third of a valid movie's cost.
        case report
        /// Fragments a tool moved without updating them: the evidence search, the movie read through
        /// its repair (what `fix` and `lint` do with a file the reader refuses), laid out.
        case repair
        /// The independent per-sample reading the write verification and compare make, on any bytes.
        case sampleAccount
        /// scrub: the identifying items (stale copies in free space, XMP, GPMF, fdsc), the patches, the
        /// movie read through them and, when a track goes, laid out.
        case scrub
        /// `repair`'s walk of media data without a moov, the movie's own tracks as the reference.
        case recordingRepair
        /// join's matching, overlap search and joined tables: the movie joined to itself, with chapters.
        case join
        /// A movie cut short read as truncated (complete samples per track), reported, linted and
        /// planned by salvage (the trim of the complete samples), laid out.
        case truncated
    }

    /// The target an input exercises, chosen by a hash of its bytes (FNV-1a over 8-byte words), so
    /// mutants spread over all. Words, not bytes: the fuzzer traces every loop comparison, and a
    /// byte loop cost one traced comparison per input byte on every execution.
    static func target(for bytes: [UInt8]) -> Target {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        bytes.withUnsafeBytes { raw in
            let words = raw.count / 8
            for index in 0..<words { hash = (hash ^ raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* 0x100_0000_01B3 }
            for byte in raw[(words * 8)...] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        }
        hash ^= hash >> 29
        return Target.allCases[Int(hash % UInt64(Target.allCases.count))]
    }

    static func exercise(_ bytes: [UInt8], only: Target?) -> [any Error] {
        if isAPACConfigurationBox(bytes) { return [attempt { try exerciseAPACConfiguration(bytes) }].compactMap { $0 } }
        var unexpected: [any Error] = []
        func runs(_ target: Target) -> Bool { only == nil || only == target }
        let parseError = attempt {
            let movie = try Movie(source: MemoryByteSource(bytes))
            if runs(.report) {
                let report = InspectReport(movie: movie, name: "fuzz")
                _ = report.json.rendered()
                _ = report.text
            }
            for track in movie.tracks {
                _ = (track.audio, track.video, track.codecName)
                var oddSizes = 0
                for sample in track.sampleTable.samples { oddSizes += Int(sample.size & 1) }
                _ = oddSizes
            }
            if runs(.passThrough) { try layOut(MovieWriter(passingThrough: movie)) }
            if runs(.scrub) { unexpected += [attempt { try exerciseScrub(movie) }].compactMap { $0 } }
            if runs(.recordingRepair) { unexpected += [attempt { try exerciseRecordingRepair(bytes, movie: movie) }].compactMap { $0 } }
            if runs(.join) {
                var options = Join.Options()
                options.chapters = true
                unexpected += [attempt { try layOut(Join.plan([movie, movie], names: ["a", "b"], options: options).writer) }].compactMap { $0 }
            }
            unexpected += exerciseEdits(movie, only: only)
        }
        if runs(.repair) { unexpected += [attempt { try exerciseRepair(bytes) }].compactMap { $0 } }
        if runs(.sampleAccount) { unexpected += [attempt { _ = try SampleAccount(source: MemoryByteSource(bytes)) }].compactMap { $0 } }
        if runs(.truncated) { unexpected += [attempt { try exerciseTruncated(bytes) }].compactMap { $0 } }
        // The motion photo scan is cheap (marker segments or top-level headers): on every input.
        unexpected += [attempt { try exerciseMotionPhoto(bytes) }].compactMap { $0 }
        return unexpected + [parseError].compactMap { $0 }
    }

    static func exerciseScrub(_ movie: Movie) throws {
        let plan = try Scrub.plan(movie, selection: .all)
        let patched = try Movie(source: Scrub.patchedSource(movie, plan))
        guard plan.needsRewrite else { return }
        var edit = MovieEdit(patched)
        try edit.removeTracks(plan.droppedTracks, reason: "fuzz")
        try layOut(edit.writer())
    }

    /// A bare `dapa` box (seed: Fuzz/seeds/dapa-hoa.bin) goes to the APAC configuration walk alone:
    /// inside a movie its bytes are reached only through a valid apac sample entry.
    static func isAPACConfigurationBox(_ bytes: [UInt8]) -> Bool { bytes.count >= 8 && Array(bytes[4..<8]) == Array("dapa".utf8) }

    static func exerciseAPACConfiguration(_ bytes: [UInt8]) throws {
        let configuration = try APACConfiguration(dapaPayload: Array(bytes[8...]))
        for finding in APACConfigurationLint.findings(configuration) { _ = finding.message }
        _ = InspectReport.apacJSON(configuration).rendered()
    }

    /// The input's media data walked as an interrupted recording (its moov renamed `free`), the movie itself
    /// the reference; no AAC decoder here (the codec layer's), so AAC tracks find nothing.
    static func exerciseRecordingRepair(_ bytes: [UInt8], movie: Movie) throws {
        var broken = bytes
        let moov = Int(movie.moov.offset)
        broken.replaceSubrange((moov + 4)..<(moov + 8), with: Array("free".utf8))
        let reference = try RecordingReference(movie: movie)
        let walk = try RecordingRepair(broken: MemoryByteSource(broken), reference: reference) { _, _ in nil }
        for shape in reference.tracks {
            let recovered = RecoveredTrack(shape: shape, runs: walk.samples(of: shape.id))
            guard recovered.count > 0 else { continue }
            var writer = MovieWriter(passingThrough: movie)
            writer.tracks = [try recovered.outputTrack(source: MemoryByteSource(broken), movieTimescale: movie.header.timescale)]
            try layOut(writer)
        }
    }

    /// The repair path runs only where the reader refuses a file, so the parse above never reaches it.
    static func exerciseRepair(_ bytes: [UInt8]) throws {
        let source = MemoryByteSource(bytes)
        guard let repair = try FragmentOffsetRepair.find(in: source) else { return }
        _ = repair.refusal.description
        let movie = try Movie(source: repair.repaired(source), checkingFragmentOffsets: false)
        for finding in Linter.lint(movie) { _ = finding.message }
        try layOut(MovieWriter(passingThrough: movie))
    }

    /// The truncated reading runs only where the file is cut short, which the parse above refuses.
    static func exerciseTruncated(_ bytes: [UInt8]) throws {
        let movie = try Movie(source: MemoryByteSource(bytes), allowingTruncation: true)
        guard let truncation = movie.truncation else { return }
        _ = truncation.json.rendered()
        _ = InspectReport(movie: movie, name: "fuzz").text
        for finding in Linter.lint(movie) { _ = finding.message }
        let plan = try Salvage.plan(movie)
        _ = Salvage.lines(plan)
        try layOut(plan.trim.writer)
    }

    /// The motion photo scan (JPEG marker segments and XMP, HEIF boxes, Samsung's marker) and, when it
    /// finds a movie, that movie read and reported.
    static func exerciseMotionPhoto(_ bytes: [UInt8]) throws {
        let source = MemoryByteSource(bytes)
        guard let photo = MotionPhoto.find(in: source) else { return }
        _ = (photo.summary, photo.hint)
        _ = InspectReport(movie: try photo.movie(in: source), name: "fuzz").json.rendered()
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
    static func exerciseEdits(_ movie: Movie, only: Target? = nil) -> [any Error] {
        func runs(_ target: Target) -> Bool { only == nil || only == target }
        var unexpected: [any Error] = []
        if runs(.lint) {
            for finding in Linter.lint(movie) { _ = finding.message }
        }
        var edits: [() throws -> MovieEdit?] = []
        if runs(.lint) || runs(.fix) {
            let fixPlan = GroupFix.plan(movie)
            if runs(.lint) { _ = GroupFix.inPlacePatches(fixPlan, for: movie) }
            if runs(.fix) { edits.append { try GroupFix.edit(movie, plan: fixPlan) } }
        }
        if runs(.stripSpatial) { edits.append { try StripSpatial.edit(movie, allowSilence: false) } }
        if runs(.stripSpatialAllowingSilence) { edits.append { try StripSpatial.edit(movie, allowSilence: true) } }
        if runs(.select) {
            edits += SelectTracks.Preference.allCases.map { prefer in { try SelectTracks.edit(movie, prefer: prefer, language: "und") } }
        }
        for makeEdit in edits {
            unexpected += [attempt { if let edit = try makeEdit() { try layOut(edit.writer()) } }].compactMap { $0 }
        }
        if runs(.flattenStereo) {
            for track in StereoFlatten.stereoTracks(movie).prefix(2) {
                unexpected += [attempt {
                    let source = OutputTrack(track, in: movie)
                    let spliced = SplicedByteSource(base: source.data)
                    let (table, _) = try StereoFlatten.baseLayers(of: track, source: source) { ranges in
                        let start = spliced.size
                        for range in ranges { try spliced.append(offset: range.offset, length: range.length) }
                        return start
                    }
                    _ = try spliced.read(at: 0, count: Int(min(spliced.size, 4096)))
                    let flat = try StereoFlatten.replacement(for: track, source: source, table: table, data: spliced)
                    var writer = MovieWriter(passingThrough: movie)
                    writer.tracks = movie.tracks.map { $0.id == track.id ? flat : OutputTrack($0, in: movie) }
                    try layOut(writer)
                }].compactMap { $0 }
            }
        }
        if runs(.extract) {
            for track in movie.tracks.prefix(4) {
                for name in ["fuzz.mov", "fuzz.m4a"] {
                    unexpected += [attempt { try layOut(ExtractTrack.writer(movie, trackID: track.id, output: name).writer) }].compactMap { $0 }
                }
            }
        }
        return unexpected
    }
}
