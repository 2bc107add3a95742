import CFFmpeg
import KeepTrack
import KeepTrackCodec

/// The stereo half of a transcode, planned before the output is opened (so a refusal, or FFmpeg 9 missing,
/// writes nothing): which view is the left eye, the packed picture's size and the sample entry boxes saying what it is.
/// FFmpeg 9 is started here, from the sample entry's size and `hvcC`'s sampling, so its start overlaps the rest of the
/// planning; `settle` restarts it in the rare case the decoded frame says otherwise.
final class StereoJob {
    let binary: String, input: String
    let packing: StereoPacking
    let stereo: StereoVideoInfo
    let times: [Int64]
    let boxes: [Box]
    let written: [String]
    let notCarried: [String]
    private(set) var decoder: StereoViewFrames?

    var view: StereoPacking.Size { decoder?.view ?? .init(width: 0, height: 0) }
    var picture: StereoPacking.Size { packing.pictureSize(view: view) }
    /// The source stores its right eye first: FFmpeg's view index 1 is then the left eye.
    var leftView: Int { stereo.eyeViewsReversed ? 1 : 0 }

    init(input: String, video: Track, packing: StereoPacking) throws {
        guard let stereo = video.video?.stereo else { throw KeepTrackError.unsupported("video track \(video.id) is not stereo") }
        binary = try MultiviewFFmpeg.locate()
        self.input = input
        self.packing = packing
        self.stereo = stereo
        times = PresentedVideo.presentationTimes(of: video).sorted()
        (boxes, written, notCarried) = packing.metadata(for: stereo, hfov: video.sampleEntries.first?.first("hfov"))
        if let command = MultiviewDecodeCommand(input: input, video: video, packing: packing), case let format = av_get_pix_fmt(command.pixelFormat),
           format != AV_PIX_FMT_NONE {
            decoder = makeDecoder(view: command.view, pixelFormat: format.rawValue)
            decoder?.start()
        }
    }

    /// The first frame's facts as the sample entry says them, when FFmpeg 9 was started from them and a `colr` box
    /// (nclx or nclc) gives the colour; nil otherwise (then the first frame is decoded to learn them).
    func facts(of video: Track) -> (width: Int, height: Int, pixelFormat: Int32, colour: VideoEncoder.Colour?)? {
        guard let decoder, let box = video.configuration(ColourInformationBox.self, "colr"),
              box.colourType == "nclx" || box.colourType == "nclc" else { return nil }
        let colour = VideoEncoder.Colour(primaries: Int32(box.primaries), transfer: Int32(box.transfer), matrix: Int32(box.matrixCoefficients),
                                         fullRange: box.colourType == "nclx" && box.rangeByte & 0x80 != 0)
        let unspecified: Int32 = 2
        let said = [colour.primaries, colour.transfer, colour.matrix].contains { $0 != unspecified }
        return (decoder.view.width, decoder.view.height, decoder.pixelFormat, said ? colour : nil)
    }

    /// The decoded first frame's size and pixel format: FFmpeg 9 started from other ones is stopped and made anew.
    func settle(view: StereoPacking.Size, pixelFormat: Int32) {
        if let decoder, decoder.view == view, decoder.pixelFormat == pixelFormat { return }
        decoder?.stop()
        decoder = makeDecoder(view: view, pixelFormat: pixelFormat)
    }

    private func makeDecoder(view: StereoPacking.Size, pixelFormat: Int32) -> StereoViewFrames {
        StereoViewFrames(binary: binary, input: input, packing: packing, leftView: leftView, view: view, pixelFormat: pixelFormat, times: times)
    }

    /// The frame producer, its filters and colour set.
    func frames(filter: FilterGraph?, colour: VideoEncoder.Colour?) -> StereoViewFrames? {
        decoder?.filter = filter
        decoder?.colour = colour
        return decoder
    }

    /// The summary's line: what became of the views and what the sample entry says.
    func describe() -> String {
        "stereo: both views of \(stereo.summary) (\(view.width)x\(view.height) each, decoded by FFmpeg 9) packed as \(packing.plan(for: stereo, view: view, hfov: boxes.first { $0.type == "hfov" }))"
    }
}
