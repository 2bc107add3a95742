import CFFmpeg
import KeepTrack
import KeepTrackFraming
import KeepTrackTranscode

/// The `split` layout of one frame: two windows of the picture (display orientation), each scaled into one
/// half of the output (`SplitGeometry`), with a black divider between them. Each window is read in place from
/// the decoded frame and scaled straight into its half (one libswscale pass per half, a copy when the sizes
/// and formats agree); a rotated source has only its two windows turned upright first.
final class SplitRenderer {
    let geometry: SplitGeometry
    let sourceFormat: Int32
    let outputFormat: Int32
    let sourceBytes: Int
    let outputBytes: Int
    private var scaler: OpaquePointer?
    /// Turns a rotated window upright (nil when the track is not rotated).
    private let upright: FrameCropper?

    init(orientation: DisplayOrientation, geometry: SplitGeometry, sourceFormat: Int32, outputFormat: Int32) throws {
        guard let source = FrameOperations.bytesPerSample(sourceFormat), let output = FrameOperations.bytesPerSample(outputFormat) else {
            throw KeepTrackError.unsupported("pixel format \(sourceFormat) is not 4:2:0 8/10-bit")
        }
        self.geometry = geometry
        self.sourceFormat = sourceFormat
        self.outputFormat = outputFormat
        sourceBytes = source
        outputBytes = output
        let window = geometry.window
        upright = orientation.rotation == 0 ? nil
            : try FrameCropper(orientation: orientation, crop: PixelSize(width: window.width, height: window.height), output: PixelSize(width: window.width, height: window.height),
                               sourceFormat: sourceFormat, outputFormat: sourceFormat)
        scaler = sws_getContext(Int32(window.width), Int32(window.height), AVPixelFormat(rawValue: sourceFormat),
                                Int32(geometry.output.width), Int32(geometry.half), AVPixelFormat(rawValue: outputFormat),
                                SWS_BICUBIC, nil, nil, nil)
        guard scaler != nil else {
            throw KeepTrackError.unsupported("cannot scale \(window.width)x\(window.height) to \(geometry.output.width)x\(geometry.half)")
        }
    }

    deinit { sws_freeContext(scaler) }

    /// A new frame (the caller frees it) of the output size: `windows` of `frame` stacked, at `time`.
    func prepare(_ frame: UnsafePointer<AVFrame>, windows: SplitWindows, time: Int64) throws -> UnsafeMutablePointer<AVFrame> {
        let result = try VideoFrames.newFrame(width: geometry.output.width, height: geometry.output.height, format: outputFormat)
        do {
            for (origin, row) in [(windows.top, 0), (windows.bottom, geometry.lowerHalfRow)] {
                if let upright {
                    var turned: UnsafeMutablePointer<AVFrame>? = try upright.prepare(frame, displayX: origin.x, displayY: origin.y, time: time)
                    defer { av_frame_free(&turned) }
                    scale(UnsafePointer(turned!), x: 0, y: 0, into: result, atRow: row)
                } else {
                    scale(frame, x: origin.x, y: origin.y, into: result, atRow: row)
                }
            }
        } catch {
            var owned: UnsafeMutablePointer<AVFrame>? = result
            av_frame_free(&owned)
            throw error
        }
        fillDivider(result)
        result.pointee.pts = time
        result.pointee.pict_type = AV_PICTURE_TYPE_NONE
        return result
    }

    /// Scales the window at (`x`, `y`) (even) of `source` into `destination` from row `row` (even).
    private func scale(_ source: UnsafePointer<AVFrame>, x: Int, y: Int, into destination: UnsafeMutablePointer<AVFrame>, atRow row: Int) {
        VideoFrames.scale(scaler, from: source, x: x, y: y, height: geometry.window.height, sourceBytes: sourceBytes,
                          into: destination, atRow: row, outputBytes: outputBytes)
    }

    /// The divider rows: video black (luma 16 or 64, chroma neutral).
    private func fillDivider(_ frame: UnsafeMutablePointer<AVFrame>) {
        let wide = outputBytes == 2
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let value = plane == 0 ? (wide ? 64 : 16) : (wide ? 512 : 128)
            let stride = Int(VideoFrames.linesize(UnsafePointer(frame), plane))
            let width = geometry.output.width >> shift
            guard let base = VideoFrames.pointer(UnsafePointer(frame), plane) else { continue }
            for row in (geometry.half >> shift)..<(geometry.lowerHalfRow >> shift) {
                let line = base + row * stride
                if wide {
                    let samples = UnsafeMutableRawPointer(line).bindMemory(to: UInt16.self, capacity: width)
                    for column in 0..<width { samples[column] = UInt16(value) }
                } else {
                    line.update(repeating: UInt8(value), count: width)
                }
            }
        }
    }
}
