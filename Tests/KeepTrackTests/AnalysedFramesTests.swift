import Foundation
import XCTest
import KeepTrackFixtures
@testable import KeepTrackReframePipeline

/// Which frames the analysis of a clip too large to keep decoded (1080p) decodes, counted by FFmpeg's own tools.
final class AnalysedFramesTests: XCTestCase {
    /// x264's B-frames (3, with a B-pyramid) leave the I- and P-frames 4 apart at most: the analysis decodes those only.
    /// Told they are 1 apart (as if an encoder coded its P-frames as B slices), it finds them sparser than that and
    /// analyses the referenced frames instead, exactly as when B-frames are never skipped.
    func testA1080pClipIsAnalysedOnItsIAndPFramesAndOnItsReferencedFramesWhenThoseAreSparser() throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 2).first { $0.name == "drift" })
        let source = try writeScene(scene, in: folder)
        guard let probed = runTool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pict_type", "-of", "csv=p=0", source]),
              let referenced = runTool("ffmpeg", ["-v", "error", "-skip_frame", "noref", "-i", source, "-map", "0:v", "-f", "framemd5", "-"]) else {
            throw unavailable("ffprobe and ffmpeg are needed")
        }
        let types = probed.out.split(separator: "\n").map { $0.split(separator: ",").first.map(String.init) ?? "" }  // "I," with side data
        let iAndP = types.filter { $0 == "I" || $0 == "P" }.count
        let referencedCount = referenced.out.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        XCTAssertEqual(types.count, scene.frameCount)
        XCTAssertLessThan(iAndP, referencedCount, "the B-pyramid's middle B-frames are referenced")
        XCTAssertLessThan(referencedCount, scene.frameCount)

        func analyse(_ name: String, _ change: (inout ReframeOptions) -> Void) throws -> ReframeSummary {
            var options = ReframeOptions()
            options.planOnly = true
            options.planOutput = folder.path("\(name).json")
            change(&options)
            return try Reframer.run(input: source, output: "", options: options)
        }
        let anchors = try analyse("anchors") { _ in }
        XCTAssertEqual(anchors.decodedForAnalysis, iAndP)
        let fellBack = try analyse("fell-back") { $0.assumedAnchorSpacing = 1 }
        XCTAssertEqual(fellBack.decodedForAnalysis, referencedCount)
        let referencedOnly = try analyse("referenced") { $0.bFrameSkippingSpacing = 0 }
        XCTAssertEqual(referencedOnly.decodedForAnalysis, referencedCount)
        XCTAssertEqual(fellBack.path?.offsets, referencedOnly.path?.offsets)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: folder.path("fell-back.json"))),
                       try Data(contentsOf: URL(fileURLWithPath: folder.path("referenced.json"))))
        // The plan from the I- and P-frames follows the drift as well (ground truth: the face inside the crop).
        let path = try XCTUnwrap(anchors.path)
        let outside = (0..<scene.frameCount).filter { !path.rect(frame: $0).contains(scene.faceRect(frame: $0)) }
        XCTAssertEqual(outside, [], "frames whose face the crop does not hold")
    }

    /// Other encoders' structures, judged by ffprobe's picture types: x264 allowed 16 B-frames in a row (I- and
    /// P-frames more than 4 apart: the referenced frames are analysed) and x265 with 3 (HEVC: I- and P-frames only).
    func testOtherFrameStructuresAreAnalysedByTheSpacingFFprobeSees() throws {
        let folder = TemporaryFolder()
        let encodings: [(name: String, arguments: [String])] = [
            ("x264-16-b-frames", ["-c:v", "libx264", "-preset", "medium", "-bf", "16", "-x264-params", "b-adapt=2"]),
            ("x265-3-b-frames", ["-c:v", "libx265", "-preset", "fast", "-x265-params", "bframes=3:log-level=error", "-tag:v", "hvc1"]),
        ]
        var spacings: [Int] = []
        for encoding in encodings {
            let source = folder.path("\(encoding.name).mp4")
            guard let made = runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=2"] + encoding.arguments
                                                + ["-pix_fmt", "yuv420p", source]), made.code == 0,
                  let probed = runTool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pict_type", "-of", "csv=p=0", source]),
                  let referenced = runTool("ffmpeg", ["-v", "error", "-skip_frame", "noref", "-i", source, "-map", "0:v", "-f", "framemd5", "-"]) else {
                throw unavailable("ffmpeg with libx264 and libx265, and ffprobe, are needed")
            }
            // Picture types in presentation order: the largest distance between two I- or P-frames (from the start for the first).
            let types = probed.out.split(separator: "\n").map { $0.split(separator: ",").first.map(String.init) ?? "" }
            let anchors = types.indices.filter { types[$0] == "I" || types[$0] == "P" }
            let spacing = zip([-1] + anchors, anchors).map { $1 - $0 }.max() ?? 0
            spacings.append(spacing)
            var options = ReframeOptions()
            options.planOnly = true
            options.planOutput = folder.path("\(encoding.name).json")
            let summary = try Reframer.run(input: source, output: "", options: options)
            let expected = spacing <= 4 ? anchors.count : referenced.out.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
            XCTAssertEqual(summary.decodedForAnalysis, expected, "\(encoding.name): I- and P-frames at most \(spacing) apart")
        }
        XCTAssertGreaterThan(spacings[0], 4, "x264 made runs of more than 3 B-frames")
        XCTAssertLessThanOrEqual(spacings[1], 4)
    }
}
