import KeepTrack

/// `keeptrack dump FILE [--depth N] [--all-entries] [--redact-location]`: the box tree with decoded fields.
enum DumpCommand {
    static let spec = CommandSpec(
        name: "dump",
        summary: "Print the box tree: path, offset, size, header form and decoded fields of typed boxes.",
        arguments: "FILE",
        positionals: 1...1,
        options: [
            .value(.depth, "N", "Show boxes down to level N only (1 = top-level boxes).", range: 1...BoxParser.maximumDepth),
            .flag(.allEntries, "Print every entry of sample tables and lists (default: the first \(BoxDump.defaultEntryLimit))."),
            .flag(.redactLocation, "Print <redacted> for metadata values whose key mentions location (GPS position)."),
        ],
        discussion: """
        Reads only the structure (mdat stays on disk). Works on files inspect rejects as long as the box
        headers are sound, so it is the tool to look at a file keeptrack calls malformed. A last mdat that
        claims bytes past the end of the file is shown with the bytes there are, and a warning says so.
        Exit status: 0, 65 when the box structure itself is broken, 66 missing input, 74 I/O error.
        """
    ) { invocation, console in
        let options = BoxDump.Options(maximumDepth: invocation.value(.depth),
                                      allEntries: invocation.flag(.allEntries),
                                      redactLocation: invocation.flag(.redactLocation))
        let source = try FileByteSource(path: invocation.positionals[0])
        let boxes = try BoxParser.parseFile(source)
        console.print(BoxDump(boxes: boxes, options: options).text)
        if let short = BoxParser.shortMediaData(boxes, source: source) {
            let (mdat, declared) = (short.box, short.declaredSize)
            console.print("warning: mdat at byte \(mdat.offset) claims \(declared) bytes, \(declared - mdat.size) past the end of the file; shown with the \(mdat.size) there are")
        }
        return ExitCode.ok
    }
}
