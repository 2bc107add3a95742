import KeepTrack

/// `keeptrack remux IN OUT`: lossless passthrough of every track, sample and box.
enum RemuxCommand {
    static let spec = CommandSpec(
        name: "remux",
        summary: "Copy every track, sample and box losslessly into a new file, flags included.",
        arguments: "IN OUT | --init INIT SEGMENT... OUT",
        minimumPositionals: 2,
        options: [
            SegmentInputs.option,
            .flag(.moovLast, "Keep moov after the media data (default: moov first, fast start)."),
            .flag(.force, "Replace OUT if it exists."),
            .flag(.verifyData, "Also compare every sample of OUT with IN byte for byte (reads both files in full)."),
            .flag(.noVerify, "Skip reading OUT back (structure and sample tables are verified by default)."),
        ],
        discussion: """
        Keeps every box byte for byte except the layout (stsc, stco/co64, mdat, free/skip/wide): enabled flags,
        alternate groups, track references (fall), sample entries (apac with dapa), metadata. Chunks are
        interleaved about every 0.5 s; co64 and a 64-bit mdat header are used only when offsets need them.
        Other file offsets follow their data (CENC saio, iloc items); one whose bytes would not be carried is
        refused (65). Indexes of fragments (sidx, ssix, mfra) are dropped with a note.
        A fragmented IN (moof/traf/trun) comes out progressive: every fragment's samples in moov's tables
        (stsz, stts, ctts, stss, sdtp rebuilt; durations from the samples; edit lists kept), mvex, moof and
        styp dropped. Encrypted fragments are refused (65).
        OUT is written to a hidden temporary file beside it, verified, fsynced and renamed; on any error,
        SIGINT or SIGTERM the temporary file is removed and OUT is untouched.
        \(SegmentInputs.discussion)
        Exit status: 0 written, 64 usage (OUT is IN), 65 malformed IN, 66 IN missing, 73 OUT exists
        (without --force) or cannot be created, 74 I/O error (disk full, verification failed).
        """
    ) { invocation, console in
        var options = MovieOutput.Options()
        options.overwrite = invocation.flag(.force)
        options.writer.moovFirst = !invocation.flag(.moovLast)
        options.verify = !invocation.flag(.noVerify)
        options.verifyData = invocation.flag(.verifyData)
        let (inputs, output) = SegmentInputs.inputsAndOutput(invocation)
        let (movie, paths) = try SegmentInputs.open(invocation, inputs: inputs)
        let summary = try MovieOutput.write(MovieWriter(passingThrough: movie, options: options.writer), to: output, inputs: paths, options: options)
        let written = summary.written
        var line = "wrote \(output): \(written.bytesWritten) bytes, \(written.chunkCount) chunks, \(written.largeOffsets ? "co64" : "stco"), moov \(options.writer.moovFirst ? "first" : "last")"
        if let check = summary.verification {
            line += "; verified \(check.tracks) tracks, \(check.samples) samples"
            if options.verifyData { line += ", \(check.comparedBytes) sample bytes equal to the input's" }
        }
        console.print(line)
        for note in summary.notes { console.note("note: \(note)") }
        return ExitCode.ok
    }
}
