import CFFmpeg
import KeepTrack
import KeepTrackFraming
import KeepTrackTranscode

/// How stored frames are shown: the clockwise rotation of the track matrix (iPhone portrait files are
/// stored landscape and rotated 90°), and the sizes before and after it.
/// How a video track's stored picture is shown: its rotation (clockwise degrees: 0, 90, 180, 270) and sizes.
public struct DisplayOrientation: Equatable, Sendable {
    public let rotation: Int
    public let storedWidth: Int
    public let storedHeight: Int

    public init(rotation: Int, storedWidth: Int, storedHeight: Int) {
        self.rotation = rotation
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
    }

    public var displayWidth: Int { rotation % 180 == 0 ? storedWidth : storedHeight }
    public var displayHeight: Int { rotation % 180 == 0 ? storedHeight : storedWidth }

    /// The stored-frame rectangle that, once rotated, is `rect` of the displayed picture.
    func storedRect(display rect: (x: Int, y: Int, width: Int, height: Int)) -> (x: Int, y: Int, width: Int, height: Int) {
        switch rotation {
        case 90: return (rect.y, storedHeight - rect.x - rect.width, rect.height, rect.width)
        case 180: return (storedWidth - rect.x - rect.width, storedHeight - rect.y - rect.height, rect.width, rect.height)
        case 270: return (storedWidth - rect.y - rect.height, rect.x, rect.height, rect.width)
        default: return rect
        }
    }
}

enum FrameOperations {
    /// Copies a `width`×`height` block of `bytesPerPixel`-byte pixels, rotated clockwise by `rotation`.
    static func rotate(_ source: UnsafePointer<UInt8>, sourceStride: Int, width: Int, height: Int, bytesPerPixel: Int,
                       rotation: Int, into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int) {
        let outWidth = rotation % 180 == 0 ? width : height
        let outHeight = rotation % 180 == 0 ? height : width
        /// The source pixel shown at (outX, outY) of the rotated picture.
        func sourcePoint(_ outX: Int, _ outY: Int) -> (Int, Int) {
            switch rotation {
            case 90: (outY, height - 1 - outX)
            case 180: (width - 1 - outX, height - 1 - outY)
            case 270: (width - 1 - outY, outX)
            default: (outX, outY)
            }
        }
        func copy<Pixel>(_ type: Pixel.Type) {
            for outY in 0..<outHeight {
                let row = UnsafeMutableRawPointer(destination + outY * destinationStride).assumingMemoryBound(to: Pixel.self)
                for outX in 0..<outWidth {
                    let (x, y) = sourcePoint(outX, outY)
                    row[outX] = UnsafeRawPointer(source + y * sourceStride).assumingMemoryBound(to: Pixel.self)[x]
                }
            }
        }
        switch bytesPerPixel {
        case 1: copy(UInt8.self)
        case 2: copy(UInt16.self)
        default:
            for outY in 0..<outHeight {
                for outX in 0..<outWidth {
                    let (x, y) = sourcePoint(outX, outY)
                    (destination + outY * destinationStride + outX * bytesPerPixel)
                        .update(from: source + y * sourceStride + x * bytesPerPixel, count: bytesPerPixel)
                }
            }
        }
    }

    /// 4:2:0 formats the pipeline handles, and their bytes per sample.
    static func bytesPerSample(_ format: Int32) -> Int? {
        switch AVPixelFormat(rawValue: format) {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: return 1
        case AV_PIX_FMT_YUV420P10LE: return 2
        default: return nil
        }
    }

    /// A 32-bin histogram of the luma plane (every 4th sample of every 4th row), normalised to sum 1.
    static func lumaHistogram(_ frame: UnsafePointer<AVFrame>, bitDepth: Int) -> [Double] {
        histogramAndThumbnail(frame, bitDepth: bitDepth).histogram
    }

    /// The luma plane as a 64×36 grid of block means (8-bit scale, every 4th sample of every 4th row),
    /// to tell whether anything moved between two frames: noise averages out, a moving face does not.
    /// Empty for a picture under 256×144 (blocks of fewer than 4×4 samples).
    static func thumbnail(_ frame: UnsafePointer<AVFrame>, bitDepth: Int) -> [UInt8] {
        histogramAndThumbnail(frame, bitDepth: bitDepth).thumbnail
    }

