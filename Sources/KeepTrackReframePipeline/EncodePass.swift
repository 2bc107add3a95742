import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming
import KeepTrackTranscode

extension Reframer {
    /// True when `error` refuses H.264 for an HDR source (`Refusal.Kind.hdrNeedsTenBit`).
    public static func isHDRNeedsHEVC(_ error: KeepTrackError) -> Bool { EncodePlan.isHDRNeedsTenBit(error) }

    /// The encode stage's parts, built in this one place whether encoding starts beside the analysis or after it:
    /// HDR stays HDR (HEVC Main10 with its transfer; H.264 is refused), SDR becomes 8-bit.
    struct EncodeStage {
        let plan: EncodePlan
        let encoder: VideoEncoder
        let cropper: FrameCropper
        let dataFile: OutputFile

        init(video: Track, analysis: Analysis, orientation: DisplayOrientation, crop: PixelSize, outputSize: PixelSize,
             options: ReframeOptions, destination: OutputFile) throws {
            plan = try EncodePlan.make(video: video, frameTimes: analysis.mediaFrameTimes,  // every frame is encoded, hidden ones too
                                       sourceColour: analysis.colour, outputSize: outputSize, codec: options.codec,
                                       crf: options.crf, preset: options.preset, hdr: .keep)
            encoder = try VideoEncoder(plan.settings)
            cropper = try FrameCropper(orientation: orientation, crop: crop, output: outputSize, sourceFormat: analysis.pixelFormat,
                                       outputFormat: plan.pixelFormat)
            dataFile = try OutputFile(destination: destination.destination + ".video", overwrite: true)
        }
    }

    /// The second pass, after the analysis: decode again (or take the frames the analysis kept), crop each
    /// frame at its planned position, encode, and append the encoded frames to the stage's data file. Cuts the
    /// decoder saw elsewhere than planned move in `path`.
    static func encodePass(movie: Movie, video: Track, analysis: Analysis, path: inout CropPath, uncertainCuts: [UncertainCut],
                           stage: EncodeStage, retained: RetainedFrames?, progress: (ReframeProgress) -> Void) throws -> EncodedVideo {
        let run = EncodingRun(movie: movie, video: video, analysis: analysis, paths: ReleasedPath(whole: path, uncertainCuts: uncertainCuts),
                              cropper: stage.cropper, encoder: stage.encoder, into: stage.dataFile, retained: retained)
        let result = try run.wait(totalFrames: analysis.mediaFrameTimes.count, progress: progress)
        for (planned, actual) in run.movedCuts { path.moveCut(from: planned, to: actual) }
        return result
    }
}

/// Reframe's encoding run: the general encode stage (`VideoEncodeRun`) fed by a `CropProducer`, which decodes
/// again (or takes the frames the analysis kept) and crops each frame where the released path says. It may
/// start while the analysis still runs (`ReleasedPath`).
final class EncodingRun: @unchecked Sendable {
    private let producer: CropProducer
    private let run: VideoEncodeRun
    var started: Date { run.started }

    init(movie: Movie, video: Track, analysis: Reframer.Analysis, paths: ReleasedPath, cropper: FrameCropper,
         encoder: VideoEncoder, into dataFile: OutputFile, retained: RetainedFrames?) {
        producer = CropProducer(movie: movie, video: video, paths: paths, cropper: cropper,
                                timeline: analysis.timeline, shown: analysis.shown, retained: retained)
        run = VideoEncodeRun(producer: producer, encoder: encoder, into: dataFile, producerName: "keeptrack.crop")
    }

    /// Frames gone into the encoder so far.
    var framesEncoded: Int { run.framesEncoded }

    /// (planned, actual) first frames of shots whose cut the producer found earlier than planned; after `wait`.
    var movedCuts: [(planned: Int, actual: Int)] { producer.movedCuts }

    /// Waits for the last frame (the whole path must have been released), reporting progress a few times a second.
    func wait(totalFrames: Int, progress: (ReframeProgress) -> Void) throws -> EncodedVideo {
        try run.wait { frames, seconds in
            progress(ReframeProgress(phase: .encoding, frames: frames, totalFrames: totalFrames, seconds: seconds))
        }
    }

    /// Stops both threads and waits until they no longer touch the encoder, the data file or the frames.
    func cancel() { run.cancel() }
}
