/// Writes `movie` to a new file through `MovieWriter`, atomically: a temporary file beside the
/// destination, renamed only when complete.
public enum MovieOutput {
    public struct Options: Sendable {
        public var overwrite = false
        public var writer = MovieWriter.Options()
        public init() {}
    }

    /// Lays out `writer`'s tracks into `destination`. `inputs` are refused as destinations.
    @discardableResult
    public static func write(_ writer: MovieWriter, to destination: String, inputs: [String], overwrite: Bool) throws -> MovieWriter.Summary {
        let output = try OutputFile(destination: destination, overwrite: overwrite, inputs: inputs)
        do {
            let summary = try writer.write(to: output)
            try output.commit()
            return summary
        } catch {
            output.discard()
            throw error
        }
    }

    /// Passthrough of every track, sample and box.
    @discardableResult
    public static func remux(input: String, output: String, options: Options = Options()) throws -> MovieWriter.Summary {
        let movie = try Movie.open(path: input)
        return try write(MovieWriter(passingThrough: movie, options: options.writer), to: output, inputs: [input], overwrite: options.overwrite)
    }
}