    /// The chroma planes as a `columns`×`rows` grid of block means (8-bit scale): U blocks, then V blocks, for
    /// `SubjectAppearance`. Nil when a chroma plane has fewer samples than blocks.
    static func colourThumbnail(_ frame: UnsafePointer<AVFrame>, bitDepth: Int, columns: Int, rows: Int) -> [UInt8]? {
        let width = (Int(frame.pointee.width) + 1) / 2, height = (Int(frame.pointee.height) + 1) / 2
        guard width >= columns, height >= rows, let u = frame.pointee.data.1, let v = frame.pointee.data.2 else { return nil }
        let strides = (Int(frame.pointee.linesize.1), Int(frame.pointee.linesize.2))
        // Every second sample of every second row where blocks are 4 samples or more across.
        let step = width >= 4 * columns && height >= 4 * rows ? 2 : 1
        let columnStarts = (0...columns).map { $0 * width / columns }, rowStarts = (0...rows).map { $0 * height / rows }
        var result = [UInt8](repeating: 0, count: 2 * columns * rows)
        func fill<Sample: FixedWidthInteger & UnsignedInteger>(_: Sample.Type, plane: UnsafeMutablePointer<UInt8>, stride: Int, into base: Int) {
            let shift = bitDepth - 8
            for row in 0..<rows {
                var sums = [Int](repeating: 0, count: columns), counts = sums
                var y = rowStarts[row]
                while y < rowStarts[row + 1] {
                    let values = UnsafeRawPointer(plane + y * stride).assumingMemoryBound(to: Sample.self)
                    for column in 0..<columns {
                        var x = columnStarts[column]
                        while x < columnStarts[column + 1] {
                            sums[column] += Int(values[x]) >> shift
                            counts[column] += 1
                            x += step
                        }
                    }
                    y += step
                }
                for column in 0..<columns { result[base + row * columns + column] = UInt8(min(255, sums[column] / max(counts[column], 1))) }
            }
        }
        if bitDepth > 8 {
            fill(UInt16.self, plane: u, stride: strides.0, into: 0)
            fill(UInt16.self, plane: v, stride: strides.1, into: columns * rows)
        } else {
            fill(UInt8.self, plane: u, stride: strides.0, into: 0)
            fill(UInt8.self, plane: v, stride: strides.1, into: columns * rows)
        }
        return result
    }

    /// `lumaHistogram` and `thumbnail` of the same frame in one pass over its samples (they read the same
    /// ones): the analysis needs both on every frame, and a second pass over a 1080p plane cost as much as
    /// the first (perf on scene:still: 114 + 58 samples at 2 kHz as two passes).
    static func histogramAndThumbnail(_ frame: UnsafePointer<AVFrame>, bitDepth: Int) -> (histogram: [Double], thumbnail: [UInt8]) {
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        guard let plane = frame.pointee.data.0, width > 0, height > 0 else { return ([Double](repeating: 0, count: 32), []) }
        let stride = Int(frame.pointee.linesize.0)
        let row = { (y: Int) in UnsafeRawPointer(plane + y * stride) }
        return bitDepth > 8
            ? sampled(row, UInt16.self, width: width, height: height, binShift: bitDepth - 5, meanShift: bitDepth - 8)
            : sampled(row, UInt8.self, width: width, height: height, binShift: 3, meanShift: 0)
    }

