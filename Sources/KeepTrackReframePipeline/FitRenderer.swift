import CFFmpeg
import KeepTrack
import KeepTrackFraming
import KeepTrackTranscode

/// The `fit` layout of one frame: the whole picture (display orientation) scaled to the output's width (or
/// height) and centred, over a blurred, darkened copy of the picture's centre filling the output (as
/// AutoFlip pads). Cheap on purpose: the blur is a downscale to a sixteenth followed by a bilinear
/// upscale (two small libswscale passes), the darkening a multiply on the luma plane.
final class FitRenderer {
    let orientation: DisplayOrientation
    let output: PixelSize
    let sourceFormat: Int32
    let outputFormat: Int32
    /// Where the sharp picture goes in the output, even-aligned.
    let foreground: (x: Int, y: Int, width: Int, height: Int)
    /// The part of the picture (display pixels) the background is made from: a window of the output's aspect.
    let backgroundSource: (x: Int, y: Int, width: Int, height: Int)
    let bytesPerSample: Int
    /// Luma of the background keeps this fraction of its height above black.
    static let backgroundBrightness = 0.45
    private var foregroundScaler: OpaquePointer?
    private var shrink: OpaquePointer?
    private var grow: OpaquePointer?
    private let small: (width: Int, height: Int)
    private var smallFrame: UnsafeMutablePointer<AVFrame>?
    /// Turns a rotated stored frame upright first (the whole picture), when the track is rotated.
    private let upright: FrameCropper?

    init(orientation: DisplayOrientation, output: PixelSize, sourceFormat: Int32, outputFormat: Int32) throws {
        guard let bytes = FrameOperations.bytesPerSample(sourceFormat), FrameOperations.bytesPerSample(outputFormat) != nil else {
            throw KeepTrackError.unsupported("pixel format \(sourceFormat) is not 4:2:0 8/10-bit")
        }
        self.orientation = orientation
        self.output = output
        self.sourceFormat = sourceFormat
        self.outputFormat = outputFormat
        bytesPerSample = FrameOperations.bytesPerSample(outputFormat) ?? bytes
        let width = orientation.displayWidth, height = orientation.displayHeight
        foreground = Self.foreground(source: (width, height), output: (output.width, output.height))
        let fill = CameraPathPlanner.cropSize(sourceWidth: width, sourceHeight: height, aspectWidth: output.width, aspectHeight: output.height)
        backgroundSource = ((width - fill.width) / 4 * 2, (height - fill.height) / 4 * 2, fill.width, fill.height)
        small = (max(2, output.width / 16 / 2 * 2), max(2, output.height / 16 / 2 * 2))
        upright = orientation.rotation == 0 ? nil
            : try FrameCropper(orientation: orientation, crop: PixelSize(width: width, height: height), output: PixelSize(width: width, height: height),
                               sourceFormat: sourceFormat, outputFormat: sourceFormat)
        let source = AVPixelFormat(rawValue: sourceFormat), target = AVPixelFormat(rawValue: outputFormat)
        foregroundScaler = sws_getContext(Int32(width), Int32(height), source, Int32(foreground.width), Int32(foreground.height), target,
                                          SWS_BICUBIC, nil, nil, nil)
        shrink = sws_getContext(Int32(fill.width), Int32(fill.height), source, Int32(small.width), Int32(small.height), target,
                                SWS_AREA, nil, nil, nil)
        grow = sws_getContext(Int32(small.width), Int32(small.height), target, Int32(output.width), Int32(output.height), target,
                              SWS_BILINEAR, nil, nil, nil)
        guard foregroundScaler != nil, shrink != nil, grow != nil else {
            throw KeepTrackError.unsupported("cannot scale \(width)x\(height) into \(output.width)x\(output.height)")
        }
        smallFrame = try VideoFrames.newFrame(width: small.width, height: small.height, format: outputFormat)
    }

    deinit {
        sws_freeContext(foregroundScaler)
        sws_freeContext(shrink)
        sws_freeContext(grow)
        av_frame_free(&smallFrame)
    }

