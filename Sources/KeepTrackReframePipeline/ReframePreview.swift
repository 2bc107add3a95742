import KeepTrack
import KeepTrackFraming
import KeepTrackTranscode

extension Reframer {
    /// Writes the `--preview` contact sheet of `path` (through the atomic output path, `--force` to replace)
    /// and returns its geometry for the summary; nil without `--preview`.
    static func writePreview(_ path: CropPath, analysis: Analysis, options: ReframeOptions, input: String) throws -> JSONValue? {
        guard let destination = options.previewOutput, let capture = analysis.preview else { return nil }
        guard !capture.pictures.isEmpty else { throw KeepTrackError.unsupported("no frame was decoded for the preview") }
        let sheet = try ContactSheet(path: path, samples: analysis.samples, frameTimes: analysis.frameTimes, captured: capture.pictures,
                                 count: ContactSheet.tiles)
        try sheet.write(to: destination, overwrite: options.overwrite, inputs: [input])
        return sheet.json
    }
}