    private static func sampled<Sample: FixedWidthInteger & UnsignedInteger>(
        _ row: (Int) -> UnsafeRawPointer, _: Sample.Type, width: Int, height: Int, binShift: Int, meanShift: Int
    ) -> (histogram: [Double], thumbnail: [UInt8]) {
        let columns = 64, rows = 36
        let blocks = width >= columns * 4 && height >= rows * 4
        let blockWidth = width / columns, blockHeight = blocks ? height / rows : 0
        let firstSample = (0...columns).map { (($0 * blockWidth) + 3) / 4 * 4 }
        var bins = [Int](repeating: 0, count: 64), sums = [Int](repeating: 0, count: columns * rows)
        bins.withUnsafeMutableBufferPointer { bins in
            sums.withUnsafeMutableBufferPointer { sums in
                // Two interleaved histograms, so successive samples of one brightness do not wait on each other.
                var y = 0
                while y < height {
                    let values = row(y).assumingMemoryBound(to: Sample.self)
                    var x = 0
                    if y < blockHeight * rows {
                        let block = (y / blockHeight) * columns
                        for column in 0..<columns {
                            var sum = 0, bank = 0
                            let end = firstSample[column + 1]
                            x = firstSample[column]
                            while x < end {
                                let value = Int(values[x])
                                sum += value >> meanShift
                                bins[bank + min(value >> binShift, 31)] += 1
                                bank ^= 32
                                x += 4
                            }
                            sums[block + column] += sum
                        }
                    }
                    while x < width {
                        bins[min(Int(values[x]) >> binShift, 31)] += 1
                        x += 4
                    }
                    y += 4
                }
            }
        }
        let merged = (0..<32).map { bins[$0] + bins[$0 + 32] }
        let count = Double(max(1, merged.reduce(0, +)))
        guard blocks else { return (merged.map { Double($0) / count }, []) }
        // Every block has the same number of samples per row: the samples in its columns times its rows.
        let thumbnail = (0..<(columns * rows)).map { index -> UInt8 in
            let column = index % columns, blockRow = index / columns
            let rowsSampled = ((blockRow + 1) * blockHeight + 3) / 4 - (blockRow * blockHeight + 3) / 4
            let samples = (firstSample[column + 1] - firstSample[column]) / 4 * rowsSampled
            return UInt8(min(255, sums[index] / max(samples, 1)))
        }
        return (merged.map { Double($0) / count }, thumbnail)
    }

    /// The blocks of the 64×36 luma grid (`histogramAndThumbnail`) on the displayed picture: 36×64 for a quarter
    /// turn; the stored grid starts at the stored picture's corner, so the turned one may start short of the
    /// displayed picture's edge.
    static func uprightGrid(_ orientation: DisplayOrientation) -> StillPictures.Grid {
        let columns = 64, rows = 36
        let blockWidth = Double(orientation.storedWidth / columns), blockHeight = Double(orientation.storedHeight / rows)
        let spareX = Double(orientation.storedWidth) - Double(columns) * blockWidth
        let spareY = Double(orientation.storedHeight) - Double(rows) * blockHeight
        switch orientation.rotation {
        case 90: return StillPictures.Grid(columns: rows, rows: columns, blockWidth: blockHeight, blockHeight: blockWidth, originX: spareY)
        case 180: return StillPictures.Grid(columns: columns, rows: rows, blockWidth: blockWidth, blockHeight: blockHeight, originX: spareX, originY: spareY)
        case 270: return StillPictures.Grid(columns: rows, rows: columns, blockWidth: blockHeight, blockHeight: blockWidth, originY: spareX)
        default: return StillPictures.Grid(columns: columns, rows: rows, blockWidth: blockWidth, blockHeight: blockHeight)
        }
    }

    /// A stored frame's 64×36 thumbnail turned as `orientation` shows the frame, in the order of `uprightGrid`'s
    /// blocks; nil when it is not a whole grid.
    static func uprightThumbnail(_ thumbnail: [UInt8], orientation: DisplayOrientation) -> [UInt8]? {
        let columns = 64, rows = 36
        guard thumbnail.count == columns * rows else { return nil }
        switch orientation.rotation {
        case 90:  // stored (c, r) is shown at column rows-1-r, row c
            return (0..<(columns * rows)).map { index in thumbnail[(rows - 1 - index % rows) * columns + index / rows] }
        case 180:  // stored (c, r) is shown at column columns-1-c, row rows-1-r
            return Array(thumbnail.reversed())
        case 270:  // stored (c, r) is shown at column r, row columns-1-c
            return (0..<(columns * rows)).map { index in thumbnail[(index % rows) * columns + columns - 1 - index / rows] }
        default:
            return thumbnail
        }
    }

