import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackFraming
import KeepTrackTranscode

/// Decodes the video (or takes the frames the analysis kept) and crops every frame at the planned position,
/// handing the frames to the encoder.
/// Where the analysis found a cut between two frames it analysed, the frames it skipped are looked at here
/// and the cut moved back to the first one that belongs to the new shot. Frames the edit list hides are
/// encoded too (the output keeps the edit list), cropped like the shown frame nearest them (`ShownFrames.standIn`).
final class CropProducer: FrameProducer {
    let movie: Movie, video: Track, cropper: FrameCropper
    /// The planned path, released shot by shot when the encoding runs beside the analysis.
    let paths: ReleasedPath
    let timeline: PresentationTimeline?
    /// Which frames are shown: the path has one entry per shown frame.
    let shown: ShownFrames
    let retained: RetainedFrames?
    /// Renders the frames of `fit` shots, made when the first one comes.
    private var fitter: FitRenderer?
    /// Renders the frames of `split` shots, made when the first one comes.
    private var splitter: SplitRenderer?
    /// (planned, actual) first frames of shots whose cut came earlier than planned; read after the run ends.
    private(set) var movedCuts: [(planned: Int, actual: Int)] = []

    init(movie: Movie, video: Track, paths: ReleasedPath, cropper: FrameCropper,
         timeline: PresentationTimeline?, shown: ShownFrames, retained: RetainedFrames? = nil) {
        self.shown = shown
        self.retained = retained
        self.movie = movie
        self.video = video
        self.paths = paths
        self.cropper = cropper
        self.timeline = timeline
    }

    /// Frames handed to the encoder; read after the run ends.
    private(set) var produced = 0

    /// The path will not come (the run was cancelled) and the analysis keeps no more frames.
    func stop() {
        paths.cancel()
        retained?.finishAppending()
    }

    func produce(into handoff: FrameHandoff) throws {
        var nextIndex = 0
        /// The path released so far, and the cuts between analysed frames not yet passed.
        var known: CropPath?
        var pendingCuts: ArraySlice<UncertainCut> = []
        /// The furthest frame planned so far: cuts up to it are settled.
        var passed = -1
        let bitDepth = cropper.bytesPerSample == 2 ? 10 : 8
        /// The path once it covers frame `index`.
        func path(covering index: Int) throws -> CropPath {
            if let known, index < known.offsets.count { return known }
            guard let released = paths.waitFor(frame: index) else { throw FrameProducerStopped() }
            guard index < released.path.offsets.count else {
                throw KeepTrackError.io("the planned path has \(released.path.offsets.count) frames; the encoding pass reached frame \(index + 1)")
            }
            known = released.path
            pendingCuts = released.uncertainCuts.filter { $0.firstAfter > passed }[...]
            return released.path
        }
        func handle(_ frame: UnsafePointer<AVFrame>, _ time: Int64) throws {
            // With the sample table's timeline a frame the decoder could not produce is simply missing;
            // a frame at a time the table does not list next (a damaged table) is counted instead.
            var frameIndex = nextIndex
            if let found = timeline?.index(of: time), found >= nextIndex { frameIndex = found }
            guard frameIndex < shown.frameCount else {
                throw KeepTrackError.io("the encoding pass produced more frames than the analysis (\(shown.frameCount))")
            }
            // The shown frame whose crop and layout this one takes: itself, or for a hidden frame the nearest shown one.
            var planned = shown.standIn(forFrame: frameIndex)
            _ = try path(covering: planned)
            let isShown = shown.position(ofFrame: frameIndex) != nil
            while let cut = pendingCuts.first, cut.firstAfter <= planned { pendingCuts.removeFirst() }
            passed = max(passed, planned)
            if isShown, let cut = pendingCuts.first, cut.skipped.contains(planned) {
                if movedCuts.last?.planned == cut.firstAfter
                    || cut.belongsToNewShot(FrameOperations.lumaHistogram(frame, bitDepth: bitDepth)) {
                    if movedCuts.last?.planned != cut.firstAfter { movedCuts.append((cut.firstAfter, planned)) }
                    planned = cut.firstAfter
                }
            }
            let current = try path(covering: planned)
            let prepared: UnsafeMutablePointer<AVFrame>
            let layout = current.layout(frame: planned)
            if layout == .fit {
                if fitter == nil {
                    fitter = try FitRenderer(orientation: cropper.orientation, output: cropper.output, sourceFormat: cropper.sourceFormat,
                                             outputFormat: cropper.outputFormat)
                }
                prepared = try fitter!.prepare(frame, time: time)
            } else if layout == .split, let windows = current.split(frame: planned) {
                if splitter == nil {
                    splitter = try SplitRenderer(orientation: cropper.orientation,
                                                 geometry: Reframer.splitGeometry(crop: cropper.crop, output: cropper.output),
                                                 sourceFormat: cropper.sourceFormat, outputFormat: cropper.outputFormat)
                }
                prepared = try splitter!.prepare(frame, windows: windows, time: time)
            } else {
                let rect = current.rect(frame: planned)
                prepared = try cropper.prepare(frame, displayX: Int(rect.x), displayY: Int(rect.y), time: time)
            }
            guard handoff.put(prepared) else { throw FrameProducerStopped() }
            nextIndex = frameIndex + 1
            produced += 1
        }
        if let retained {
            var position = 0
            while let kept = retained.take(position) {
                position += 1
                guard let frame = kept.frame else { continue }
                defer { var owned: UnsafeMutablePointer<AVFrame>? = frame; av_frame_free(&owned) }
                try handle(frame, kept.time)
            }
        } else {
            try VideoDecoding.decode(movie, video, body: handle)
        }
    }
}
