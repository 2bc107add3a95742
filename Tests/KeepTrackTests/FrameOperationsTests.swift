import XCTest
import CFFmpeg
@testable import KeepTrackReframePipeline
import KeepTrackFraming

final class FrameOperationsTests: XCTestCase {
    /// The luma grid turned upright: for every rotation of a stored 650×370 picture (blocks of 10×10, 10 pixels to
    /// spare each way), a block lit in the stored grid lights the turned grid's block whose displayed rectangle
    /// `storedRect` (written for the crops) maps back onto that stored block.
    func testTheUprightGridPutsEachBlockWhereThePictureShowsIt() throws {
        for rotation in [0, 90, 180, 270] {
            let orientation = DisplayOrientation(rotation: rotation, storedWidth: 650, storedHeight: 370)
            for (column, row) in [(0, 0), (63, 0), (0, 35), (63, 35), (17, 9), (40, 30)] {
                var stored = [UInt8](repeating: 0, count: 64 * 36)
                stored[row * 64 + column] = 255
                let upright = try XCTUnwrap(FrameOperations.uprightThumbnail(stored, orientation: orientation))
                let grid = FrameOperations.uprightGrid(orientation)
                XCTAssertEqual(Double(grid.columns) * grid.blockWidth + grid.originX <= Double(orientation.displayWidth), true)
                let lit = try XCTUnwrap(upright.firstIndex(of: 255))
                let shown = (x: Int(grid.originX + Double(lit % grid.columns) * grid.blockWidth),
                             y: Int(grid.originY + Double(lit / grid.columns) * grid.blockHeight),
                             width: Int(grid.blockWidth), height: Int(grid.blockHeight))
                let back = orientation.storedRect(display: shown)
                XCTAssertEqual([back.x, back.y, back.width, back.height], [column * 10, row * 10, 10, 10], "rotation \(rotation), block (\(column), \(row))")
            }
        }
        XCTAssertNil(FrameOperations.uprightThumbnail([], orientation: DisplayOrientation(rotation: 90, storedWidth: 100, storedHeight: 60)))
    }

    /// A stored 4x2 picture with distinct pixels; for every rotation, cropping the stored rectangle that
    /// `storedRect` names and rotating it gives exactly the displayed crop.
    func testRotatedCropsMatchTheDisplayedPicture() {
        let width = 4, height = 2
        let stored: [UInt8] = (0..<(width * height)).map { UInt8($0 + 1) }
        for rotation in [0, 90, 180, 270] {
            let orientation = DisplayOrientation(rotation: rotation, storedWidth: width, storedHeight: height)
            // The whole displayed picture, by rotating everything.
            var display = [UInt8](repeating: 0, count: width * height)
            stored.withUnsafeBufferPointer { source in
                display.withUnsafeMutableBufferPointer { out in
                    FrameOperations.rotate(source.baseAddress!, sourceStride: width, width: width, height: height, bytesPerPixel: 1,
                                           rotation: rotation, into: out.baseAddress!, destinationStride: orientation.displayWidth)
                }
            }
            // The displayed picture's rotation is clockwise: the stored top-left ends up top-right for 90°.
            if rotation == 90 { XCTAssertEqual(display[orientation.displayWidth - 1], stored[0]) }
            if rotation == 270 { XCTAssertEqual(display[(orientation.displayHeight - 1) * orientation.displayWidth], stored[0]) }
            // A 1x2 (or 2x1) crop somewhere in the displayed picture.
            let crop = (x: orientation.displayWidth - 1, y: 0, width: 1, height: min(2, orientation.displayHeight))
            let rect = orientation.storedRect(display: crop)
            var cropped = [UInt8](repeating: 0, count: crop.width * crop.height)
            stored.withUnsafeBufferPointer { source in
                cropped.withUnsafeMutableBufferPointer { out in
                    FrameOperations.rotate(source.baseAddress! + rect.y * width + rect.x, sourceStride: width, width: rect.width,
                                           height: rect.height, bytesPerPixel: 1, rotation: rotation, into: out.baseAddress!,
                                           destinationStride: crop.width)
                }
            }
            let expected = (0..<crop.height).flatMap { y in (0..<crop.width).map { x in display[(crop.y + y) * orientation.displayWidth + crop.x + x] } }
            XCTAssertEqual(cropped, expected, "rotation \(rotation)")
        }
    }

    func testHistogramDifferenceIsZeroForSameAndOneForDisjoint() {
        XCTAssertEqual(UncertainCut.distance([0.5, 0.5, 0], [0.5, 0.5, 0]), 0)
        XCTAssertEqual(UncertainCut.distance([1, 0], [0, 1]), 1)
    }