    /// The blocks of two thumbnails whose means moved by 16 or more (as `motionBox` counts them; noise does not),
    /// or nil when more than `limit` did or the thumbnails cannot be compared.
    static func changedBlocks(_ a: [UInt8], _ b: [UInt8], atMost limit: Int) -> [UInt16]? {
        guard a.count == b.count, !a.isEmpty, a.count <= Int(UInt16.max) else { return nil }
        var changed: [UInt16] = []
        for index in a.indices where abs(Int(a[index]) - Int(b[index])) >= 16 {
            guard changed.count < limit else { return nil }
            changed.append(UInt16(index))
        }
        return changed
    }

    /// Where the picture changed between two thumbnails, in pixels of a `width`×`height` frame: the middle
    /// 80 % of the changed blocks' columns (a block changed when its mean moved by 16 or more), from the
    /// highest changed row down, as tall as it is wide. Nil when nothing changed, when the thumbnails cannot
    /// be compared, or when more than a quarter of the picture changed (a pan, a cut, a flash: no subject).
    static func motionBox(from a: [UInt8], to b: [UInt8], width: Int, height: Int) -> FrameRect? {
        let columns = 64, rows = 36
        guard a.count == columns * rows, b.count == a.count else { return nil }
        var changedColumns: [Int] = [], topRow = rows
        for index in a.indices where abs(Int(a[index]) - Int(b[index])) >= 16 {
            changedColumns.append(index % columns)
            topRow = min(topRow, index / columns)
        }
        guard changedColumns.count >= 2, changedColumns.count * 4 <= a.count else { return nil }
        changedColumns.sort()
        let low = changedColumns[changedColumns.count / 10], high = changedColumns[(changedColumns.count * 9) / 10]
        let blockWidth = Double(width / columns), blockHeight = Double(height / rows)
        let boxWidth = Double(high - low + 1) * blockWidth
        return FrameRect(x: Double(low) * blockWidth, y: Double(topRow) * blockHeight, width: boxWidth, height: boxWidth)
    }

    /// How different two successive pictures are, for finding cuts (`ShotDetector`): the luma histograms'
    /// distance (0 identical, 1 disjoint) plus `changedBlocksWeight` × the share of thumbnail blocks whose
    /// mean moved by 16 or more, at most 1. The histograms alone missed a hard cut between two shots of the
    /// same stage lighting (stage_cuts_audience, wide shot to over the shoulder: 0.19 against the 0.3 a cut
    /// needs; with half the 46 % of blocks that changed, 0.42). A pan changes many blocks on every frame,
    /// which the detector's comparison with the neighbouring frames sets apart (basketball_running's pan:
    /// at most 0.24); a person moving changes few (the step scene's jump: 14 % of the blocks).
    static func pictureDifference(histograms: ([Double], [Double]), thumbnails: ([UInt8], [UInt8])) -> Double {
        min(1, UncertainCut.distance(histograms.0, histograms.1) + changedBlocksWeight * changedShare(thumbnails.0, thumbnails.1))
    }

    static let changedBlocksWeight = 0.5

    /// The share of blocks whose mean moved by 16 or more between two thumbnails (0 when they cannot be compared).
    static func changedShare(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        return Double(zip(a, b).reduce(0) { $0 + (abs(Int($1.0) - Int($1.1)) >= 16 ? 1 : 0) }) / Double(a.count)
    }

    /// The largest difference between two thumbnails' blocks (255 when they cannot be compared).
    static func largestChange(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count, !a.isEmpty else { return 255 }
        return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }
}

/// A packed BGR24 picture for the face detector: `height` rows of `width` pixels, `rowStride` bytes apart,
/// the first at byte `offset` of `bgr`.
struct DetectionPicture: Sendable {
    var bgr: [UInt8]
    var width: Int
    var height: Int
    var rowStride: Int
    var offset = 0

    /// The part of the picture inside `region` (clamped to it), sharing its bytes.
    func region(_ region: DetectionRegions.Region) -> DetectionPicture {
        let x = min(max(0, region.x), width - 1), y = min(max(0, region.y), height - 1)
        return DetectionPicture(bgr: bgr, width: min(region.width, width - x), height: min(region.height, height - y),
                                rowStride: rowStride, offset: offset + y * rowStride + x * 3)
    }
}

