import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackCodec
import KeepTrackFixtures
@testable import KeepTrackCLI
@testable import KeepTrackMediaCLI
import KeepTrackFraming
import KeepTrackFaces
@testable import KeepTrackReframePipeline

/// End-to-end proof on rendered clips with ground truth: the real photograph moves along a known path; the
/// reframed output must keep the face inside the crop, keep the camera still when the person is, and pass
/// the audio through byte for byte with its flags and groups.
final class ReframeTests: XCTestCase {
    var fastOptions: ReframeOptions {
        var options = ReframeOptions()
        options.preset = "ultrafast"
        return options
    }

    private func probe(_ path: String, _ entries: String) throws -> [String] {
        let result = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-show_entries", entries, "-of", "csv=p=0", path]))
        return result.out.split(separator: "\n").map(String.init)
    }

    /// Ground-truth face boxes of every frame whose face lies inside the picture.
    private func truth(_ scene: ReframeScene) -> [Sighting] {
        (0..<scene.frameCount).map { Sighting(frameIndex: $0, box: scene.faceRect(frame: $0)) }
    }

    static func assertAudioPassedThrough(source: String, output: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try Movie.open(path: source), after = try Movie.open(path: output)
        let oldAudio = before.tracks.filter { $0.kind == .audio }, newAudio = after.tracks.filter { $0.kind == .audio }
        XCTAssertEqual(newAudio.count, oldAudio.count, file: file, line: line)
        for (old, new) in zip(oldAudio, newAudio) {
            XCTAssertEqual(new.id, old.id, file: file, line: line)
            XCTAssertEqual(new.header.isEnabled, old.header.isEnabled, file: file, line: line)
            XCTAssertEqual(new.header.alternateGroup, old.header.alternateGroup, file: file, line: line)
            XCTAssertEqual(new.references.map(\.type), old.references.map(\.type), file: file, line: line)
            XCTAssertEqual(new.references.map(\.trackIDs), old.references.map(\.trackIDs), file: file, line: line)
            XCTAssertEqual(try new.sampleEntries.map { try $0.serialized() }, try old.sampleEntries.map { try $0.serialized() }, file: file, line: line)
            XCTAssertEqual(new.sampleTable.timeToSample, old.sampleTable.timeToSample, file: file, line: line)
            let oldBytes = try old.sampleTable.samples.map { try before.source.read(at: $0.offset, count: Int($0.size)) }
            let newBytes = try new.sampleTable.samples.map { try after.source.read(at: $0.offset, count: Int($0.size)) }
            XCTAssertEqual(newBytes, oldBytes, "track \(old.id) audio bytes", file: file, line: line)
        }
    }

