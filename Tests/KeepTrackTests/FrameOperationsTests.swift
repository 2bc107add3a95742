import XCTest
@testable import KeepTrackReframePipeline
import KeepTrackFraming

final class FrameOperationsTests: XCTestCase {
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
}