    /// The largest even-sized rectangle of the source's aspect inside the output, centred at even offsets.
    static func foreground(source: (width: Int, height: Int), output: (width: Int, height: Int)) -> (x: Int, y: Int, width: Int, height: Int) {
        let scale = min(Double(output.width) / Double(source.width), Double(output.height) / Double(source.height))
        let width = min(output.width, max(2, Int((Double(source.width) * scale / 2).rounded()) * 2))
        let height = min(output.height, max(2, Int((Double(source.height) * scale / 2).rounded()) * 2))
        return ((output.width - width) / 4 * 2, (output.height - height) / 4 * 2, width, height)
    }

    /// A new frame (the caller frees it) of the output size: the fit layout of `frame`, at `time`.
    func prepare(_ frame: UnsafePointer<AVFrame>, time: Int64) throws -> UnsafeMutablePointer<AVFrame> {
        var turned: UnsafeMutablePointer<AVFrame>?
        defer { av_frame_free(&turned) }
        var picture = frame
        if let upright {
            turned = try upright.prepare(frame, displayX: 0, displayY: 0, time: time)
            picture = UnsafePointer(turned!)
        }
        let result = try VideoFrames.newFrame(width: output.width, height: output.height, format: outputFormat)
        let sourceBytes = FrameOperations.bytesPerSample(sourceFormat) ?? 1
        // Background: the centre window, shrunk to a sixteenth, grown back (blurred), darkened.
        let window = backgroundSource
        scale(shrink, from: picture, x: window.x, y: window.y, height: window.height, bytesPerSample: sourceBytes,
              into: smallFrame!, atRow: 0)
        scale(grow, from: UnsafePointer(smallFrame!), x: 0, y: 0, height: small.height, bytesPerSample: bytesPerSample,
              into: result, atRow: 0)
        darkenLuma(result)
        // Foreground: the whole picture, sharp, across the middle.
        scale(foregroundScaler, from: picture, x: 0, y: 0, height: Int(picture.pointee.height), bytesPerSample: sourceBytes,
              into: result, atRow: foreground.y, column: foreground.x)
        result.pointee.pts = time
        result.pointee.pict_type = AV_PICTURE_TYPE_NONE
        return result
    }

    private func scale(_ context: OpaquePointer?, from source: UnsafePointer<AVFrame>, x: Int, y: Int, height: Int, bytesPerSample: Int,
                       into destination: UnsafeMutablePointer<AVFrame>, atRow row: Int, column: Int = 0) {
        VideoFrames.scale(context, from: source, x: x, y: y, height: height, sourceBytes: bytesPerSample, into: destination,
                          atRow: row, column: column, outputBytes: self.bytesPerSample)
    }

    /// Luma moved towards video black: black + (Y − black) × `backgroundBrightness`, through a table.
    private lazy var darker: [UInt16] = {
        let black = bytesPerSample == 2 ? 64 : 16, count = bytesPerSample == 2 ? 1024 : 256
        return (0..<count).map { UInt16(Double(black) + Double(max($0 - black, 0)) * Self.backgroundBrightness) }
    }()

    private func darkenLuma(_ frame: UnsafeMutablePointer<AVFrame>) {
        let stride = Int(frame.pointee.linesize.0), width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        guard let plane = frame.pointee.data.0 else { return }
        let wide = bytesPerSample == 2
        // Rows the sharp picture covers entirely are not darkened (it is drawn over them next).
        let covered = foreground.width == width ? foreground.y..<(foreground.y + foreground.height) : 0..<0
        darker.withUnsafeBufferPointer { table in
            for row in 0..<height where !covered.contains(row) {
                if wide {
                    let samples = UnsafeMutableRawPointer(plane + row * stride).bindMemory(to: UInt16.self, capacity: width)
                    for column in 0..<width { samples[column] = table[Int(samples[column] & 1023)] }
                } else {
                    let samples = plane + row * stride
                    for column in 0..<width { samples[column] = UInt8(truncatingIfNeeded: table[Int(samples[column])]) }
                }
            }
        }
    }
}
