/// What `inspect` shows of a motion photo: where its movie is, in what layout, and the movie's own
/// report (or why it does not read).
public struct MotionPhotoReport: Sendable {
    public let photo: MotionPhoto
    public let name: String
    /// The embedded movie's report; nil when it does not read as a movie (then `movieError` says why).
    public let movieReport: InspectReport?
    public let movieError: KeepTrackError?

    /// nil when the file at `path` is not a motion photo this recognises.
    public init?(path: String) throws {
        let source = try FileByteSource(path: path)
        guard let photo = MotionPhoto.find(in: source) else { return nil }
        self.photo = photo
        name = path
        do {
            movieReport = InspectReport(movie: try photo.movie(in: source), name: path + " (embedded movie)")
            movieError = nil
        } catch let error as KeepTrackError {
            movieReport = nil
            movieError = error
        }
    }

    public var text: String {
        var lines = ["\(name): \(photo.summary)", "  `keeptrack extract-movie \(name) OUT` writes it byte for byte", ""]
        if let movieReport { lines.append(movieReport.text) }
        if let movieError { lines.append("the embedded movie does not read: \(movieError.description)") }
        return lines.joined(separator: "\n")
    }

    public var json: JSONValue {
        let photoPairs: [(String, JSONValue)] = [
            ("layout", .string(photo.layout.rawValue)), ("offset", .int(Int64(photo.offset))), ("size", .int(Int64(photo.size))),
            ("movie", movieReport?.json ?? .null), ("movieError", movieError.map { .string($0.description) } ?? .null),
        ]
        return .object([("file", .string(name)), ("motionPhoto", .object(photoPairs))])
    }
}
