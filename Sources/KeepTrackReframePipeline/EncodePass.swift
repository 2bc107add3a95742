import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming

extension Reframer {
    /// How the reframed video is encoded: HDR stays HDR (HEVC Main10 with its transfer), SDR becomes 8-bit.
    struct EncodeChoice {
        var codec: VideoEncoder.Codec
        var crf: Double
        var preset: String
        /// The encoder's pixel format (an `AVPixelFormat` raw value), which the cropper produces.
        var pixelFormat: Int32
        var settings: VideoEncoder.Settings
    }

    /// How the refusal of H.264 for an HDR source ends (a front end adds how its user chooses HEVC).
    static let hdrWayOut = "HEVC (10-bit) keeps the HDR transfer"

    static func hdrNeedsHEVC(_ hdr: String?) -> KeepTrackError {
        .usage("the source is HDR (\(hdr ?? "HLG/PQ")) and H.264 here is 8-bit SDR; " + hdrWayOut)
    }

    /// True when `error` refuses H.264 for an HDR source.
    public static func isHDRNeedsHEVC(_ error: KeepTrackError) -> Bool {
        if case .usage(let message) = error { return message.hasSuffix(hdrWayOut) }
        return false
    }

    /// The codec, quality and encoder settings for `options`; refuses H.264 for an HDR source.
    static func encodeChoice(video: Track, analysis: Analysis, outputSize: PixelSize, options: ReframeOptions,
                             hdr: String?) throws -> EncodeChoice {
        let isHDR = analysis.colour?.isHDR ?? false
        let codec = options.codec ?? (isHDR ? .hevc : .h264)
        if isHDR && codec == .h264 {
            throw hdrNeedsHEVC(hdr)
        }
        let outputFormat = isHDR ? AV_PIX_FMT_YUV420P10LE.rawValue : AV_PIX_FMT_YUV420P.rawValue
        let crf = options.crf ?? (codec == .h264 ? 20 : 22)
        let preset = options.preset ?? "medium"
        let timescale = Int32(clamping: Int(video.mediaHeader.timescale))
        let times = analysis.mediaFrameTimes  // every frame is encoded, hidden ones too
        let span = (times.last ?? 0) - (times.first ?? 0)
        let averageRate = times.count > 1 && span > 0 ? Double(times.count - 1) / span : 30
        let rational = av_d2q(averageRate, 100_000)
        var settings = VideoEncoder.Settings(codec: codec, width: outputSize.width, height: outputSize.height, pixelFormat: outputFormat,
                                             timeBase: timescale, frameRate: .init(numerator: rational.num, denominator: rational.den), crf: crf,
                                             preset: preset, colour: analysis.colour)
        settings.threads = 0
        return EncodeChoice(codec: codec, crf: crf, preset: preset, pixelFormat: outputFormat, settings: settings)
    }

    /// What the encoding pass produced: the encoded frames (length-prefixed, back to back in the data file)
    /// in decode order, and how many frames went into the encoder.
    struct EncodePassResult {
        var samples: [EncodedVideoSample] = []
        var framesEncoded = 0
    }

    /// The second pass: decode again (or take the frames the analysis kept), crop each frame at its planned
    /// position, encode, and append the encoded frames to `dataFile`. Decoding and cropping run on their own
    /// thread, a few frames ahead of the encoder. Cuts the decoder saw elsewhere than planned move in `path`.
    static func encodePass(movie: Movie, video: Track, analysis: Analysis, path: inout CropPath, uncertainCuts: [UncertainCut],
                           cropper: FrameCropper, encoder: VideoEncoder, into dataFile: OutputFile,
                           progress: (ReframeProgress) -> Void) throws -> EncodePassResult {
        var result = EncodePassResult()
        let encodeStarted = Date()
        let collect = { (packet: EncodedVideoPacket) throws in
            let sample = VideoParameterSets.lengthPrefixed(annexB: packet.bytes)
            try dataFile.write(sample)
            result.samples.append(EncodedVideoSample(size: UInt32(sample.count), decodeTime: packet.decodeTime,
                                                     presentationTime: packet.presentationTime, isSync: packet.isKey))
        }
        let handoff = FrameHandoff(capacity: 8)
        // Shots shown whole (`fit`) are rendered at the cropper's output size and formats.
        let fitter = path.layouts.contains(.fit)
            ? try FitRenderer(orientation: cropper.orientation, output: cropper.output, sourceFormat: cropper.sourceFormat,
                              outputFormat: cropper.outputFormat)
            : nil
        // Shots of two people stacked (`split`): their windows scaled into the halves.
        let splitter = path.layouts.contains(.split)
            ? try SplitRenderer(orientation: cropper.orientation,
                                geometry: splitGeometry(crop: cropper.crop, output: cropper.output),
                                sourceFormat: cropper.sourceFormat, outputFormat: cropper.outputFormat)
            : nil
        let producer = CropProducer(movie: movie, video: video, path: path, cropper: cropper, handoff: handoff,
                                    timeline: analysis.timeline, shown: analysis.shown, uncertainCuts: uncertainCuts, retained: analysis.retained, fitter: fitter,
                                    splitter: splitter)
        let thread = Thread { producer.run() }
        thread.stackSize = 8 << 20
        thread.start()
        var frameIndex = 0
        do {
            while let prepared = try handoff.take() {
                defer { var owned: UnsafeMutablePointer<AVFrame>? = prepared; av_frame_free(&owned) }
                try encoder.encode(prepared, body: collect)
                frameIndex += 1
                if frameIndex % 5 == 0 {
                    progress(ReframeProgress(phase: .encoding, frames: frameIndex, totalFrames: analysis.mediaFrameTimes.count,
                                             seconds: Date().timeIntervalSince(encodeStarted)))
                }
            }
            producer.done.wait()
        } catch {
            handoff.cancel()
            producer.done.wait()
            throw error
        }
        try encoder.encode(nil, body: collect)
        for (planned, actual) in producer.movedCuts { path.moveCut(from: planned, to: actual) }
        result.framesEncoded = frameIndex
        return result
    }
}
