import KeepTrack
import KeepTrackCodec

/// The stereo half of a transcode, planned before the output is opened (so a refusal, or FFmpeg 9 missing,
/// writes nothing): which view is the left eye, the packed picture's size and the sample entry boxes saying what it is.
struct StereoJob {
    let binary: String, input: String
    let packing: StereoPacking
    let stereo: StereoVideoInfo
    let view: StereoPacking.Size
    let times: [Int64]
    let boxes: [Box]
    let written: [String]
    let notCarried: [String]

    var picture: StereoPacking.Size { packing.pictureSize(view: view) }
    /// The source stores its right eye first: FFmpeg's view index 1 is then the left eye.
    var leftView: Int { stereo.eyeViewsReversed ? 1 : 0 }

    /// `view`: the base view's size as decoded (both views of an MV-HEVC track have it).
    init(input: String, video: Track, packing: StereoPacking, view: StereoPacking.Size) throws {
        guard let stereo = video.video?.stereo else { throw KeepTrackError.unsupported("video track \(video.id) is not stereo") }
        binary = try MultiviewFFmpeg.locate()
        self.input = input
        self.packing = packing
        self.stereo = stereo
        self.view = view
        times = PresentedVideo.presentationTimes(of: video).sorted()
        (boxes, written, notCarried) = packing.metadata(for: stereo, hfov: video.sampleEntries.first?.first("hfov"))
    }

    func frames(pixelFormat: Int32, filter: FilterGraph?, colour: VideoEncoder.Colour?) -> StereoViewFrames {
        StereoViewFrames(binary: binary, input: input, packing: packing, leftView: leftView, view: view, pixelFormat: pixelFormat,
                         times: times, filter: filter, colour: colour)
    }

    /// The summary's line: what became of the views and what the sample entry says.
    func describe() -> String {
        "stereo: both views of \(stereo.summary) (\(view.width)x\(view.height) each, decoded by FFmpeg 9) packed as \(packing.plan(for: stereo, view: view, hfov: boxes.first { $0.type == "hfov" }))"
    }
}
