import Foundation
import XCTest
import KeepTrackFaces
import KeepTrackFixtures
import KeepTrackFraming
import KeepTrackReframePipeline

/// Writes a ReframeScene clip with ffmpeg (skips when ffmpeg or the test photograph is missing).
func writeScene(_ scene: ReframeScene, in folder: TemporaryFolder, codec: ReframeScene.VideoCodec = .h264,
                x264Parameters: String? = nil) throws -> String {
    let photo = try TestPhotographs.require(TestPhotographs.astronaut)
    let output = folder.path("\(scene.name).mov")
    guard let result = runTool("ffmpeg", scene.ffmpegArguments(photo: photo, output: output, codec: codec, x264Parameters: x264Parameters)) else {
        throw unavailable("ffmpeg is not installed")
    }
    XCTAssertEqual(result.code, 0, "ffmpeg failed for scene \(scene.name)")
    return output
}

extension ReframeScene {
    func faceRect(frame index: Int) -> FrameRect {
        let box = faceBox(frame: index)
        return FrameRect(x: box.x, y: box.y, width: box.width, height: box.height)
    }
}

/// How often the whole composited person (the photograph's rectangle, ground truth) is inside the crop: on the
/// frames where the person has been at rest — not moved at all, within one shot — for at least `rest` seconds
/// up to that frame (where a camera operator, having let the person settle, holds all of them), and on every
/// frame. Only frames where the person lies wholly inside the picture and fits the crop count.
struct WholePersonCoverage: CustomStringConvertible {
    var judgedFrames = 0
    var framesInside = 0
    /// The same over every frame where the person could be inside, moving or not.
    var possibleFrames = 0
    var possibleInside = 0
    var misses: [Int] = []
    var fraction: Double { judgedFrames == 0 ? 1 : Double(framesInside) / Double(judgedFrames) }
    var possibleFraction: Double { possibleFrames == 0 ? 1 : Double(possibleInside) / Double(possibleFrames) }
    var description: String {
        "whole person inside at rest on \(framesInside)/\(judgedFrames), on every possible frame \(possibleInside)/\(possibleFrames); misses at rest \(misses)"
    }

    /// `ignoring`: frames not judged at all (a move no crop within the speed limit can follow).
    init(scene: ReframeScene, path: CropPath, rest: Double = 1, ignoring: ClosedRange<Int>? = nil) {
        let shotStarts = Set([0] + scene.cutFrames)
        let restFrames = Int((rest * Double(scene.frameRate)).rounded())
        var stillSince = 0
        for frame in 0..<scene.frameCount {
            let person = scene.personBox(frame: frame)
            if shotStarts.contains(frame) || person != scene.personBox(frame: frame - 1) { stillSince = frame }
            // The crop's horizontal extent, from the planned offset (the crop spans the full height).
            let cropStart = Double(path.offsets[frame]), cropEnd = cropStart + Double(path.cropWidth)
            if let ignoring, ignoring.contains(frame) { continue }
            guard person.x >= 0, person.x + person.width <= Double(scene.width), person.y >= 0,
                  person.y + person.height <= Double(scene.height), person.width <= Double(path.cropWidth) else { continue }
            // Within 1 % of the person's width (3 px): a shoulder grazed by a pixel while crossing at 1,300 px/s
            // (leave-return, frame 18: 1 px) is not a framing error, and whole-pixel crops move in steps of 2.
            let slack = 0.01 * person.width
            let inside = person.x >= cropStart - slack && person.x + person.width <= cropEnd + slack
            possibleFrames += 1
            if inside { possibleInside += 1 }
            guard frame - stillSince >= restFrames else { continue }
            judgedFrames += 1
            if inside { framesInside += 1 } else { misses.append(frame) }
        }
    }
}

