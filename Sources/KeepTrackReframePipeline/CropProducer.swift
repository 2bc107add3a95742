import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackFraming

/// Decodes the video (or takes the frames the analysis kept) and crops every frame at the planned position,
/// handing the frames to the encoder.
/// Where the analysis found a cut between two frames it analysed, the frames it skipped are looked at here
/// and the cut moved back to the first one that belongs to the new shot. Frames the edit list hides are
/// encoded too (the output keeps the edit list), cropped like the shown frame nearest them (`ShownFrames.standIn`).
final class CropProducer: @unchecked Sendable {
    let movie: Movie, video: Track, path: CropPath, cropper: FrameCropper, handoff: FrameHandoff
    let timeline: PresentationTimeline?
    /// Which frames are shown: the path has one entry per shown frame.
    let shown: ShownFrames
    let uncertainCuts: [UncertainCut]
    let retained: RetainedFrames?
    /// Renders the frames of `fit` shots (nil when every shot follows).
    let fitter: FitRenderer?
    /// Renders the frames of `split` shots (nil when no shot is split).
    let splitter: SplitRenderer?
    /// (planned, actual) first frames of shots whose cut came earlier than planned; read after `done`.
    private(set) var movedCuts: [(planned: Int, actual: Int)] = []
    /// Signalled when the thread has stopped touching the decoder and the cropper.
    let done = DispatchSemaphore(value: 0)

    init(movie: Movie, video: Track, path: CropPath, cropper: FrameCropper, handoff: FrameHandoff,
         timeline: PresentationTimeline?, shown: ShownFrames, uncertainCuts: [UncertainCut], retained: RetainedFrames? = nil,
         fitter: FitRenderer? = nil, splitter: SplitRenderer? = nil) {
        self.shown = shown
        self.retained = retained
        self.fitter = fitter
        self.splitter = splitter
        self.movie = movie
        self.video = video
        self.path = path
        self.cropper = cropper
        self.handoff = handoff
        self.timeline = timeline
        self.uncertainCuts = uncertainCuts
    }

    struct Stopped: Error {}

    /// Frames handed to the encoder; read after `done`.
    private(set) var produced = 0

    func run() {
        var nextIndex = 0
        var pendingCuts = uncertainCuts[...]
        let bitDepth = cropper.bytesPerSample == 2 ? 10 : 8
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
            let isShown = shown.position(ofFrame: frameIndex) != nil
            while let cut = pendingCuts.first, cut.firstAfter <= planned { pendingCuts.removeFirst() }
            if isShown, let cut = pendingCuts.first, cut.skipped.contains(planned) {
                if movedCuts.last?.planned == cut.firstAfter
                    || cut.belongsToNewShot(FrameOperations.lumaHistogram(frame, bitDepth: bitDepth)) {
                    if movedCuts.last?.planned != cut.firstAfter { movedCuts.append((cut.firstAfter, planned)) }
                    planned = cut.firstAfter
                }
            }
            let prepared: UnsafeMutablePointer<AVFrame>
            let layout = path.layout(frame: planned)
            if let fitter, layout == .fit {
                prepared = try fitter.prepare(frame, time: time)
            } else if let splitter, layout == .split, let windows = path.split(frame: planned) {
                prepared = try splitter.prepare(frame, windows: windows, time: time)
            } else {
                let rect = path.rect(frame: planned)
                prepared = try cropper.prepare(frame, displayX: Int(rect.x), displayY: Int(rect.y), time: time)
            }
            guard handoff.put(prepared) else { throw Stopped() }
            nextIndex = frameIndex + 1
            produced += 1
        }
        do {
            if let retained {
                for position in 0..<retained.count {
                    guard let kept = retained.take(position) else { continue }
                    defer { var owned: UnsafeMutablePointer<AVFrame>? = kept.frame; av_frame_free(&owned) }
                    try handle(kept.frame, kept.time)
                }
            } else {
                try Reframer.decode(movie, video, body: handle)
            }
            handoff.finish(error: nil)
        } catch {
            handoff.finish(error: error is Stopped ? nil : error)
        }
        done.signal()
    }
}
