import XCTest
import KeepTrackFraming

/// Where a detection that looks only around the faces known looks.
final class DetectionRegionsTests: XCTestCase {
    typealias Region = DetectionRegions.Region

    func testAStillFaceIsLookedForWithinHalfItsHeightAround() throws {
        let face = FrameRect(x: 200, y: 100, width: 32, height: 40)
        let regions = try XCTUnwrap(DetectionRegions.around(faces: [face], seenOn: 10, previous: face, previousFrame: 0, frame: 20,
                                                            width: 480, height: 270))
        XCTAssertEqual(regions, [Region(x: 180, y: 80, width: 72, height: 80)], "20 px (0.5 × 40) on every side")
        XCTAssertNil(DetectionRegions.around(faces: [], seenOn: 10, previous: nil, previousFrame: nil, frame: 20, width: 480, height: 270))
    }

    /// The region covers where the face was and where its motion since the detection before takes it.
    func testAMovingFaceIsLookedForAheadOfWhereItWas() throws {
        let before = FrameRect(x: 180, y: 100, width: 32, height: 40), latest = FrameRect(x: 200, y: 100, width: 32, height: 40)
        let regions = try XCTUnwrap(DetectionRegions.around(faces: [latest], seenOn: 10, previous: before, previousFrame: 0, frame: 20,
                                                            width: 480, height: 270))
        // 20 px per 10 frames: 20 px more by frame 20; margin 20 + 10 (half the predicted move).
        XCTAssertEqual(regions, [Region(x: 170, y: 70, width: 112, height: 100)])
        let region = regions[0]
        XCTAssertLessThanOrEqual(region.x, 200 - 20)
        XCTAssertGreaterThanOrEqual(region.x + region.width, 220 + 32 + 20, "the predicted face with its margin")
        // A step of more than four face heights is another face, not a motion: nothing is extrapolated.
        let far = FrameRect(x: 20, y: 100, width: 32, height: 40)
        XCTAssertEqual(DetectionRegions.around(faces: [latest], seenOn: 10, previous: far, previousFrame: 0, frame: 20, width: 480, height: 270),
                       [Region(x: 180, y: 80, width: 72, height: 80)])
    }

    func testFacesFarApartGetARegionEachAndOverlappingOnesOne() throws {
        let left = FrameRect(x: 40, y: 100, width: 24, height: 30), right = FrameRect(x: 400, y: 100, width: 24, height: 30)
        let apart = try XCTUnwrap(DetectionRegions.around(faces: [left, right], seenOn: 0, previous: nil, previousFrame: nil, frame: 10,
                                                          width: 480, height: 270))
        XCTAssertEqual(apart.count, 2)
        let near = FrameRect(x: 80, y: 110, width: 24, height: 30)
        let together = try XCTUnwrap(DetectionRegions.around(faces: [left, near], seenOn: 0, previous: nil, previousFrame: nil, frame: 10,
                                                             width: 480, height: 270))
        XCTAssertEqual(together.count, 1)
        XCTAssertTrue(together[0].x <= 40 - 15 && together[0].x + together[0].width >= 104 + 15, "both faces and their margins")
    }

    func testRegionsStayInsideThePictureAndAreNotTooSmall() throws {
        let corner = FrameRect(x: 0, y: 0, width: 10, height: 12)
        let regions = try XCTUnwrap(DetectionRegions.around(faces: [corner], seenOn: 0, previous: nil, previousFrame: nil, frame: 10,
                                                            width: 480, height: 270))
        XCTAssertEqual(regions, [Region(x: 0, y: 0, width: 32, height: 32)], "clamped at the corner, grown to the minimum side")
    }

    /// A face partly outside the picture, or moving out of it, may be anywhere next: the whole picture.
    func testAFaceLeavingThePictureIsLeftToTheWholePicture() {
        let cut = FrameRect(x: 470, y: 10, width: 20, height: 24)
        XCTAssertNil(DetectionRegions.around(faces: [cut], seenOn: 0, previous: nil, previousFrame: nil, frame: 10, width: 480, height: 270))
        let before = FrameRect(x: 410, y: 10, width: 20, height: 24), latest = FrameRect(x: 440, y: 10, width: 20, height: 24)
        XCTAssertNil(DetectionRegions.around(faces: [latest], seenOn: 10, previous: before, previousFrame: 0, frame: 20, width: 480, height: 270),
                     "predicted at x 470–490: leaving")
        XCTAssertNotNil(DetectionRegions.around(faces: [latest], seenOn: 10, previous: latest, previousFrame: 0, frame: 20, width: 480, height: 270),
                        "the same face at rest")
    }

    /// A face so large that its region would cover more than half the picture: look at the whole picture.
    func testLargeFacesAreLeftToTheWholePicture() {
        let large = FrameRect(x: 150, y: 50, width: 140, height: 170)
        XCTAssertNil(DetectionRegions.around(faces: [large], seenOn: 0, previous: nil, previousFrame: nil, frame: 10, width: 480, height: 270))
    }
}
