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

    /// The second pass, after the analysis: decode again (or take the frames the analysis kept), crop each
    /// frame at its planned position, encode, and append the encoded frames to `dataFile`. Cuts the decoder
    /// saw elsewhere than planned move in `path`.
    static func encodePass(movie: Movie, video: Track, analysis: Analysis, path: inout CropPath, uncertainCuts: [UncertainCut],
                           cropper: FrameCropper, encoder: VideoEncoder, into dataFile: OutputFile, retained: RetainedFrames?,
                           progress: (ReframeProgress) -> Void) throws -> EncodePassResult {
        let run = EncodingRun(movie: movie, video: video, analysis: analysis, paths: ReleasedPath(whole: path, uncertainCuts: uncertainCuts),
                              cropper: cropper, encoder: encoder, into: dataFile, retained: retained)
        let result = try run.wait(totalFrames: analysis.mediaFrameTimes.count, progress: progress)
        for (planned, actual) in run.movedCuts { path.moveCut(from: planned, to: actual) }
        return result
    }
}

/// An encoding pass on threads of its own: the producer decodes again (or takes the frames the analysis kept)
/// and crops each frame where the released path says, a few frames ahead of the encoder, which appends the
/// encoded frames to the data file. It may start while the analysis still runs (`ReleasedPath`).
final class EncodingRun: @unchecked Sendable {
    private let handoff = FrameHandoff(capacity: 8)
    private let producer: CropProducer
    private let encoder: VideoEncoder
    private let dataFile: OutputFile
    private let paths: ReleasedPath
    private let retained: RetainedFrames?
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result = Reframer.EncodePassResult()
    private var failure: Error?
    /// Frames encoded so far, for progress.
    private var encodedCount = 0
    let started = Date()

    init(movie: Movie, video: Track, analysis: Reframer.Analysis, paths: ReleasedPath, cropper: FrameCropper,
         encoder: VideoEncoder, into dataFile: OutputFile, retained: RetainedFrames?) {
        self.encoder = encoder
        self.dataFile = dataFile
        self.paths = paths
        self.retained = retained
        producer = CropProducer(movie: movie, video: video, paths: paths, cropper: cropper, handoff: handoff,
                                timeline: analysis.timeline, shown: analysis.shown, retained: retained)
        let producing = Thread { [producer] in producer.run() }
        producing.stackSize = 8 << 20
        producing.name = "keeptrack.crop"
        producing.start()
        let encoding = Thread { [self] in encode() }
        encoding.stackSize = 8 << 20
        encoding.name = "keeptrack.encode"
        encoding.start()
    }

    private func encode() {
        var result = Reframer.EncodePassResult()
        let collect = { [dataFile] (packet: EncodedVideoPacket) throws in
            let sample = VideoParameterSets.lengthPrefixed(annexB: packet.bytes)
            try dataFile.write(sample)
            result.samples.append(EncodedVideoSample(size: UInt32(sample.count), decodeTime: packet.decodeTime,
                                                     presentationTime: packet.presentationTime, isSync: packet.isKey))
        }
        do {
            while let prepared = try handoff.take() {
                defer { var owned: UnsafeMutablePointer<AVFrame>? = prepared; av_frame_free(&owned) }
                try encoder.encode(prepared, body: collect)
                result.framesEncoded += 1
                lock.withLock { encodedCount = result.framesEncoded }
            }
            producer.done.wait()
            try encoder.encode(nil, body: collect)
        } catch {
            handoff.cancel()
            producer.done.wait()
            lock.withLock { failure = error }
        }
        lock.withLock { self.result = result }
        finished.signal()
    }

    /// Frames gone into the encoder so far.
    var framesEncoded: Int { lock.withLock { encodedCount } }

    /// (planned, actual) first frames of shots whose cut the producer found earlier than planned; after `wait`.
    var movedCuts: [(planned: Int, actual: Int)] { producer.movedCuts }

    /// Waits for the last frame (the whole path must have been released), reporting progress a few times a second.
    func wait(totalFrames: Int, progress: (ReframeProgress) -> Void) throws -> Reframer.EncodePassResult {
        while finished.wait(timeout: .now() + 0.2) == .timedOut {
            progress(ReframeProgress(phase: .encoding, frames: framesEncoded, totalFrames: totalFrames, seconds: Date().timeIntervalSince(started)))
        }
        finished.signal()
        return try lock.withLock {
            if let failure { throw failure }
            return result
        }
    }

    /// Stops both threads and waits until they no longer touch the encoder, the data file or the frames.
    func cancel() {
        paths.cancel()
        handoff.cancel()
        retained?.finishAppending()
        finished.wait()
        finished.signal()
    }
}
