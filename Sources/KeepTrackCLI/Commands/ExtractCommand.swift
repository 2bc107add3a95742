import KeepTrack

/// `keeptrack extract IN OUT --track ID`: one track as its own movie.
enum ExtractCommand {
    static let spec = CommandSpec(
        name: "extract",
        summary: "Write one track as a movie of its own, sample entry, edit list and timing intact.",
        arguments: "IN OUT | --init INIT SEGMENT... OUT",
        minimumPositionals: 2,
        options: [
            SegmentInputs.option,
            .value(.track, short: "t", "ID", "The track id to extract (see 'keeptrack inspect').", range: 1...Int(UInt32.max)),
            .flag(.force, "Replace OUT if it exists."),
        ],
        discussion: """
        The file type follows OUT's name: .m4a (audio, brand M4A), .mp4/.m4v (mp42), .mov/.qt (QuickTime).
        APAC from a .mov keeps its QuickTime sound description version 2, so it needs a .mov output.
        The extracted track is enabled, in alternate group 0, without references (the tracks they named are gone).
        \(SegmentInputs.discussion)
        """
    ) { invocation, console in
        guard let id = invocation.value(.track) else { throw KeepTrackCLIError.usage("extract needs --track ID") }
        let (inputs, output) = SegmentInputs.inputsAndOutput(invocation)
        let (movie, paths) = try SegmentInputs.open(invocation, inputs: inputs)
        let extraction = try ExtractTrack.writer(movie, trackID: UInt32(id), output: output)
        let summary = try GroupOperations.write(extraction.writer, to: output, inputs: paths, overwrite: invocation.flag(.force))
        for change in extraction.changes where !change.hasPrefix("removed track") { console.print(change) }
        for note in summary.notes { console.note("note: \(note)") }
        console.print("wrote \(output): track \(id)")
        return ExitCode.ok
    }
}
