import CFFmpeg
import Foundation
import XCTest
import KeepTrack
import KeepTrackFaces
import KeepTrackFraming
@testable import KeepTrackReframePipeline

/// Frame sizes that used to corrupt the heap (426×240 aborted with `malloc(): corrupted top size`):
/// swscale's BGR24 writers store past a row's last pixel, and the detection buffer was packed tightly.
/// Every size goes through the same scaler and detector the analysis uses, in process, on synthetic frames.
final class DetectionSizeTests: XCTestCase {
    /// A 4:2:0 frame with luma bands, a moving edge and mid chroma: every converted BGR byte is non-zero.
    private func gradientFrame(width: Int, height: Int) throws -> UnsafeMutablePointer<AVFrame> {
        let frame = try XCTUnwrap(av_frame_alloc())
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        XCTAssertGreaterThanOrEqual(av_frame_get_buffer(frame, 0), 0)
        let luma = try XCTUnwrap(frame.pointee.data.0), lumaStride = Int(frame.pointee.linesize.0)
        for y in 0..<height {
            let row = luma + y * lumaStride
            row.update(repeating: UInt8(60 + y % 140), count: width)
            row.update(repeating: 200, count: min(width, y % 97))  // a vertical edge that moves along the rows
        }
        for (plane, stride) in [(frame.pointee.data.1, frame.pointee.linesize.1), (frame.pointee.data.2, frame.pointee.linesize.2)] {
            let plane = try XCTUnwrap(plane)
            for y in 0..<((height + 1) / 2) { (plane + y * Int(stride)).update(repeating: UInt8(118 + y % 20), count: (width + 1) / 2) }
        }
        return frame
    }

    /// Converts one frame of this size and detects on it; returns how many bytes past a row the converter wrote.
    /// With `detected`, a picture whose width, height and row stride the detector already had is not detected on
    /// again (many source widths scale to the same detection picture; the detector sees only those three).
    private func check(width: Int, height: Int, rotation: Int = 0, longestSide: Int = 480, detector: FaceDetector,
                       detected: DetectedSizes? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        var frame: UnsafeMutablePointer<AVFrame>? = try gradientFrame(width: width, height: height)
        defer { av_frame_free(&frame) }
        let orientation = DisplayOrientation(rotation: rotation, storedWidth: width, storedHeight: height)
        let scaler = try DetectionScaler(orientation: orientation, longestSide: longestSide, pixelFormat: AV_PIX_FMT_YUV420P.rawValue)
        let picture = scaler.picture(try XCTUnwrap(frame))
        XCTAssertEqual(picture.bgr.count, picture.rowStride * picture.height, file: file, line: line)
        XCTAssertGreaterThanOrEqual(picture.rowStride, picture.width * 3, file: file, line: line)
        // How far past each row's pixels the converter wrote (the buffer starts zeroed; written bytes are not 0).
        let stride = scaler.scaledStride, pixelBytes = scaler.scaledWidth * 3
        var reach = 0, unconverted = 0
        scaler.scaled.withUnsafeBufferPointer { rows in
            for row in 0..<scaler.scaledHeight {
                let start = row * stride
                if rows[start] == 0 || rows[start + pixelBytes - 1] == 0 { unconverted += 1 }
                var end = start + stride
                while end > start + pixelBytes, rows[end - 1] == 0 { end -= 1 }
                reach = max(reach, end - start - pixelBytes)
            }
        }
        XCTAssertEqual(unconverted, 0, "\(width)x\(height): rows not converted", file: file, line: line)
        XCTAssertLessThanOrEqual(reach, DetectionScaler.rowPadding - 16,
                                 "\(width)x\(height): the converter writes \(reach) bytes past a row, close to the padding",
                                 file: file, line: line)
        if let detected, !detected.insert([picture.width, picture.height, picture.rowStride]) { return reach }
        let faces = try picture.bgr.withUnsafeBytes {
            try detector.detect(bgr: $0, width: picture.width, height: picture.height, rowStride: picture.rowStride)
        }
        XCTAssertEqual(faces, [], "\(width)x\(height): a gradient has no face", file: file, line: line)
        return reach
    }

