import KeepTrack

/// `--init INIT SEGMENT...`: a DASH / HLS fMP4 / CMAF rendition stored as an init segment and media
/// segments, read in the order given as one fragmented movie (`inspect`, `remux`, `extract`, `trim`).
enum SegmentInputs {
    static let option = OptionSpec.value(.initSegment, "INIT",
        "An init segment (ftyp, moov with mvex): the inputs are then its media segments (styp/sidx/moof/mdat), read in the order given as one movie.")

    static let discussion = """
    With --init INIT, the inputs are media segments of that init segment, read in the order given as one
    fragmented movie (e.g. `--init init.mp4 seg-1.m4s seg-2.m4s`; a shell glob sorts seg-10 before seg-2).
    Segments whose decode times (tfdt) go back, given in another order or twice, are refused (65).
    """

    /// The movie named by `inputs`: one movie, or with --init the segments after the init segment;
    /// returns it with every path it reads (refused as outputs).
    static func open(_ invocation: Invocation, inputs: [String]) throws -> (movie: Movie, paths: [String]) {
        if let initPath = invocation.value(.initSegment) {
            return (try Movie.open(initSegment: initPath, segments: inputs), [initPath] + inputs)
        }
        guard inputs.count == 1 else {
            throw KeepTrackCLIError.usage("\(inputs.count) inputs given: one movie, or media segments after --init INIT")
        }
        return (try Movie.open(path: inputs[0]), inputs)
    }

    /// IN... OUT: every positional but the last is an input.
    static func inputsAndOutput(_ invocation: Invocation) -> (inputs: [String], output: String) {
        (Array(invocation.positionals.dropLast()), invocation.positionals[invocation.positionals.count - 1])
    }
}
