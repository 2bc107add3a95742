import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming

/// An encoding pass started while the analysis still runs. A shot's path depends only on that shot and the
/// ones before it (the planner goes shot by shot, forward), and a cut is settled once the picture differences
/// around it are known (`ShotDetector`): so when the analysis passes a cut for good, the shots before it are
/// planned and released to the encoder, which works on them while the analysis looks at the rest. A clip
/// without a cut gains nothing; an edited one (stage_cuts_audience) starts encoding within its first second.
/// The whole plan, made as ever once the analysis ends, must agree with every frame released early
/// (`disagreement`); the caller checks that before keeping what this pass encoded.
final class ShotRelease {
    let choice: Reframer.EncodeChoice
    let encoder: VideoEncoder
    let dataFile: OutputFile
    let run: EncodingRun
    private let paths = ReleasedPath()
    /// The last path released before the whole one.
    private(set) var released: CropPath?
    private var cancelled = false

    private init(choice: Reframer.EncodeChoice, encoder: VideoEncoder, dataFile: OutputFile, run: (ReleasedPath) -> EncodingRun) {
        self.choice = choice
        self.encoder = encoder
        self.dataFile = dataFile
        self.run = run(paths)
    }

    static func start(movie: Movie, video: Track, analysis: Reframer.Analysis, orientation: DisplayOrientation, crop: PixelSize,
                      outputSize: PixelSize, destination: OutputFile, options: ReframeOptions, hdr: String?) throws -> ShotRelease {
        let choice = try Reframer.encodeChoice(video: video, analysis: analysis, outputSize: outputSize, options: options, hdr: hdr)
        let encoder = try VideoEncoder(choice.settings)
        let cropper = try FrameCropper(orientation: orientation, crop: crop, output: outputSize, sourceFormat: analysis.pixelFormat,
                                       outputFormat: choice.pixelFormat)
        let dataFile = try OutputFile(destination: destination.destination + ".video", overwrite: true)
        return ShotRelease(choice: choice, encoder: encoder, dataFile: dataFile) { paths in
            EncodingRun(movie: movie, video: video, analysis: analysis, paths: paths, cropper: cropper, encoder: encoder,
                        into: dataFile, retained: analysis.retained)
        }
    }

    /// Releases `path` (its first `path.offsets.count` frames, or all when `whole`) to the encoder.
    func release(_ path: CropPath, uncertainCuts: [UncertainCut], whole: Bool = false) {
        if !whole { released = path }
        paths.release(path, uncertainCuts: uncertainCuts, whole: whole)
    }

    /// The first frame released early whose crop, layout or split windows `whole` plans otherwise; nil when they agree.
    func disagreement(with whole: CropPath) -> Int? {
        guard let released else { return nil }
        guard released.offsets.count <= whole.offsets.count, released.axis == whole.axis,
              released.cropWidth == whole.cropWidth, released.cropHeight == whole.cropHeight else { return 0 }
        return released.offsets.indices.first { frame in
            released.offsets[frame] != whole.offsets[frame] || released.layout(frame: frame) != whole.layout(frame: frame)
                || released.split(frame: frame) != whole.split(frame: frame)
        }
    }

    /// Stops the pass and throws its data away.
    func cancel() {
        guard !cancelled else { return }
        cancelled = true
        run.cancel()
        dataFile.discard()
    }
}