    func testEveryCommonWidthAtLowHeightsConvertsInsideItsBufferAndDetects() throws {
        let detector = FaceDetector(threads: 1), detected = DetectedSizes()
        var widest = 0
        for height in [144, 240, 360] {
            for width in stride(from: 160, through: 1000, by: 2) {
                widest = max(widest, try check(width: width, height: height, detector: detector, detected: detected))
            }
        }
        // Every width converted and checked; the detector ran once per distinct picture (626: 18 CPU-s, was 32).
        print("DetectionSizeTests: \(detected.count) distinct detection pictures of 1,263 sizes")
        XCTAssertGreaterThan(detected.count, 600)
        // The unscaled converter really does write past the pixels (what overran the tight buffer before).
        XCTAssertGreaterThan(widest, 0)
    }

    func testOddPortraitTinyAndRotatedSizes() throws {
        let detector = FaceDetector(threads: 1)
        let sizes = [(176, 144), (161, 121), (427, 241), (999, 361), (175, 143), (321, 179), (33, 31), (2, 2), (17, 481),
                     (240, 426), (270, 480), (360, 640), (144, 256), (405, 720), (1080, 1920), (1920, 1080), (4096, 2160)]
        for (width, height) in sizes { _ = try check(width: width, height: height, detector: detector) }
        // The reduced picture of detections while the faces are large (DetectionSchedule.Reduction) is as safe.
        let reduced = ReframeOptions().reducedDetectionSize
        XCTAssertLessThan(reduced, 480)
        for (width, height) in sizes { _ = try check(width: width, height: height, longestSide: reduced, detector: detector) }
        for (width, height) in [(426, 240), (458, 240), (300, 240), (1920, 1080)] {
            _ = try check(width: width, height: height, rotation: 90, detector: detector)
        }
    }

    /// The detector itself, given any size and stride it accepts, still finds the face where it is.
    func testFaceIsFoundAtOddSizesAndPaddedStrides() throws {
        let path = try TestPhotographs.require(TestPhotographs.astronaut)
        for (size, padding) in [(427, 0), (301, 7), (241, 64), (480, 1)] {
            let tight = try TestPhotographs.bgr(path, width: size, height: size)
            let stride = size * 3 + padding
            var padded = [UInt8](repeating: 0, count: stride * size)
            for row in 0..<size { padded.replaceSubrange((row * stride)..<(row * stride + size * 3), with: tight[(row * size * 3)..<((row + 1) * size * 3)]) }
            let face = try XCTUnwrap(FaceDetector().detect(bgr: padded, width: size, height: size, rowStride: stride).first, "\(size) px")
            let scale = Double(size) / 512
            XCTAssertEqual(face.box.midX / scale, 222, accuracy: 20, "\(size) px")
            XCTAssertEqual(face.box.midY / scale, 119, accuracy: 20, "\(size) px")
        }
    }

    /// The whole command, as a child process (an abort must fail the test, not the test runner), on sizes that
    /// aborted and on the real 426×240 clip.
    func testReframeRunsOnSizesThatCrashedAndOnTheBasketballClip() throws {
        let folder = TemporaryFolder()
        var inputs: [String] = []
        for (width, height) in [(426, 240), (300, 240), (458, 240), (176, 144), (360, 480)] {
            let path = folder.path("testsrc-\(width)x\(height).mp4")
            let made = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height):r=30:d=1",
                                                        "-f", "lavfi", "-i", "sine=f=440:d=1", "-c:v", "libx264", "-preset", "ultrafast",
                                                        "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path]))
            XCTAssertEqual(made.code, 0)
            inputs.append(path)
        }
        let footage = RealFixtures.folder.appendingPathComponent("footage/basketball_running.mp4").path
        // Without the footage the synthetic sizes still run; the missing clip is then reported (a failure under CI).
        let footageFound = FileManager.default.fileExists(atPath: footage)
        if footageFound { inputs.append(footage) }
        for input in inputs {
            let output = folder.path("out-" + URL(fileURLWithPath: input).lastPathComponent)
            let run = try ChildProcess.run(["reframe", input, output, "--preset", "ultrafast"])
            XCTAssertEqual(run.code, 0, "\(input): \(run.out)")
            let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames",
                                                          "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", output]))
            XCTAssertEqual(probe.code, 0, input)
            XCTAssertGreaterThan(Int(probe.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 0, input)
        }
        if !footageFound { throw unavailable("real footage \(footage) not found: ../shared/fixtures is absent beside this checkout") }
    }
}

/// Detection pictures (width, height, row stride) already given to the detector.
final class DetectedSizes {
    private var sizes: Set<[Int]> = []
    var count: Int { sizes.count }
    /// false when `size` was already there.
    func insert(_ size: [Int]) -> Bool { sizes.insert(size).inserted }
}