final class ReframeSceneTests: XCTestCase {
    /// The generator's ground truth is where the detector really finds the face in the rendered frames,
    /// and nothing is found while the person is out of the picture.
    func testGroundTruthMatchesTheRenderedFrames() throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 4).first { $0.name == "leave-return" })
        let clip = try writeScene(scene, in: folder)
        let scale = 3.0  // analysed at 640x360
        let frameSize = FrameRect(x: 0, y: 0, width: 1920, height: 1080)
        let frameBytes = 640 * 360 * 3
        let all = try XCTUnwrap(runToolData("ffmpeg", ["-v", "error", "-i", clip, "-vf", "scale=640:360", "-f", "rawvideo",
                                                       "-pix_fmt", "bgr24", "-"]))
        XCTAssertEqual(all.count, scene.frameCount * frameBytes)
        for frame in [0, 12, 40, 60, 90, 105, 119] {
            let pixels = [UInt8](all[(frame * frameBytes)..<((frame + 1) * frameBytes)])
            let faces = try FaceDetector().detect(bgr: pixels, width: 640, height: 360).map { $0.box.scaled(by: scale) }
            let truth = scene.faceRect(frame: frame)
            if frameSize.contains(truth) {
                XCTAssertEqual(faces.count, 1, "frame \(frame): \(faces) vs truth \(truth)")
                XCTAssertGreaterThan(faces.first?.intersectionOverUnion(truth) ?? 0, 0.5, "frame \(frame): \(faces) vs truth \(truth)")
            } else if truth.maxX < 0 || truth.x > frameSize.maxX {
                XCTAssertEqual(faces, [], "frame \(frame): the face is out of the picture")
            }
        }
    }

    func testClipLayoutFrameCountAndAudioTracks() throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 2).first { $0.name == "cut" })
        XCTAssertEqual(scene.frameCount, 60)
        XCTAssertEqual(scene.cutFrames, [30])
        let clip = try writeScene(scene, in: folder)
        let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                      "stream=codec_type,width,height,nb_read_frames,channels:stream_disposition=default",
                                                      "-of", "csv=p=0", clip]))
        let lines = probe.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, probe.out)
        XCTAssertEqual(lines.first, "video,1920,1080,60,1")
        // codec_type, channels, frames, default disposition: stereo is the default, the 4-channel one is not.
        XCTAssertTrue(lines[1].hasPrefix("audio,2,") && lines[1].hasSuffix(",1"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("audio,4,") && lines[2].hasSuffix(",0"), lines[2])
    }

    func testExpressionsFollowTheKeyframes() {
        let scene = ReframeScene.standard(duration: 6).first { $0.name == "drift" }!
        // 150 px/s from x=200: after 2 s the photo is at 500, its face 87 px further right.
        XCTAssertEqual(scene.faceBox(frame: 60).x, 500 + 87)
        XCTAssertEqual(scene.faceBox(frame: 0).width, 133.5)
        let cut = ReframeScene.standard(duration: 6).first { $0.name == "cut" }!
        XCTAssertEqual(cut.faceBox(frame: 89).x, 200 + 87)
        XCTAssertEqual(cut.faceBox(frame: 90).x, 1400 + 87)
    }

    /// The scene the dead-zone planner framed badly (face at 29 % of the crop in the first rest, 71 % in the
    /// last, shoulders cut): reframed, the resting face is on the crop's centre line and the whole person
    /// inside; while walking the face stays within the central 40 %; ground truth judges every frame.
    func testRestWalkRestIsFramedLikeACameraOperator() throws {
        let folder = TemporaryFolder()
        let scene = ReframeScene.restWalkRest(rest: 2)
        let source = try writeScene(scene, in: folder)
        var options = ReframeOptions()
        options.preset = "ultrafast"
        let summary = try Reframer.run(input: source, output: folder.path("vertical.mov"), options: options)
        let path = try XCTUnwrap(summary.path)
        XCTAssertEqual(path.offsets.count, scene.frameCount)
        let times = (0..<scene.frameCount).map { Double($0) / Double(scene.frameRate) }
        let faces = (0..<scene.frameCount).map { Sighting(frameIndex: $0, box: scene.faceRect(frame: $0)) }
        let framing = FramingStatistics(path: path, faces: faces, frameTimes: times)
        XCTAssertGreaterThanOrEqual(framing.restFrames, 50, "\(framing)")
        XCTAssertLessThanOrEqual(framing.largestRestOffset, 0.05, "\(framing)")
        XCTAssertGreaterThanOrEqual(framing.centralFraction, 0.98, "\(framing)")
        for frame in [15, 45, 135, 165] {
            let person = scene.personBox(frame: frame)
            let box = FrameRect(x: person.x, y: person.y, width: person.width, height: min(person.height, 1080 - person.y))
            XCTAssertTrue(path.rect(frame: frame).contains(box), "frame \(frame): person \(box), crop at \(path.offsets[frame])")
        }
        let statistics = try XCTUnwrap(summary.statistics)
        XCTAssertEqual(statistics.reversals, 0)
        XCTAssertEqual(Set(path.offsets[0..<45]).count, 1, "still while the person rests")
        XCTAssertEqual(Set(path.offsets[135...]).count, 1, "still while the person rests")
    }

    func testFixtureCommandRendersAScene() throws {
        let photo = try TestPhotographs.require(TestPhotographs.astronaut)
        let folder = TemporaryFolder()
        let output = folder.path("still.mov")
        let result = runCLI(["fixture", "scene:still", output, "--photo", photo, "--duration", "1"])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("30 frames"), result.out)
        let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
                                                      "stream=width,height,nb_read_frames", "-of", "csv=p=0", output]))
        XCTAssertEqual(probe.out.trimmingCharacters(in: .whitespacesAndNewlines), "1920,1080,30")
        XCTAssertEqual(runCLI(["fixture", "scene:nobody", output, "--photo", photo]).code, 64)
        XCTAssertEqual(runCLI(["fixture", "scene:still", output, "--photo", photo]).code, 73, "exists without --force")
        XCTAssertEqual(runCLI(["fixture", "scene:still", folder.path("x.mov")]).code, 64, "needs --photo")
    }
}
