import KeepTrack

/// `keeptrack inspect FILE... [--json]`: every track as it is.
enum InspectCommand {
    static let spec = CommandSpec(
        name: "inspect",
        summary: "Show every track: codec, true channels, enabled flag, alternate group, fallbacks.",
        arguments: "FILE...",
        minimumPositionals: 1,
        options: [.flag(.json, "Print JSON (keys documented on its page in docs/commands): one object per file, an array for several files."),
                  SegmentInputs.option],
        discussion: """
        Reads only the structure of each file (never the media data), so a 4 GiB file inspects as fast as a small one.
        Bytes of an mdat that no sample references are counted and reported ("mdat at 48: 61,234 of 62,000 bytes not
        referenced by any sample"); a warning above 1,024 bytes or when not all zero (only those few bytes are read).
        A fragmented movie (moof/traf/trun) shows every fragment's samples, its true duration and "fragmented, N fragments".
        A truncated file (moov whole, media data cut short) is read: per track, the complete samples, when they end
        and the bytes missing (`keeptrack salvage` writes what is there).
        Spatial (stereoscopic) video says so: MV-HEVC, the eyes coded, field of view, camera baseline, projection.
        A motion photo (Samsung HEIC with an mpvd box, Google MotionPhoto JPEG, Samsung JPEG with MotionPhoto_Data)
        shows where its embedded movie is (layout, byte offset, size) and the movie's own report; `extract-movie` writes it.
        With --init INIT, the files are media segments of that init segment, read in the order given as one movie
        (one report, named after INIT).
        Exit status: 0 when every file was read, else the worst of 65 (malformed), 66 (missing), 74 (I/O error).
        """
    ) { invocation, console in
        var worst: Int32 = 0
        var documents: [JSONValue] = []
        // Each file is a movie; with --init, the files are the segments of one.
        var inputs: [(name: String, open: () throws -> Movie)] = invocation.positionals.map { path in
            (path, { try Movie.open(path: path, allowingTruncation: true) })
        }
        if let initPath = invocation.value(.initSegment) {
            inputs = [(initPath, { try Movie.open(initSegment: initPath, segments: invocation.positionals) })]
        }
        for (index, input) in inputs.enumerated() {
            let path = input.name
            do {
                let report = InspectReport(movie: try input.open(), name: path)
                if invocation.flag(.json) {
                    documents.append(report.json)
                } else {
                    if index > 0 { console.print() }
                    console.print(report.text)
                }
            } catch let error as KeepTrackError {
                // A motion photo is no movie, but holds one: show it.
                if invocation.value(.initSegment) == nil, let photo = (try? MotionPhotoReport(path: path)) ?? nil {
                    if invocation.flag(.json) {
                        documents.append(photo.json)
                    } else {
                        if index > 0 { console.print() }
                        console.print(photo.text)
                    }
                    continue
                }
                console.error("\(path): \(error.description)")
                worst = max(worst, error.exitCode)
                if invocation.flag(.json) {
                    documents.append(.object([("file", .string(path)), ("error", .string(error.description)), ("exitCode", .int(Int64(error.exitCode)))]))
                }
            }
        }
        if invocation.flag(.json) {
            console.print(documents.count == 1 && inputs.count == 1 ? documents[0].rendered() : JSONValue.array(documents).rendered())
        }
        return worst
    }
}
