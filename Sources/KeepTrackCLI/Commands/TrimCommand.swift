import KeepTrack

/// `keeptrack trim IN OUT --start T (--end T | --duration D) [--keyframe]`: a lossless, sample-exact piece.
enum TrimCommand {
    static let spec = CommandSpec(
        name: "trim",
        summary: "Cut [start, end) losslessly and sample-exactly, keeping every track (spatial audio, metadata) and box.",
        arguments: "IN OUT | --init INIT SEGMENT... OUT",
        minimumPositionals: 2,
        options: [
            SegmentInputs.option,
            .value(.start, "T", "Start: seconds (12.5) or [HH:]MM:SS[.fff] (1:02.250)."),
            .value(.end, "T", "End (not included), same forms."),
            .value(.duration, "D", "Length instead of --end."),
            .flag(.keyframe, "Start at the sync sample at or before --start, presented from itself (for players that ignore edit lists); prints the snapped times."),
            .flag(.force, "Replace OUT if it exists."),
            .flag(.json, "Print what was kept as JSON (times, per-track samples, lead-in, edits)."),
        ],
        discussion: TrimCommand.discussion
    ) { invocation, console in
        let request = try TrimCommand.request(invocation)
        var options = MovieOutput.Options()
        options.overwrite = invocation.flag(.force)
        let (inputs, output) = SegmentInputs.inputsAndOutput(invocation)
        let (movie, paths) = try SegmentInputs.open(invocation, inputs: inputs)
        let written = try Trim.write(movie, inputs: paths, output: output, request, options: options)
        TrimCommand.report(written.plan, output: output, bytes: written.summary.written.bytesWritten, json: invocation.flag(.json), console: console)
        for note in written.summary.notes { console.note("note: \(note)") }
        return ExitCode.ok
    }

    static let discussion = """
    Nothing is re-encoded. Video is kept from the sync sample at or before the start (for an open-GOP
    CRA sync sample, its leading pictures are decoded but never shown) and an edit list presents exactly
    from the frame shown at --start, B-frame composition offsets included, to the last frame before
    --end (after an empty edit where the first frame comes later than --start). Start and end fall on
    the first enabled video track's frame boundaries; without video, on audio samples. Audio keeps
    what its decoder needs before the start (AAC: one packet of warm-up; the
    iPhone's implicit 2112-frame priming convention is kept, no roll group added; APAC: its prol pre-roll
    and sync samples) and its edit presents from the exact audio sample. The movie time scale is raised
    to a multiple of every track's (the iPhone's 600 with 48000 and 10000 becomes 240000) and every edit
    is rewritten in it. Timed metadata (mebx) is cut to the range (a sample spanning it keeps covering it);
    text and chapter tracks are cut in their samples (the cue playing at the start begins at 0, the last ends
    at the end: players do not apply edit lists to text), a Nero chapter list (udta/chpl) is timed from the
    start; sample groups (sbgp), sync tables, sdtp and stps are cut with the
    samples; flags, alternate groups, tref/fall, sample entries (apac with dapa), metadata and brands stay.
    Only the kept samples' bytes are read and copied (copy_file_range); OUT is atomic like every output.
    Exit status: 0 written, 64 usage (a range outside the movie names its duration), 65 malformed or a
    track trim cannot cut exactly (several presented edits, encryption), 66 IN missing, 73 OUT exists, 74 I/O.
    \(SegmentInputs.discussion)
    """

    /// Seconds from `12.5`, `75`, `1:02.250` or `01:00:02.5`.
    static func parseTime(_ text: String, option: String) throws -> Double {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func bad() -> KeepTrackCLIError { .usage("--\(option) takes seconds or [HH:]MM:SS[.fff], not '\(text)'") }
        guard (1...3).contains(parts.count), let secondsPart = parts.last, let seconds = Double(secondsPart), seconds.isFinite, seconds >= 0,
              !secondsPart.hasPrefix("+") else { throw bad() }
        if parts.count == 1 { return seconds }
        guard seconds < 60 else { throw bad() }
        var total = seconds
        var multiplier = 60.0
        for part in parts.dropLast().reversed() {
            guard let value = Int(part), value >= 0, part.allSatisfy(\.isNumber) else { throw bad() }
            if multiplier == 60, parts.count == 3, value >= 60 { throw bad() }
            total += Double(value) * multiplier
            multiplier *= 60
        }
        return total
    }

    static func request(_ invocation: Invocation) throws -> Trim.Request {
        guard let startText = invocation.value(.start) else { throw KeepTrackCLIError.usage("trim needs --start T") }
        let start = try parseTime(startText, option: "start")
        let end: Double
        switch (invocation.value(.end), invocation.value(.duration)) {
        case (let endText?, nil): end = try parseTime(endText, option: "end")
        case (nil, let durationText?): end = start + (try parseTime(durationText, option: "duration"))
        case (nil, nil): throw KeepTrackCLIError.usage("trim needs --end T or --duration D")
        case (_?, _?): throw KeepTrackCLIError.usage("give --end or --duration, not both")
        }
        return Trim.Request(start: start, end: end, keyframe: invocation.flag(.keyframe))
    }

    static func json(_ plan: Trim.Plan, output: String, bytes: UInt64) -> JSONValue {
        .object([
            ("output", .string(output)),
            ("start", .double(plan.startSeconds)),
            ("end", .double(plan.endSeconds)),
            ("duration", .double(plan.duration)),
            ("movieTimescale", .int(Int64(plan.movieTimescale))),
            ("bytesWritten", .int(Int64(bytes))),
            ("tracks", .array(plan.tracks.map { cut in
                .object([
                    ("id", .int(Int64(cut.trackID))),
                    ("kind", .string(cut.kind.rawValue)),
                    ("firstSample", cut.samples.isEmpty ? .null : .int(Int64(cut.samples.lowerBound + 1))),
                    ("samples", .int(Int64(cut.samples.count))),
                    ("leadingSamples", .int(Int64(cut.leadingSamples))),
                    ("bytes", .int(Int64(cut.bytes))),
                    ("edits", .array(cut.edits.map { .object([("segmentDuration", .int(Int64($0.segmentDuration))), ("mediaTime", .int($0.mediaTime))]) })),
                ])
            })),
        ])
    }

    static func report(_ plan: Trim.Plan, output: String, bytes: UInt64, json: Bool, console: Console) {
        if json {
            console.print(Self.json(plan, output: output, bytes: bytes).rendered())
            return
        }
        console.print("wrote \(output): \(Trim.format(seconds: plan.startSeconds))-\(Trim.format(seconds: plan.endSeconds)) s (\(Trim.format(seconds: plan.duration)) s), movie time scale \(plan.movieTimescale), \(bytes) bytes")
        for cut in plan.tracks {
            let what = cut.samples.isEmpty ? "nothing in the range" :
                "samples \(cut.samples.lowerBound + 1)-\(cut.samples.upperBound) (\(cut.leadingSamples) decoded before the first shown)"
            console.print("  track \(cut.trackID) (\(cut.kind.rawValue)): \(what)")
        }
    }
}
