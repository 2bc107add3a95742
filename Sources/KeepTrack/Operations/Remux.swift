/// Writes `movie` to a new file through `MovieWriter`, atomically: a temporary file beside the
/// destination, verified by reading it back, renamed only when complete.
public enum MovieOutput {
    public struct Options: Sendable {
        public var overwrite = false
        /// Read the written file back (structure and sample tables) before it replaces the destination.
        public var verify = true
        /// Also compare every sample of the output with the source's bytes (a full read of both).
        public var verifyData = false
        public var writer = MovieWriter.Options()
        public init() {}
    }

    public struct Summary: Sendable {
        public var written: MovieWriter.Summary
        /// nil when verification was turned off.
        public var verification: WriteVerification.Result?
        /// What the output leaves out of the source and why (`MovieWriter.notes`).
        public var notes: [String] = []
    }

    /// Lays out `writer`'s tracks into `destination`. `inputs` are refused as destinations.
    @discardableResult
    public static func write(_ writer: MovieWriter, to destination: String, inputs: [String], options: Options) throws -> Summary {
        try OutputFile.write(to: destination, overwrite: options.overwrite, inputs: inputs) { try write(writer, into: $0, options: options) }
    }

    /// Lays out `writer`'s tracks into an open `output` and reads it back as `options` ask; the caller
    /// commits or discards (reframe, which writes its data file beside the output, does).
    public static func write(_ writer: MovieWriter, into output: OutputFile, options: Options) throws -> Summary {
        let written = try writer.write(to: output)
        try output.finishWriting()
        var verification: WriteVerification.Result?
        if options.verify || options.verifyData {
            verification = try WriteVerification.verify(writer, writtenAt: output.temporaryPath, compareData: options.verifyData)
        }
        return Summary(written: written, verification: verification, notes: writer.notes)
    }

    /// Same, with default options (verification on) apart from `overwrite`.
    @discardableResult
    public static func write(_ writer: MovieWriter, to destination: String, inputs: [String], overwrite: Bool) throws -> MovieWriter.Summary {
        try write(writer, to: destination, inputs: inputs, overwriting: overwrite).written
    }

    /// Same, returning the whole summary (notes included).
    @discardableResult
    public static func write(_ writer: MovieWriter, to destination: String, inputs: [String], overwriting overwrite: Bool) throws -> Summary {
        var options = Options()
        options.overwrite = overwrite
        return try write(writer, to: destination, inputs: inputs, options: options)
    }

    /// Passthrough of every track, sample and box.
    @discardableResult
    public static func remux(input: String, output: String, options: Options = Options()) throws -> Summary {
        let movie = try Movie.open(path: input)
        return try write(MovieWriter(passingThrough: movie, options: options.writer), to: output, inputs: [input], options: options)
    }
}
