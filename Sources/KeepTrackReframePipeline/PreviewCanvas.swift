import CFFmpeg
import KeepTrack
import KeepTrackCodec
import KeepTrackTranscode

/// A packed 8-bit RGB picture the preview draws on: filled and outlined rectangles, lines and polylines,
/// copies of other pictures. Everything is clipped to the picture.
struct RGBImage: Equatable {
    struct Colour: Equatable {
        var red: UInt8, green: UInt8, blue: UInt8
        init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }
    }

    let width: Int
    let height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, fill: Colour = Colour(0, 0, 0)) {
        self.width = max(0, width)
        self.height = max(0, height)
        pixels = [UInt8](repeating: 0, count: self.width * self.height * 3)
        fillRect(x: 0, y: 0, width: width, height: height, fill)
    }

    /// A copy of a packed 3-byte-per-pixel picture whose rows are `rowStride` bytes apart; `bgr` swaps the
    /// first and third byte of each pixel.
    init(packed bytes: [UInt8], width: Int, height: Int, rowStride: Int, bgr: Bool) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let from = y * rowStride + x * 3, to = (y * width + x) * 3
                pixels[to] = bytes[from + (bgr ? 2 : 0)]
                pixels[to + 1] = bytes[from + 1]
                pixels[to + 2] = bytes[from + (bgr ? 0 : 2)]
            }
        }
    }

    func pixel(x: Int, y: Int) -> Colour? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let at = (y * width + x) * 3
        return Colour(pixels[at], pixels[at + 1], pixels[at + 2])
    }

    mutating func set(x: Int, y: Int, _ colour: Colour) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let at = (y * width + x) * 3
        pixels[at] = colour.red
        pixels[at + 1] = colour.green
        pixels[at + 2] = colour.blue
    }

    mutating func fillRect(x: Int, y: Int, width: Int, height: Int, _ colour: Colour) {
        let left = max(0, x), right = min(self.width, x + width), top = max(0, y), bottom = min(self.height, y + height)
        guard left < right, top < bottom else { return }
        for row in top..<bottom {
            for column in left..<right { set(x: column, y: row, colour) }
        }
    }

    /// An outline `thickness` pixels wide, inside the rectangle (its outermost pixels are the rectangle's edges).
    mutating func strokeRect(x: Int, y: Int, width: Int, height: Int, _ colour: Colour, thickness: Int = 2) {
        let line = max(1, min(thickness, width, height))
        fillRect(x: x, y: y, width: width, height: line, colour)
        fillRect(x: x, y: y + height - line, width: width, height: line, colour)
        fillRect(x: x, y: y, width: line, height: height, colour)
        fillRect(x: x + width - line, y: y, width: line, height: height, colour)
    }

    /// Scales every channel of the rectangle's pixels by `factor` (0 black ... 1 unchanged).
    mutating func darken(x: Int, y: Int, width: Int, height: Int, factor: Double) {
        let left = max(0, x), right = min(self.width, x + width), top = max(0, y), bottom = min(self.height, y + height)
        guard left < right, top < bottom else { return }
        let scale = UInt16(max(0, min(1, factor)) * 256)
        for row in top..<bottom {
            for index in (row * self.width + left) * 3..<(row * self.width + right) * 3 {
                pixels[index] = UInt8((UInt16(pixels[index]) * scale) >> 8)
            }
        }
    }

    /// A straight line from (x0, y0) to (x1, y1), both ends included (Bresenham).
    mutating func line(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ colour: Colour) {
        var x = x0, y = y0
        let dx = abs(x1 - x0), dy = -abs(y1 - y0), stepX = x0 < x1 ? 1 : -1, stepY = y0 < y1 ? 1 : -1
        var error = dx + dy
        while true {
            set(x: x, y: y, colour)
            if x == x1 && y == y1 { return }
            let doubled = 2 * error
            if doubled >= dy { error += dy; x += stepX }
            if doubled <= dx { error += dx; y += stepY }
        }
    }

    mutating func polyline(_ points: [(x: Int, y: Int)], _ colour: Colour) {
        if points.count == 1 { set(x: points[0].x, y: points[0].y, colour) }
        for (from, to) in zip(points, points.dropFirst()) { line(from.x, from.y, to.x, to.y, colour) }
    }

    /// Draws the block `from` of `image` scaled (nearest neighbour) into the block `to` here.
    mutating func drawScaled(_ image: RGBImage, from: (x: Int, y: Int, width: Int, height: Int), to: (x: Int, y: Int, width: Int, height: Int)) {
        guard from.width > 0, from.height > 0, to.width > 0, to.height > 0 else { return }
        for row in 0..<to.height {
            let sourceY = from.y + row * from.height / to.height, targetY = to.y + row
            guard sourceY >= 0, sourceY < image.height, targetY >= 0, targetY < height else { continue }
            for column in 0..<to.width {
                let sourceX = from.x + column * from.width / to.width, targetX = to.x + column
                guard sourceX >= 0, sourceX < image.width, targetX >= 0, targetX < width else { continue }
                let source = (sourceY * image.width + sourceX) * 3, target = (targetY * width + targetX) * 3
                pixels[target] = image.pixels[source]
                pixels[target + 1] = image.pixels[source + 1]
                pixels[target + 2] = image.pixels[source + 2]
            }
        }
    }

    /// Copies the `width`×`height` block of `image` at (`fromX`, `fromY`) to (`x`, `y`) here.
    mutating func draw(_ image: RGBImage, fromX: Int = 0, fromY: Int = 0, width: Int? = nil, height: Int? = nil, atX x: Int, y: Int) {
        let width = width ?? image.width, height = height ?? image.height
        for row in 0..<height {
            let sourceY = fromY + row, targetY = y + row
            guard sourceY >= 0, sourceY < image.height, targetY >= 0, targetY < self.height else { continue }
            for column in 0..<width {
                let sourceX = fromX + column, targetX = x + column
                guard sourceX >= 0, sourceX < image.width, targetX >= 0, targetX < self.width else { continue }
                let from = (sourceY * image.width + sourceX) * 3, to = (targetY * self.width + targetX) * 3
                pixels[to] = image.pixels[from]
                pixels[to + 1] = image.pixels[from + 1]
                pixels[to + 2] = image.pixels[from + 2]
            }
        }
    }

    /// The picture as a PNG file's bytes, made by libavcodec's PNG encoder (lossless, 8-bit RGB).
    func pngData() throws -> [UInt8] {
        guard width > 0, height > 0, width <= 32768, height <= 32768 else {
            throw KeepTrackError.unsupported("a \(width)x\(height) preview picture cannot be written as PNG")
        }
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else { throw KeepTrackError.unsupported("libavcodec has no PNG encoder") }
        var context = avcodec_alloc_context3(codec)
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            avcodec_free_context(&context)
            av_frame_free(&frame)
            av_packet_free(&packet)
        }
        guard let context, let frame, let packet else { throw KeepTrackError.io("out of memory encoding the preview") }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_RGB24
        context.pointee.time_base = AVRational(num: 1, den: 1)
        guard avcodec_open2(context, codec, nil) >= 0 else { throw KeepTrackError.unsupported("libavcodec's PNG encoder would not open") }
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
        frame.pointee.pts = 0
        guard av_frame_get_buffer(frame, 0) >= 0, let plane = frame.pointee.data.0 else {
            throw KeepTrackError.io("out of memory for a \(width)x\(height) preview frame")
        }
        let stride = Int(frame.pointee.linesize.0)
        pixels.withUnsafeBufferPointer { source in
            for row in 0..<height {
                (plane + row * stride).update(from: source.baseAddress! + row * width * 3, count: width * 3)
            }
        }
        var status = avcodec_send_frame(context, frame)
        guard status >= 0 else { throw KeepTrackError.io("PNG encoder: \(CodecError.describe(status))") }
        _ = avcodec_send_frame(context, nil)
        var bytes: [UInt8] = []
        while true {
            status = avcodec_receive_packet(context, packet)
            if status == cffmpeg_error_eof() || status == cffmpeg_error_again() { break }
            guard status >= 0 else { throw KeepTrackError.io("PNG encoder: \(CodecError.describe(status))") }
            bytes += UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
            av_packet_unref(packet)
        }
        guard !bytes.isEmpty else { throw KeepTrackError.io("PNG encoder produced nothing") }
        return bytes
    }
}