    /// `keeptrack compare`: every audio track (and every other kept track) identical in samples, flags,
    /// group, references and boxes; only the video differs. `compare --levels`: the enabled audio the same.
    private func assertCompareShowsAudioIdentical(_ source: String, _ output: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = runCLI(["compare", "--json", source, output])
        XCTAssertEqual(result.code, 1, "the video differs", file: file, line: line)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any], file: file, line: line)
        let tracks = try XCTUnwrap(document["tracks"] as? [[String: Any]], file: file, line: line)
        let movie = try Movie.open(path: source)
        for track in tracks {
            let id = try XCTUnwrap(track["id"] as? Int, file: file, line: line)
            guard movie.track(id: UInt32(id))?.kind == .audio else { continue }
            let a = track["a"] as? [String: String], b = track["b"] as? [String: String]
            XCTAssertEqual(a, b, "track \(id)", file: file, line: line)
            XCTAssertEqual((track["differingBoxes"] as? [String]) ?? [], [], "track \(id)", file: file, line: line)
        }
        XCTAssertEqual(tracks.filter { movie.track(id: UInt32($0["id"] as? Int ?? 0))?.kind == .audio }.count,
                       movie.tracks.filter { $0.kind == .audio }.count, file: file, line: line)
        let levels = runCLI(["compare", "--levels", source, output])
        XCTAssertEqual(levels.code, 0, levels.out + levels.error, file: file, line: line)
        XCTAssertTrue(levels.out.contains("same"), levels.out, file: file, line: line)
    }

    /// One test per standard scene (so parallel workers share them out); this one keeps "every" honest.
    static let standardSceneNames = ["still", "drift", "fast", "step", "cut", "leave-return"]
    func testEveryStandardSceneHasItsOwnTest() {
        XCTAssertEqual(ReframeScene.standard(duration: 4).map(\.name), Self.standardSceneNames,
                       "a new standard scene needs its own test<Scene>SceneIsFollowed below")
    }
    func testStillSceneIsFollowed() throws { try assertStandardSceneIsFollowed("still") }
    func testDriftSceneIsFollowed() throws { try assertStandardSceneIsFollowed("drift") }
    func testFastSceneIsFollowed() throws { try assertStandardSceneIsFollowed("fast") }
    func testStepSceneIsFollowed() throws { try assertStandardSceneIsFollowed("step") }
    func testCutSceneIsFollowed() throws { try assertStandardSceneIsFollowed("cut") }
    func testLeaveReturnSceneIsFollowed() throws { try assertStandardSceneIsFollowed("leave-return") }

    /// The step scene's jump lands where it may against the detector's rhythm (about one whole look a second on
    /// 1080p): 0.3, 0.2 and 0.1 s before a look, and on one (4 s). Between two looks the planner used to spread
    /// the move over the whole gap, so the pan began up to 11 frames before the person moved and cut them off
    /// while they still stood. The analysis now knows nothing changed around the person until the jump
    /// (`Analysis.still`): the pan is centred on it, half-way across within 3 frames of the jump.
    func testStepIsPannedAcrossWhenItHappensWhateverTheDetectionRhythm() throws {
        for duration in [3.4, 3.6, 3.8, 4] {
            let folder = TemporaryFolder()
            let scene = try XCTUnwrap(ReframeScene.standard(duration: duration).first { $0.name == "step" })
            let source = try writeScene(scene, in: folder)
            var options = fastOptions
            options.planOnly = true
            options.planOutput = folder.path("plan.json")
            let path = try XCTUnwrap(try Reframer.run(input: source, output: "", options: options).path)
            // The last frame of the person on the left, from the scene's own geometry.
            let lastLeft = try XCTUnwrap((0..<scene.frameCount).last { scene.faceRect(frame: $0).midX < 960 })
            XCTAssertGreaterThan(scene.faceRect(frame: lastLeft + 1).midX, 960)
            let halfWay = (path.offsets[0] + path.offsets[scene.frameCount - 1]) / 2
            let crossing = try XCTUnwrap(path.offsets.firstIndex { $0 >= halfWay })
            XCTAssertLessThanOrEqual(abs(Double(crossing) - (Double(lastLeft) + 0.5)), 3,
                                     "\(duration) s: jump after frame \(lastLeft), the crop half-way at frame \(crossing)")
        }
    }

    private func assertStandardSceneIsFollowed(_ name: String) throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 4).first { $0.name == name }, name)
        do {
            let source = try writeScene(scene, in: folder)
            let output = folder.path("\(scene.name)-vertical.mov")
            let summary = try Reframer.run(input: source, output: output, options: fastOptions)
            let path = try XCTUnwrap(summary.path)
            XCTAssertEqual(path.offsets.count, scene.frameCount, scene.name)
            XCTAssertEqual(path.cropWidth, 608)

            // The face inside the crop wherever that is possible (the step scene: except the unavoidable pan).
            var faces = truth(scene)
            if scene.name == "step" { faces.removeAll { abs($0.frameIndex - scene.frameCount / 2) <= 15 } }
            let coverage = SubjectCoverage(path: path, faces: faces)
            XCTAssertGreaterThanOrEqual(coverage.fraction, 0.98, "\(scene.name): \(coverage)")
            if coverage.fraction < 0.98 {
                let frame = FrameRect(x: 0, y: 0, width: 1920, height: 1080)
                let misses = faces.filter { frame.contains($0.box) && !path.rect(frame: $0.frameIndex).contains($0.box) }
                print("MISSES", misses.map { "\($0.frameIndex): face \(Int($0.box.x))..\(Int($0.box.maxX)) crop \(path.offsets[$0.frameIndex])" })
                print("SAMPLES", summary.analysedFrames, path.subjectFaces.map { "\($0.frameIndex):\(Int($0.box.x))" })
            }
            XCTAssertGreaterThan(coverage.possibleFrames, scene.name == "leave-return" ? 40 : 80, scene.name)

            // Calm camera: no jumps inside a shot, few direction changes, bounded speed and acceleration.
            let statistics = try XCTUnwrap(summary.statistics)
            let speedLimit = fastOptions.settings.maximumSpeed * 1920
            XCTAssertLessThanOrEqual(statistics.maximumSpeed, speedLimit * 1.05, scene.name)
            XCTAssertLessThanOrEqual(statistics.maximumAcceleration, 2 * speedLimit / fastOptions.settings.smoothingSeconds * 1.25, scene.name)
            XCTAssertLessThanOrEqual(Double(statistics.largestStep), speedLimit / 30 + 2, scene.name)
            XCTAssertLessThanOrEqual(statistics.reversals, scene.name == "leave-return" ? 2 : 0, scene.name)
            // Composition: a resting face on the crop's centre line, a moving one within the central 40 %.
            let times = (0..<scene.frameCount).map { Double($0) / Double(scene.frameRate) }
            // (The step outruns the speed limit: the pan and its settling, ±1 s, are not judged.)
            let judged = truth(scene).filter { scene.name != "step" || abs($0.frameIndex - scene.frameCount / 2) > 30 }
            let framing = FramingStatistics(path: path, faces: judged, frameTimes: times)
            XCTAssertLessThanOrEqual(framing.largestRestOffset, 0.05, "\(scene.name): \(framing)")
            if ["still", "drift", "cut"].contains(scene.name) {
                XCTAssertGreaterThanOrEqual(framing.centralFraction, 0.98, "\(scene.name): \(framing)")
            }
            // The whole person (ground truth), not only the face: inside the crop once they have rested 1 s (still,
            // fast, step, cut: 90, 25, 44, 60 frames judged, all inside when measured), and on nearly every frame of
            // the scenes whose moves the crop can follow (still, drift, fast, cut: 120 frames, leave-return: 47 with
            // the person wholly in the picture; all inside). A 4 s drift or leave-return has no rest of 1 s. The
            // step's jump (1200 px) is a pan the speed limit needs: 0.83 s at `maximumSpeed`, centred on the jump
            // (`testStepIsPannedAcrossWhenItHappensWhateverTheDetectionRhythm`) and widened on each side by the
            // smoothing's reach (three moving averages of `smoothingSeconds`): those ±0.79 s are not judged (the
            // person is whole on all 71 frames outside them, 35 of them at rest). (Before the analysis knew when the picture last stood still,
            // the pan was placed by the detector's rhythm: ±0.5 s sufficed here only because a look fell on the jump.)
            let panReach = 1200 / (2 * speedLimit) + 1.5 * fastOptions.settings.smoothingSeconds
            let panFrames = Int((panReach * Double(scene.frameRate)).rounded(.up))
            let unavoidablePan = scene.name == "step" ? (scene.frameCount / 2 - panFrames)...(scene.frameCount / 2 + panFrames) : nil
            let wholePerson = WholePersonCoverage(scene: scene, path: path, ignoring: unavoidablePan)
            print("\(scene.name): \(wholePerson)")
            if ["still", "fast", "step", "cut"].contains(scene.name) {
                XCTAssertGreaterThanOrEqual(wholePerson.judgedFrames, 25, "\(scene.name): a rest of 1 s or more to judge")
                XCTAssertEqual(wholePerson.fraction, 1, "\(scene.name): \(wholePerson)")
            }
            if scene.name != "step" {
                XCTAssertGreaterThanOrEqual(wholePerson.possibleFrames, scene.name == "leave-return" ? 40 : 110, scene.name)
                XCTAssertGreaterThanOrEqual(wholePerson.possibleFraction, 0.98, "\(scene.name): \(wholePerson)")
            }
            switch scene.name {
            case "still":
                XCTAssertEqual(statistics.movingFrames, 0, "the crop must not move at all")
                XCTAssertLessThanOrEqual(summary.analysedFrames, 5, "an unchanging picture is looked at once a second")
            case "drift":
                XCTAssertGreaterThanOrEqual(summary.analysedFrames, 8, "a moving picture is looked at at least twice a second")
                // The face is too small for the reduced picture: between full looks, only around it (DetectionRegions).
                XCTAssertGreaterThanOrEqual(summary.detectionLooks.aroundFaces, summary.analysedFrames / 2, "\(summary.detectionLooks)")
                XCTAssertEqual(summary.detectionLooks.reduced, 0)
                XCTAssertEqual(path.shots.count, 1, "no cut in a continuous shot")
            case "cut":
                XCTAssertEqual(path.shots.map(\.lowerBound), [0] + scene.cutFrames, "the cut is found where it is")
                XCTAssertEqual(statistics.movingFrames, 0, "two still shots: the crop jumps once, at the cut")
                XCTAssertNotEqual(path.offsets[scene.cutFrames[0] - 1], path.offsets[scene.cutFrames[0]])
            default:
                XCTAssertEqual(path.shots.count, 1, "\(scene.name): no cut in a continuous shot")
            }

            // The file: 9:16 video of every frame, same duration, audio as it was.
            let streams = try probe(output, "stream=codec_type,codec_name,width,height,nb_frames:stream_disposition=default")
            XCTAssertEqual(streams.first, "h264,video,608,1080,\(scene.frameCount),1", scene.name)
            XCTAssertEqual(streams.dropFirst().map { $0.hasPrefix("aac,audio,") }, [true, true], scene.name)
            XCTAssertEqual(streams.dropFirst().map { $0.split(separator: ",").last.map(String.init) }, ["1", "0"], scene.name)
            let durations = try [source, output].map { try probe($0, "format=duration").first.flatMap(Double.init) ?? 0 }
            XCTAssertEqual(durations[0], durations[1], accuracy: 1.0 / 30, scene.name)
            try Self.assertAudioPassedThrough(source: source, output: output)
            if scene.name == "cut" { try assertCompareShowsAudioIdentical(source, output) }
        }
    }

    /// The detector runs beside the decoder, but the analysis only adapts to detections a few pictures old
    /// (waiting for them if need be): the same input gives the same plan and the same file on every run.
    func testSameInputGivesTheSameOutputOnEveryRun() throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 3).first { $0.name == "leave-return" })
        let source = try writeScene(scene, in: folder)
        let runs = try (0..<3).map { run in
            let output = folder.path("run-\(run).mov")
            let summary = try Reframer.run(input: source, output: output, options: fastOptions)
            return (summary, try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        for (summary, bytes) in runs.dropFirst() {
            XCTAssertEqual(summary.analysedFrames, runs[0].0.analysedFrames)
            XCTAssertEqual(summary.path, runs[0].0.path)
            XCTAssertEqual(bytes, runs[0].1, "byte-identical output")
        }
    }

    /// A clip too large to keep in memory is analysed on its referenced frames only; a cut that lands on a
    /// skipped B-frame is still placed on that very frame (the encoding pass looks at the skipped frames), and
    /// the output shows it there. The default (the clip fits: every frame decoded once and kept) agrees.
    /// A still face on blue, cut at frame 61 to a still face elsewhere on green (1080p, 30 fps).
    static func cutOnFrame61(framesAfter: Int) -> ReframeScene {
        let blue = ReframeScene.Colours("0x203050", "0x4060a0"), green = ReframeScene.Colours("0x204020", "0x70a060")
        return ReframeScene(name: "cut-on-b", segments: [
            ReframeScene.Segment(duration: 61.0 / 30, colours: blue, keyframes: [ReframeScene.Keyframe(0, x: 200)]),
            ReframeScene.Segment(duration: Double(framesAfter) / 30, colours: green, keyframes: [ReframeScene.Keyframe(0, x: 1400)]),
        ])
    }

    func testCutOnASkippedFrameIsPlacedExactly() throws {
        let folder = TemporaryFolder()
        let scene = Self.cutOnFrame61(framesAfter: 59)
        XCTAssertEqual(scene.cutFrames, [61])
        // Fixed I B B B P pattern, B-frames never referenced, no extra I-frame at the cut: frame 61 is a B.
        let source = try writeScene(scene, in: folder, x264Parameters: "bframes=3:b-adapt=0:b-pyramid=none:scenecut=0")
        let types = try probe(source, "frame=pict_type")
        XCTAssertEqual(types.count, 120)
        XCTAssertEqual(types[56...64].joined(), "PBBBPBBBP", "the cut (frame 61) is the first of three B-frames the analysis skips")

        let output = folder.path("cut-on-b-vertical.mov")
        var referencedOnly = fastOptions
        referencedOnly.retainedFramesBudget = 0
        let summary = try Reframer.run(input: source, output: output, options: referencedOnly)
        XCTAssertEqual(summary.decodedForAnalysis, types.filter { $0 != "B" }.count, "only the I and P frames were decoded to analyse")
        let path = try XCTUnwrap(summary.path)
        XCTAssertEqual(path.shots.map(\.lowerBound), [0, 61])
        XCTAssertEqual(Set(path.offsets[0..<61]).count, 1)
        XCTAssertEqual(Set(path.offsets[61...]).count, 1)
        XCTAssertNotEqual(path.offsets[60], path.offsets[61])
        XCTAssertEqual(SubjectCoverage(path: path, faces: truth(scene)).fraction, 1)

        // Analysing every frame (decoded once, kept for the encoder) finds the same cut and plans the same path.
        var kept = fastOptions
        kept.retainedPictureLimit = .max
        let full = try Reframer.run(input: source, output: folder.path("every-frame.mov"), options: kept)
        XCTAssertEqual(full.decodedForAnalysis, 120)
        XCTAssertEqual(full.path, path)

        // The output's frames 60 and 61 are the source cropped where the path says (PSNR against ffmpeg's crop).
        for frame in [60, 61] {
            let reference = folder.path("reference-\(frame).png"), ours = folder.path("ours-\(frame).png")
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-vf", "select=eq(n\\,\(frame)),crop=608:1080:\(path.offsets[frame]):0",
                                              "-frames:v", "1", reference])?.code, 0)
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", output, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1", ours])?.code, 0)
            XCTAssertGreaterThan(try psnrValue(ours, reference), 30, "frame \(frame)")
        }
    }

    /// Frames are kept for the encoder (decoded once) only below 1280×720 for H.264, where keeping costs less
    /// than decoding again; a 1080p clip is decoded twice, its analysis taking only the referenced frames,
    /// unless `--frame-memory` asks for keeping. Every frame reaches the output either way (ffprobe).
    func testOnlySmallPicturesAreKeptForTheEncoderUnlessFrameMemoryIsGiven() throws {
        let folder = TemporaryFolder()
        let scene = ReframeScene(name: "kept-or-not", segments: [
            ReframeScene.Segment(duration: 1, colours: ReframeScene.Colours("0x203050", "0x4060a0"),
                                 keyframes: [ReframeScene.Keyframe(0, x: 300), ReframeScene.Keyframe(1, x: 1200)]),
        ])
        let large = try writeScene(scene, in: folder)
        let small = folder.path("small.mp4")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", large, "-map", "0", "-vf", "scale=640:360", "-c:v", "libx264",
                                          "-c:a", "copy", small])?.code, 0)
        let types = try probe(large, "frame=pict_type")
        XCTAssertEqual(types.count, 30)
        XCTAssertTrue(types.contains("B"), "the encoder made B-frames, which a referenced-only analysis skips")
        func decodedForAnalysis(_ source: String, _ extra: [String]) throws -> Int {
            let output = folder.path("out-\(UUID().uuidString).mp4")
            let run = runCLI(["reframe", source, output, "--preset", "ultrafast", "--json"] + extra)
            XCTAssertEqual(run.code, 0, run.error)
            let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
            let frames = runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                             "stream=nb_read_frames", "-of", "csv=p=0", output])?.out
            XCTAssertEqual(frames?.trimmingCharacters(in: .whitespacesAndNewlines), "30", "every frame decodes from the output (\(source) \(extra))")
            return try XCTUnwrap((summary["subject"] as? [String: Any])?["decodedForAnalysis"] as? Int)
        }
        XCTAssertEqual(try decodedForAnalysis(large, []), types.filter { $0 != "B" }.count, "1080p: decoded twice, referenced frames analysed")
        XCTAssertEqual(try decodedForAnalysis(large, ["--frame-memory", "256"]), 30, "asked for: kept whatever the size")
        XCTAssertEqual(try decodedForAnalysis(small, []), 30, "640x360: every frame decoded once and kept")
        XCTAssertEqual(try decodedForAnalysis(small, ["--frame-memory", "0"]), try probe(small, "frame=pict_type").filter { $0 != "B" }.count)
    }

    /// The pixels really are the crop: the output's frames equal ffmpeg's own crop of the source at the
    /// planned offsets (PSNR), and the detector finds the face inside them.
    func testOutputPixelsAreTheSourceCroppedAtThePlannedOffsets() throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 3).first { $0.name == "fast" })
        let source = try writeScene(scene, in: folder)
        let output = folder.path("fast-vertical.mov")
        let summary = try Reframer.run(input: source, output: output, options: fastOptions)
        let path = try XCTUnwrap(summary.path)
        for frame in [0, 45, 60, 89] {
            let x = path.offsets[frame]
            let reference = folder.path("reference-\(frame).png"), ours = folder.path("ours-\(frame).png")
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-vf", "select=eq(n\\,\(frame)),crop=608:1080:\(x):0",
                                              "-frames:v", "1", reference])?.code, 0)
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", output, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1", ours])?.code, 0)
            let value = try psnrValue(ours, reference)
            XCTAssertGreaterThan(value, 30, "frame \(frame): the output is not the source cropped at x=\(x)")
            let pixels = try XCTUnwrap(runToolData("ffmpeg", ["-v", "error", "-i", ours, "-f", "rawvideo", "-pix_fmt", "bgr24", "-"]))
            let faces = try KeepTrackFacesDetector.detect([UInt8](pixels), width: 608, height: 1080)
            XCTAssertEqual(faces.count, 1, "frame \(frame)")
        }
    }

    func testHLGSourceStaysHDRWithHEVCMain10() throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 2).first { $0.name == "drift" })
        let source = try writeScene(scene, in: folder, codec: .hevcHLG)
        let output = folder.path("hlg-vertical.mov")
        let summary = try Reframer.run(input: source, output: output, options: fastOptions)
        XCTAssertEqual(summary.codec, .hevc)
        let video = try probe(output, "stream=codec_name,profile,pix_fmt,color_transfer,color_primaries,color_space,width,height").first
        XCTAssertEqual(video, "hevc,Main 10,608,1080,yuv420p10le,bt2020nc,arib-std-b67,bt2020")
        let movie = try Movie.open(path: output)
        XCTAssertEqual(movie.tracks.first { $0.kind == .video }?.video?.hdr, "HLG")
        var options = fastOptions
        options.codec = .h264
        XCTAssertThrowsError(try Reframer.run(input: source, output: folder.path("sdr.mov"), options: options)) { error in
            XCTAssertTrue("\(error)".contains("HDR"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("sdr.mov")))
    }

    func testSizeScalesTheCrop() throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 1).first { $0.name == "still" })
        let source = try writeScene(scene, in: folder)
        let output = folder.path("small.mov")
        var options = fastOptions
        options.size = PixelSize(width: 360, height: 640)
        _ = try Reframer.run(input: source, output: output, options: options)
        XCTAssertEqual(try probe(output, "stream=width,height").first, "360,640")
    }

    /// Variable frame rate stays variable: every output frame is shown at its source frame's time.
    func testVariableFrameRateTimesArePreserved() throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 2).first { $0.name == "drift" })
        let constant = try writeScene(scene, in: folder)
        let variable = folder.path("vfr.mov")
        // Drop every 4th frame and one run of frames: gaps of 2 and 6 frame durations.
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", constant, "-map", "0",
                                          "-vf", "select='not(eq(mod(n\\,4)\\,1))*not(between(n\\,30\\,34))'", "-fps_mode", "vfr",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "copy", variable])?.code, 0)
        func frameTimes(_ path: String) throws -> [String] {
            let result = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
                                                           "-of", "csv=p=0", path]))
            return result.out.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
        }
        let before = try frameTimes(variable)
        XCTAssertLessThan(before.count, 45)
        let output = folder.path("vfr-vertical.mov")
        _ = try Reframer.run(input: variable, output: output, options: fastOptions)
        XCTAssertEqual(try frameTimes(output), before)
    }

    // MARK: - The real iPhone recording (portrait HEVC Main10 HLG with Dolby Vision, rotated 90°)

    func testIPhonePortraitIsAlreadyNarrowAndPassesThroughWithANote() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("iphone-vertical.mov")
        let result = runCLI(["reframe", input, output, "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.error.contains("already 1080x1920"), result.error)
        XCTAssertFalse(result.error.contains("not applied"), result.error)
        XCTAssertTrue(result.out.contains("\"passthrough\": true"))
        // Encoder options cannot apply to a copy: said, not silently ignored.
        let sized = runCLI(["reframe", input, folder.path("sized.mov"), "--size", "720x1280", "--crf", "18"])
        XCTAssertEqual(sized.code, 0, sized.error)
        XCTAssertTrue(sized.error.contains("--size, --crf not applied: nothing was re-encoded"), sized.error)
        // The library says which settings it did not apply by name, in words of its own (no command-line options).
        var options = ReframeOptions()
        options.size = PixelSize(width: 720, height: 1280)
        options.preset = "slow"
        let library = try Reframer.run(input: input, output: folder.path("library.mov"), options: options)
        XCTAssertEqual(library.notApplied, [.size, .preset])
        XCTAssertFalse(library.notes.contains { $0.contains("--") }, "\(library.notes)")
        let json = try JSONSerialization.jsonObject(with: Data(library.json.rendered().utf8)) as? [String: Any]
        XCTAssertEqual(json?["notApplied"] as? [String], ["size", "preset"])
        // Asked only for a plan (or a preview), there is no crop to plan: nothing is written, exit 0, and it says so
        // (it once tried to copy the movie to an empty path: exit 73, "cannot move the finished file to : ...").
        let plan = folder.path("plan.json")
        let planOnly = runCLI(["reframe", input, "--plan-only", "--plan-out", plan, "--preview", folder.path("sheet.png")])
        XCTAssertEqual(planOnly.code, 0, planOnly.error)
        XCTAssertTrue(planOnly.error.contains("nothing to crop, so no plan file or preview was written"), planOnly.error)
        XCTAssertFalse(planOnly.error.contains("not applied"), planOnly.error)
        XCTAssertTrue(planOnly.out.contains("planned nothing"), planOnly.out)
        let planOnlyJSON = runCLI(["reframe", input, "--plan-only", "--plan-out", plan, "--json"])
        XCTAssertEqual(planOnlyJSON.code, 0, planOnlyJSON.error)
        let planned = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(planOnlyJSON.out.utf8)) as? [String: Any])
        XCTAssertEqual(planned["passthrough"] as? Bool, true)
        XCTAssertEqual(planned["output"] as? String, "")
        // With a movie asked for too, the movie is copied and the plan file not written, which a note says.
        let copiedWithPlan = runCLI(["reframe", input, folder.path("copied.mov"), "--plan-out", plan])
        XCTAssertEqual(copiedWithPlan.code, 0, copiedWithPlan.error)
        XCTAssertTrue(copiedWithPlan.error.contains("no plan file was written"), copiedWithPlan.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: plan))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("sheet.png")))
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path)),
                       ["iphone-vertical.mov", "sized.mov", "library.mov", "copied.mov"])
        let before = try Movie.open(path: input), after = try Movie.open(path: output)
        XCTAssertEqual(after.tracks.map(\.id), before.tracks.map(\.id))
        XCTAssertEqual(after.tracks.first { $0.kind == .video }?.video?.dolbyVision, before.tracks.first { $0.kind == .video }?.video?.dolbyVision)
        try Self.assertAudioPassedThrough(source: input, output: output)
    }

    /// Square from the portrait recording: the crop slides vertically over the upright picture. The output
    /// must equal ffmpeg's own upright (autorotated) picture cropped at the planned offset.
    /// H.264 is 8-bit SDR here: asked for it on an HDR source, reframe refuses before analysing a frame (the sample
    /// entry's colour box says HLG), names the way out, and writes nothing.
    func testH264ForAnHDRSourceIsRefusedBeforeTheAnalysis() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("square.mp4")
        let result = runCLI(["reframe", input, output, "--aspect", "1:1", "--codec", "h264"])
        XCTAssertEqual(result.code, 64, result.error)
        XCTAssertTrue(result.error.contains("the source is HDR (HLG) and H.264 here is 8-bit SDR; HEVC (10-bit) keeps the HDR transfer: --codec hevc"),
                      result.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        var options = ReframeOptions()
        options.aspect = PixelSize(width: 1, height: 1)
        options.codec = .h264
        XCTAssertThrowsError(try Reframer.run(input: input, output: output, options: options) { progress in
            XCTFail("analysed \(progress.frames) frames before refusing")
        }) { error in
            let error = error as? KeepTrackError
            XCTAssertTrue(error.map(Reframer.isHDRNeedsHEVC) ?? false, "\(String(describing: error))")
            XCTAssertFalse(error?.description.contains("--") ?? true)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path), [])
    }

    func testIPhoneSquareCropIsInDisplayOrientationAndKeepsHDR() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("iphone-square.mov")
        var options = fastOptions
        options.aspect = PixelSize(width: 1, height: 1)
        let summary = try Reframer.run(input: input, output: output, options: options)
        let path = try XCTUnwrap(summary.path)
        XCTAssertEqual(path.axis, .vertical)
        XCTAssertEqual(summary.orientation.rotation, 90)
        XCTAssertTrue(summary.notes.contains { $0.contains("Dolby Vision") && $0.contains("dropped") }, "\(summary.notes)")
        XCTAssertEqual(Set(summary.droppedTracks.map(\.id)), [4, 6])
        let video = try probe(output, "stream=codec_name,profile,width,height,pix_fmt,color_transfer").first
        XCTAssertEqual(video, "hevc,Main 10,1080,1080,yuv420p10le,arib-std-b67")
        let movie = try Movie.open(path: output)
        let track = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        XCTAssertEqual(track.header.matrix, TrackHeaderBox.identityMatrix)
        XCTAssertNil(track.video?.dolbyVision)
        XCTAssertEqual(movie.metadata.first { $0.key.hasSuffix("model") }?.value, "iPhone 16 Pro")
        XCTAssertEqual(movie.tracks.first { $0.format == "apac" }?.referencedIDs("fall"), [2])
        try Self.assertAudioPassedThrough(source: input, output: output)
        try assertCompareShowsAudioIdentical(input, output)

        let y = path.offsets[30]
        let reference = folder.path("reference.png"), ours = folder.path("ours.png")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", input, "-vf", "select=eq(n\\,30),crop=1080:1080:0:\(y)",
                                          "-frames:v", "1", reference])?.code, 0)
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", output, "-vf", "select=eq(n\\,30)", "-frames:v", "1", ours])?.code, 0)
        XCTAssertGreaterThan(try psnrValue(ours, reference), 30, "frame 30 is not the upright picture cropped at y=\(y)")
    }

    // MARK: - Command line

    func testCommandLineErrors() throws {
        let folder = TemporaryFolder()
        XCTAssertEqual(runCLI(["reframe", folder.path("missing.mov"), folder.path("out.mov")]).code, 66)
        XCTAssertEqual(runCLI(["reframe", "a.mov", "b.mov", "--aspect", "9-16"]).code, 64)
        XCTAssertEqual(runCLI(["reframe", "a.mov", "b.mov", "--codec", "vp9"]).code, 64)
        XCTAssertEqual(runCLI(["reframe", "a.mov", "b.mov", "--size", "601x1080"]).code, 64)
        let crf = runCLI(["reframe", "a.mov", "b.mov", "--crf", "99"])
        XCTAssertEqual(crf.code, 64)
        XCTAssertTrue(crf.error.contains("--crf takes a number from 0.0 to 51.0, not '99'"), crf.error)
        let preset = runCLI(["reframe", "a.mov", "b.mov", "--preset", "veryfastt"])
        XCTAssertEqual(preset.code, 64)
        XCTAssertTrue(preset.error.contains("did you mean 'veryfast'?"), preset.error)
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 1).first { $0.name == "still" })
        let source = try writeScene(scene, in: folder)
        let existing = folder.path("exists.mov")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let refused = runCLI(["reframe", source, existing, "--preset", "ultrafast"])
        XCTAssertEqual(refused.code, 73, refused.error)
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "keep me")
        let help = runCLI(["help", "reframe"])
        XCTAssertTrue(help.out.contains("--aspect") && help.out.contains("Dolby Vision"))
        let text = runCLI(["reframe", source, folder.path("ok.mov"), "--preset", "ultrafast"])
        XCTAssertEqual(text.code, 0, text.error)
        XCTAssertTrue(text.out.contains("608x1080 h264"), text.out)
    }
}

