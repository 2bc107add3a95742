import CFFmpeg
import KeepTrack
import KeepTrackFraming
import KeepTrackTranscode

/// The output frame of a `fit` or `split` tile of the contact sheet, made by the renderer the encoding pass
/// uses (`FitRenderer`, `SplitRenderer`) from the tile's small picture: RGB to YUV 4:2:0, the renderer, back
/// to RGB. So the sheet shows what the encoder is given — the blurred, darkened background of fit, the
/// windows and divider of split — at the tile's size.
enum PreviewRendering {
    /// `picture` (display orientation) as the fit layout shows it in an output of `output` pixels, scaled to
    /// `width`×`height` (the tile).
    static func fit(_ picture: RGBImage, output: SplitSize, width: Int, height: Int) throws -> RGBImage {
        try render(picture, output: output, width: width, height: height) { frame, orientation, output in
            let renderer = try FitRenderer(orientation: orientation, output: output,
                                           sourceFormat: AV_PIX_FMT_YUV420P.rawValue, outputFormat: AV_PIX_FMT_YUV420P.rawValue)
            return try renderer.prepare(frame, time: 0)
        }
    }

    /// `picture` as the split layout shows it in an output of `output` pixels, scaled to `width`×`height`,
    /// for a follow crop of `crop` (picture pixels) and the windows `top` and `bottom` (picture pixels).
    static func split(_ picture: RGBImage, crop: SplitSize, top: FrameRect, bottom: FrameRect, output: SplitSize,
                      width: Int, height: Int) throws -> RGBImage {
        try render(picture, output: output, width: width, height: height) { frame, orientation, output in
            let even = { (value: Int) in max(2, value / 2 * 2) }
            let geometry = SplitGeometry(crop: SplitSize(width: min(even(crop.width), orientation.displayWidth),
                                                         height: min(even(crop.height), orientation.displayHeight)), output: output)
            func corner(_ rect: FrameRect) -> WindowCorner {
                func place(_ value: Double, _ limit: Int) -> Int { min(max(0, Int((value / 2).rounded()) * 2), max(0, limit / 2 * 2)) }
                return WindowCorner(x: place(rect.x, orientation.displayWidth - geometry.window.width),
                                    y: place(rect.y, orientation.displayHeight - geometry.window.height))
            }
            let renderer = try SplitRenderer(orientation: orientation, geometry: geometry,
                                             sourceFormat: AV_PIX_FMT_YUV420P.rawValue, outputFormat: AV_PIX_FMT_YUV420P.rawValue)
            return try renderer.prepare(frame, windows: SplitWindows(top: corner(top), bottom: corner(bottom)), time: 0)
        }
    }

    /// Converts `picture` (cut to even sizes) to a YUV 4:2:0 frame, renders it with `body` into an output of
    /// `output` (cut to even sizes: the size the encoder is given, so the blur and the divider are its own) and
    /// converts the result to an RGB picture of `width`×`height` (area average, as a player shows it smaller).
    private static func render(_ picture: RGBImage, output wanted: SplitSize, width: Int, height: Int,
                               body: (UnsafePointer<AVFrame>, DisplayOrientation, SplitSize) throws -> UnsafeMutablePointer<AVFrame>)
        throws -> RGBImage {
        let sourceWidth = picture.width / 2 * 2, sourceHeight = picture.height / 2 * 2
        let output = SplitSize(width: wanted.width / 2 * 2, height: wanted.height / 2 * 2)
        guard sourceWidth >= 2, sourceHeight >= 2, output.width >= 2, output.height >= 2, width >= 1, height >= 1 else {
            throw KeepTrackError.unsupported("a \(picture.width)x\(picture.height) preview picture is too small to render")
        }
        var yuv: UnsafeMutablePointer<AVFrame>? = try VideoFrames.newFrame(width: sourceWidth, height: sourceHeight,
                                                                          format: AV_PIX_FMT_YUV420P.rawValue)
        defer { av_frame_free(&yuv) }
        try convert(picture.pixels, rowBytes: picture.width * 3, width: sourceWidth, height: sourceHeight, into: yuv!)
        var rendered: UnsafeMutablePointer<AVFrame>? = try body(UnsafePointer(yuv!),
                                                                 DisplayOrientation(rotation: 0, storedWidth: sourceWidth, storedHeight: sourceHeight),
                                                                 output)
        defer { av_frame_free(&rendered) }
        return try rgb(of: UnsafePointer(rendered!), width: width, height: height)
    }

    /// Packed RGB rows into the YUV 4:2:0 `frame` (libswscale's conversion, BT.601 limited range). The rows go
    /// through an RGB frame of libavutil's own (aligned, padded): libswscale reads and writes past a row's end.
    private static func convert(_ pixels: [UInt8], rowBytes: Int, width: Int, height: Int, into frame: UnsafeMutablePointer<AVFrame>) throws {
        var rgb: UnsafeMutablePointer<AVFrame>? = try VideoFrames.newFrame(width: width, height: height, format: AV_PIX_FMT_RGB24.rawValue)
        defer { av_frame_free(&rgb) }
        let stride = Int(rgb!.pointee.linesize.0)
        pixels.withUnsafeBufferPointer { buffer in
            for row in 0..<height { (rgb!.pointee.data.0! + row * stride).update(from: buffer.baseAddress! + row * rowBytes, count: width * 3) }
        }
        try scale(UnsafePointer(rgb!), into: frame)
    }

    /// A YUV 4:2:0 frame as an RGB picture of `width`×`height`.
    private static func rgb(of frame: UnsafePointer<AVFrame>, width: Int, height: Int) throws -> RGBImage {
        var rgb: UnsafeMutablePointer<AVFrame>? = try VideoFrames.newFrame(width: width, height: height, format: AV_PIX_FMT_RGB24.rawValue)
        defer { av_frame_free(&rgb) }
        try scale(frame, into: rgb!)
        let stride = Int(rgb!.pointee.linesize.0)
        let bytes = [UInt8](UnsafeBufferPointer(start: rgb!.pointee.data.0!, count: stride * (height - 1) + width * 3))
        return RGBImage(packed: bytes, width: width, height: height, rowStride: stride, bgr: false)
    }

    /// `source` converted and scaled into `destination` (each its own size and pixel format), area average.
    private static func scale(_ source: UnsafePointer<AVFrame>, into destination: UnsafeMutablePointer<AVFrame>) throws {
        let context = sws_getContext(source.pointee.width, source.pointee.height, AVPixelFormat(rawValue: source.pointee.format),
                                     destination.pointee.width, destination.pointee.height, AVPixelFormat(rawValue: destination.pointee.format),
                                     SWS_AREA, nil, nil, nil)
        guard let context else { throw KeepTrackError.unsupported("cannot convert a \(source.pointee.width)x\(source.pointee.height) picture") }
        defer { sws_freeContext(context) }
        let sourcePlanes: [UnsafePointer<UInt8>?] = [UnsafePointer(source.pointee.data.0), UnsafePointer(source.pointee.data.1),
                                                     UnsafePointer(source.pointee.data.2), nil]
        let sourceStrides: [Int32] = [source.pointee.linesize.0, source.pointee.linesize.1, source.pointee.linesize.2, 0]
        let planes: [UnsafeMutablePointer<UInt8>?] = [destination.pointee.data.0, destination.pointee.data.1, destination.pointee.data.2, nil]
        let strides: [Int32] = [destination.pointee.linesize.0, destination.pointee.linesize.1, destination.pointee.linesize.2, 0]
        _ = sws_scale(context, sourcePlanes, sourceStrides, 0, source.pointee.height, planes, strides)
    }
}