/// Scales decoded frames to small BGR pictures in display orientation for the face detector.
///
/// swscale's packed-RGB writers (the unscaled YUV→BGR24 converter among them) store several pixels at a
/// time and write up to 42 bytes past the last pixel of a row (measured with FFmpeg 5.1 over every width
/// 160–1000 at heights 144, 240, 360, scaled and unscaled). Into a tightly packed buffer that overran the
/// heap block at 426×240 and other widths, and glibc aborted later inside the detector's next malloc.
/// So rows here are `rowPadding` bytes longer than the picture and 64-byte aligned (`paddedStride`);
/// the detector is told the stride and never reads the padding.
final class DetectionScaler {
    /// Bytes kept free after each row's last pixel for the converter's wide stores.
    static let rowPadding = 64
    /// The row stride for `width` BGR pixels: room for `rowPadding` more bytes, rounded up to 64.
    static func paddedStride(width: Int) -> Int { (width * 3 + rowPadding + 63) / 64 * 64 }

    let orientation: DisplayOrientation
    let scaledWidth: Int, scaledHeight: Int  // stored orientation
    let scaledStride: Int
    private var context: OpaquePointer?
    private(set) var scaled: [UInt8]
    private var display: [UInt8]
    var displayWidth: Int { orientation.rotation % 180 == 0 ? scaledWidth : scaledHeight }
    var displayHeight: Int { orientation.rotation % 180 == 0 ? scaledHeight : scaledWidth }
    /// Display pixels per detection pixel.
    var scale: Double { Double(orientation.displayWidth) / Double(displayWidth) }

    init(orientation: DisplayOrientation, longestSide: Int, pixelFormat: Int32) throws {
        self.orientation = orientation
        let factor = min(1, Double(longestSide) / Double(max(orientation.storedWidth, orientation.storedHeight)))
        scaledWidth = max(2, Int((Double(orientation.storedWidth) * factor / 2).rounded()) * 2)
        scaledHeight = max(2, Int((Double(orientation.storedHeight) * factor / 2).rounded()) * 2)
        scaledStride = Self.paddedStride(width: scaledWidth)
        scaled = [UInt8](repeating: 0, count: scaledStride * scaledHeight)
        display = orientation.rotation == 0 ? [] : [UInt8](repeating: 0, count: scaledWidth * scaledHeight * 3)
        context = sws_getContext(Int32(orientation.storedWidth), Int32(orientation.storedHeight), AVPixelFormat(rawValue: pixelFormat),
                                 Int32(scaledWidth), Int32(scaledHeight), AV_PIX_FMT_BGR24, SWS_BILINEAR, nil, nil, nil)
        guard context != nil else { throw KeepTrackError.unsupported("cannot scale this pixel format for face detection") }
    }

    deinit { sws_freeContext(context) }

    /// The frame as packed BGR in display orientation (`displayWidth` × `displayHeight`).
    func picture(_ frame: UnsafePointer<AVFrame>) -> DetectionPicture {
        let stride = Int32(scaledStride)
        scaled.withUnsafeMutableBufferPointer { output in
            var planes: [UnsafeMutablePointer<UInt8>?] = [output.baseAddress, nil, nil, nil]
            var strides: [Int32] = [stride, 0, 0, 0]
            withUnsafePointer(to: frame.pointee.data) { data in
                withUnsafePointer(to: frame.pointee.linesize) { linesize in
                    data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sourcePlanes in
                        linesize.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                            _ = sws_scale(context, sourcePlanes, sourceStrides, 0, frame.pointee.height, &planes, &strides)
                        }
                    }
                }
            }
        }
        guard orientation.rotation != 0 else {
            return DetectionPicture(bgr: scaled, width: scaledWidth, height: scaledHeight, rowStride: scaledStride)
        }
        scaled.withUnsafeBufferPointer { source in
            display.withUnsafeMutableBufferPointer { destination in
                FrameOperations.rotate(source.baseAddress!, sourceStride: scaledStride, width: scaledWidth, height: scaledHeight,
                                       bytesPerPixel: 3, rotation: orientation.rotation, into: destination.baseAddress!,
                                       destinationStride: displayWidth * 3)
            }
        }
        return DetectionPicture(bgr: display, width: displayWidth, height: displayHeight, rowStride: displayWidth * 3)
    }
}