enum KeepTrackFacesDetector {
    static func detect(_ bgr: [UInt8], width: Int, height: Int) throws -> [FrameRect] {
        try KeepTrackFaces.FaceDetector().detect(bgr: bgr, width: width, height: height).map(\.box)
    }
}

/// Average PSNR (dB) of two pictures, measured by ffmpeg's psnr filter.
func psnrValue(_ a: String, _ b: String) throws -> Double {
    let text = try XCTUnwrap(runToolStandardError("ffmpeg", ["-v", "info", "-nostats", "-i", a, "-i", b, "-lavfi", "psnr", "-f", "null", "-"]))
    guard let range = text.range(of: "average:") else { throw TestPrerequisiteMissing(description: "no PSNR from ffmpeg: \(text.suffix(200))") }
    let value = text[range.upperBound...].prefix { !$0.isWhitespace }
    return value == "inf" ? 100 : try XCTUnwrap(Double(value))
}

final class ReframeProgressBarTests: XCTestCase {
    func testDrawsPhasesInFramesOnATerminal() {
        let box = CaptureBox()
        let terminal = Console(out: { box.append(out: $0) }, error: { box.append(error: $0) }, isTerminal: true)
        let bar = ReframeProgressDisplay(console: terminal)
        bar.update(ReframeProgress(phase: .analysing, frames: 300, totalFrames: 300, seconds: 1))
        bar.update(ReframeProgress(phase: .encoding, frames: 150, totalFrames: 300, seconds: 5))
        bar.finish()
        let drawn = box.read().error
        XCTAssertTrue(drawn.contains("analysing [##############################] 300/300 frames"), drawn)
        XCTAssertTrue(drawn.contains("encoding [###############...............] 150/300 frames, 30 frames/s, 0:05 left"), drawn)
        XCTAssertTrue(drawn.hasSuffix("\n"))
    }
}
