import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming
import KeepTrackTranscode

/// An encoding pass started while the analysis still runs. A shot's path depends only on that shot and the
/// ones before it (the planner goes shot by shot, forward), and a cut is settled once the picture differences
/// around it are known (`ShotDetector`): so when the analysis passes a cut for good, the shots before it are
/// planned and released to the encoder, which works on them while the analysis looks at the rest. A clip
/// without a cut gains nothing; an edited one (stage_cuts_audience) starts encoding within its first second.
/// The whole plan, made as ever once the analysis ends, must agree with every frame released early
/// (`disagreement`); the caller checks that before keeping what this pass encoded.
final class ShotRelease {
    let stage: Reframer.EncodeStage
    let run: EncodingRun
    private let paths = ReleasedPath()
    /// The last path released before the whole one.
    private(set) var released: CropPath?
    private var cancelled = false

    init(movie: Movie, video: Track, analysis: Reframer.Analysis, orientation: DisplayOrientation, crop: PixelSize,
         outputSize: PixelSize, destination: OutputFile, options: ReframeOptions) throws {
        stage = try Reframer.EncodeStage(video: video, analysis: analysis, orientation: orientation, crop: crop, outputSize: outputSize,
                                         options: options, destination: destination)
        run = EncodingRun(movie: movie, video: video, analysis: analysis, paths: paths, cropper: stage.cropper, encoder: stage.encoder,
                          into: stage.dataFile, retained: analysis.retained)
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
        stage.dataFile.discard()
    }
}
