import Foundation
import XCTest
import CFaceDetect
import KeepTrackFaces
import KeepTrackFraming

/// The test photograph the set-up fetched (scikit-image's public-domain astronaut.png, sha256-pinned).
enum TestPhotographs {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".deps/testdata")
    static let astronaut = folder.appendingPathComponent("astronaut.png").path

    static func require(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else {
            throw unavailable("\(path) not found: run `make setup` (scripts/fetch-deps.sh) first")
        }
        return path
    }

    /// Decodes an image to packed BGR24 with the ffmpeg CLI, optionally scaled.
    static func bgr(_ path: String, width: Int, height: Int) throws -> [UInt8] {
        let arguments = ["-v", "error", "-i", path, "-vf", "scale=\(width):\(height)", "-f", "rawvideo",
                         "-pix_fmt", "bgr24", "-"]
        let data = try XCTUnwrap(runToolData("ffmpeg", arguments), "ffmpeg is not installed")
        XCTAssertEqual(data.count, width * height * 3)
        return [UInt8](data)
    }
}

final class FaceDetectorTests: XCTestCase {
    /// keeptrack-media starts without libfacedetection (only reframe looks for faces); the first detection opens it
    /// through the executable's RUNPATH and finds the face as linked code did.
    func testLibfacedetectionIsOpenedByTheFirstDetection() throws {
        let media = URL(fileURLWithPath: try RemuxProcessTests.binary()).deletingLastPathComponent().appendingPathComponent("keeptrack-media").path
        let dynamic = try XCTUnwrap(runTool("readelf", ["-d", media]), "readelf reads \(media)")
        XCTAssertTrue(dynamic.out.contains("[libavcodec.so."), "the check reads the executable's NEEDED entries")
        XCTAssertFalse(dynamic.out.contains("facedetection"), "keeptrack-media links libfacedetection")
        XCTAssertTrue(dynamic.out.contains("lib/keeptrack/yuface"), "the RUNPATH the detector's dlopen uses")
        let pixels = try TestPhotographs.bgr(try TestPhotographs.require(TestPhotographs.astronaut), width: 512, height: 512)
        let faces = try FaceDetector().detect(bgr: pixels, width: 512, height: 512)
        XCTAssertEqual(cfd_is_loaded(), 1, String(cString: cfd_failure()))
        XCTAssertEqual(faces.count, 1, "\(faces)")
    }

    // astronaut.png is 512x512; Eileen Collins' face is in the upper middle, box about x 178, y 63, 89x112 (checked by eye in the image).
    func testFindsTheAstronautsFaceWhereItIs() throws {
        let path = try TestPhotographs.require(TestPhotographs.astronaut)
        let pixels = try TestPhotographs.bgr(path, width: 512, height: 512)
        let faces = try FaceDetector().detect(bgr: pixels, width: 512, height: 512)
        XCTAssertEqual(faces.count, 1, "\(faces)")
        let face = try XCTUnwrap(faces.first)
        XCTAssertGreaterThanOrEqual(face.confidence, 80)
        XCTAssertEqual(face.box.midX, 222, accuracy: 15)
        XCTAssertEqual(face.box.midY, 119, accuracy: 15)
        XCTAssertEqual(face.box.width, 90, accuracy: 30)
    }

    func testScaledDownFaceScalesBackToTheSamePlace() throws {
        let path = try TestPhotographs.require(TestPhotographs.astronaut)
        let full = try XCTUnwrap(FaceDetector().detect(bgr: TestPhotographs.bgr(path, width: 512, height: 512),
                                                       width: 512, height: 512).first)
        let half = try XCTUnwrap(FaceDetector().detect(bgr: TestPhotographs.bgr(path, width: 256, height: 256),
                                                       width: 256, height: 256).first)
        let upscaled = half.box.scaled(by: 2)
        XCTAssertGreaterThan(upscaled.intersectionOverUnion(full.box), 0.6)
    }

    func testNoFaceInAFlatImageAndStrideIsHonoured() throws {
        let width = 320, height = 200, stride = 320 * 3 + 64
        let grey = [UInt8](repeating: 128, count: stride * height)
        XCTAssertEqual(try FaceDetector().detect(bgr: grey, width: width, height: height, rowStride: stride), [])
    }

    func testRejectsABufferTooSmallForTheImage() {
        XCTAssertThrowsError(try FaceDetector().detect(bgr: [UInt8](repeating: 0, count: 100), width: 64, height: 64))
    }
}