    func testMotionBoxIsWhereBlocksChangedAndNilForAPanOrNothing() throws {
        let still = [UInt8](repeating: 100, count: 64 * 36)
        var moved = still
        for row in 10..<20 { for column in 40..<44 { moved[row * 64 + column] = 160 } }
        let box = try XCTUnwrap(FrameOperations.motionBox(from: still, to: moved, width: 1920, height: 1080))
        XCTAssertEqual(box.x, 40 * 30)
        XCTAssertEqual(box.width, 4 * 30)
        XCTAssertEqual(box.y, 10 * 30)
        XCTAssertNil(FrameOperations.motionBox(from: still, to: still, width: 1920, height: 1080), "nothing moved")
        XCTAssertNil(FrameOperations.motionBox(from: still, to: [UInt8](repeating: 180, count: 64 * 36), width: 1920, height: 1080), "everything changed")
        XCTAssertNil(FrameOperations.motionBox(from: [], to: moved, width: 1920, height: 1080))
    }

    /// The histogram and the thumbnail are computed on (nearly) every analysed frame, so they are written for
    /// speed; they must give exactly what the plain definition gives: every 4th sample of every 4th row.
    func testHistogramAndThumbnailMatchTheirPlainDefinitionAtAnySize() throws {
        var generator = SystemRandomNumberGenerator()
        for (width, height, bitDepth) in [(1920, 1080, 8), (426, 240, 8), (258, 146, 8), (1001, 577, 8), (960, 540, 10), (262, 150, 10), (200, 120, 8)] {
            let frame = try XCTUnwrap(av_frame_alloc())
            defer { var pointer: UnsafeMutablePointer<AVFrame>? = frame; av_frame_free(&pointer) }
            frame.pointee.width = Int32(width)
            frame.pointee.height = Int32(height)
            frame.pointee.format = (bitDepth > 8 ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P).rawValue
            XCTAssertEqual(av_frame_get_buffer(frame, 0), 0)
            let rowBytes = Int(frame.pointee.linesize.0), plane = try XCTUnwrap(frame.pointee.data.0)
            // Smooth regions with noise, so both the bins and the block means vary.
            for y in 0..<height {
                for x in 0..<width {
                    let value = (x * 7 + y * 3) % (1 << bitDepth) ^ Int(generator.next() % 16)
                    if bitDepth > 8 {
                        UnsafeMutableRawPointer(plane + y * rowBytes).storeBytes(of: UInt16(value & 1023), toByteOffset: x * 2, as: UInt16.self)
                    } else {
                        plane[y * rowBytes + x] = UInt8(value & 255)
                    }
                }
            }
            func sample(_ x: Int, _ y: Int) -> Int {
                bitDepth > 8 ? Int(UnsafeRawPointer(plane + y * rowBytes).load(fromByteOffset: x * 2, as: UInt16.self)) : Int(plane[y * rowBytes + x])
            }
            var bins = [Int](repeating: 0, count: 32)
            for y in stride(from: 0, to: height, by: 4) {
                for x in stride(from: 0, to: width, by: 4) { bins[min(sample(x, y) >> (bitDepth - 5), 31)] += 1 }
            }
            let total = Double(bins.reduce(0, +))
            XCTAssertEqual(FrameOperations.lumaHistogram(frame, bitDepth: bitDepth), bins.map { Double($0) / total }, "\(width)x\(height)")
            let blockWidth = width / 64, blockHeight = height / 36
            var sums = [Int](repeating: 0, count: 64 * 36), counts = sums
            for y in stride(from: 0, to: blockHeight * 36, by: 4) {
                for x in stride(from: 0, to: blockWidth * 64, by: 4) {
                    let block = (y / blockHeight) * 64 + x / blockWidth
                    sums[block] += sample(x, y) >> (bitDepth - 8)
                    counts[block] += 1
                }
            }
            // Too small for 64×36 blocks of 4×4 samples: no thumbnail (the histogram alone tells cuts apart).
            let thumbnail = width < 256 || height < 144 ? [] : zip(sums, counts).map { UInt8(min(255, $0 / max($1, 1))) }
            XCTAssertEqual(FrameOperations.thumbnail(frame, bitDepth: bitDepth), thumbnail, "\(width)x\(height)")
            let both = FrameOperations.histogramAndThumbnail(frame, bitDepth: bitDepth)
            XCTAssertEqual(both.histogram, bins.map { Double($0) / total }, "\(width)x\(height), one pass")
            XCTAssertEqual(both.thumbnail, thumbnail, "\(width)x\(height), one pass")
        }
    }
}
