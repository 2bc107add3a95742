import KeepTrack

/// `keeptrack extract-movie PHOTO OUT`: the movie inside a motion photo, byte for byte.
enum ExtractMovieCommand {
    static let spec = CommandSpec(
        name: "extract-movie",
        summary: "Write the movie embedded in a motion photo (Samsung HEIC mpvd, Google MotionPhoto JPEG) as a file of its own, byte for byte.",
        arguments: "PHOTO OUT",
        positionals: 2...2,
        options: [
            .flag(.force, "Replace OUT if it exists."),
            .flag(.json, "Print the layout, byte offset and size of the movie written as JSON."),
        ],
        discussion: """
        Finds the movie as the phone stored it: the payload of a top-level mpvd box (Samsung HEIC); the bytes
        appended after a JPEG whose XMP gives their length (GCamera:MicroVideoOffset, or the Container:Directory
        item with Item:Semantic MotionPhoto: the items after the picture fill the end of the file in order);
        the bytes after a MotionPhoto_Data marker (older Samsung JPEGs). The bytes are copied unchanged
        (copy_file_range), atomically like every output, after checking that they read as a movie.
        `inspect PHOTO` shows the same offset and size and the movie's tracks. See docs/damaged-files.md.
        Exit status: 0 written, 65 not a motion photo this recognises, or its movie does not read, 66 PHOTO
        missing, 73 OUT exists, 74 I/O.
        """
    ) { invocation, console in
        let (input, output) = (invocation.positionals[0], invocation.positionals[1])
        let source = try FileByteSource(path: input)
        guard let photo = MotionPhoto.find(in: source) else {
            throw KeepTrackError.unsupported("\(input) is not a motion photo keeptrack recognises (no mpvd box, no XMP motion photo length, no MotionPhoto_Data marker)")
        }
        _ = try photo.movie(in: source)
        try OutputFile.write(to: output, overwrite: invocation.flag(.force), inputs: [input]) { file in
            var buffer: [UInt8] = []
            try file.copy(from: source, offset: photo.offset, length: photo.size, buffer: &buffer)
            try file.finishWriting()
        }
        if invocation.flag(.json) {
            console.print(JSONValue.object([("output", .string(output)), ("layout", .string(photo.layout.rawValue)),
                                            ("offset", .int(Int64(photo.offset))), ("size", .int(Int64(photo.size)))]).rendered())
        } else {
            console.print("wrote \(output): \(photo.size) bytes from byte \(photo.offset) of \(input) (\(photo.layout.rawValue))")
        }
        return ExitCode.ok
    }
}
