import Foundation
import XCTest
import KeepTrack
import KeepTrackFixtures
import KeepTrackFraming
@testable import KeepTrackReframePipeline

/// `--layout fit|auto` end to end: the fit picture checked against ffmpeg's own scaling of the source, both
/// people of real footage found in it by an independent detector (OpenCV Haar cascades at several head
/// poses, Judge/faces_any_pose.py), auto's choice on real footage, edited plans, and the audio rule.
final class LayoutTests: XCTestCase {
    static let judge = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Judge/faces_any_pose.py").path

    var fastOptions: ReframeOptions {
        var options = ReframeOptions()
        options.preset = "ultrafast"
        return options
    }

    /// Frame `frame` of `path` as 8-bit luma (`width`×`height`), decoded by ffmpeg.
    func luma(_ path: String, frame: Int, filter: String? = nil) throws -> [UInt8] {
        let chain = "select=eq(n\\,\(frame))" + (filter.map { "," + $0 } ?? "")
        return [UInt8](try XCTUnwrap(runToolData("ffmpeg", ["-v", "error", "-i", path, "-vf", chain, "-frames:v", "1",
                                                            "-f", "rawvideo", "-pix_fmt", "gray", "-"])))
    }

    /// Faces the independent judge finds per sampled frame (rows `rows` only), centres' x in output pixels.
    func judgedFaceCentres(_ path: String, fps: Double, minimumSize: Int, rows: Range<Int>) throws -> [[Double]] {
        try judgedFaces(path, fps: fps, minimumSize: minimumSize, rows: rows).map { $0.map(\.x) }
    }

    /// Faces the independent judge finds per sampled frame (rows `rows` only), centres in output pixels.
    func judgedFaces(_ path: String, fps: Double, minimumSize: Int, rows: Range<Int>) throws -> [[(x: Double, y: Double)]] {
        let result = try XCTUnwrap(runTool("/usr/bin/python3", [Self.judge, path, "\(fps)", "\(minimumSize)", "\(rows.lowerBound)", "\(rows.upperBound)"]),
                                   "python3-opencv is not installed (scripts/setup.sh)")
        XCTAssertEqual(result.code, 0, result.out)
        return try result.out.split(separator: "\n").map { line in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (object["faces"] as? [[Int]] ?? []).map { (Double($0[0]) + Double($0[2]) / 2, Double($0[1]) + Double($0[3]) / 2) }
        }
    }

    /// Frames on which the judge sees two faces at least `apart` pixels apart.
    func framesWithTwoPeople(_ centres: [[Double]], apart: Double) -> Int {
        centres.filter { xs in (xs.max() ?? 0) - (xs.min() ?? 0) >= apart }.count
    }

    /// fit on a synthetic iPhone-layout clip: the middle of the output is the whole source scaled (as ffmpeg
    /// scales it), above and below it a darkened copy; the audio tracks pass through with flags and group.
    func testFitShowsTheWholePictureOverADarkenedCopy() throws {
        let folder = TemporaryFolder()
        let scene = try XCTUnwrap(ReframeScene.standard(duration: 2).first { $0.name == "drift" })
        let source = try writeScene(scene, in: folder)
        let output = folder.path("fit.mov")
        var options = fastOptions
        options.layout = .fit
        let summary = try Reframer.run(input: source, output: output, options: options)
        XCTAssertEqual(summary.path?.layouts, [.fit])
        // 1920×1080 into 608×1080: the picture is 608×342, 368 rows from the top.
        let band = FitRenderer.foreground(source: (1920, 1080), output: (608, 1080))
        XCTAssertEqual(band.x, 0)
        XCTAssertEqual(band.width, 608)
        XCTAssertEqual(band.height, 342)
        XCTAssertEqual(band.y, 368)
        for frame in [0, 30, 59] {
            let ours = folder.path("ours-\(frame).png"), reference = folder.path("reference-\(frame).png")
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", output, "-vf", "select=eq(n\\,\(frame)),crop=608:342:0:368",
                                              "-frames:v", "1", ours])?.code, 0)
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-vf", "select=eq(n\\,\(frame)),scale=608:342:flags=bicubic",
                                              "-frames:v", "1", reference])?.code, 0)
            XCTAssertGreaterThan(try psnrValue(ours, reference), 30, "frame \(frame): the middle is not the whole source scaled")
            // Above the picture: the source's centre window, blurred and darkened to about 45 % above black.
            let out = try luma(output, frame: frame), centre = try luma(source, frame: frame, filter: "crop=608:1080:656:0")
            XCTAssertEqual(out.count, 608 * 1080)
            XCTAssertEqual(centre.count, 608 * 1080)
            func mean(_ pixels: [UInt8], rows: Range<Int>) -> Double {
                rows.reduce(0.0) { sum, row in sum + pixels[(row * 608)..<(row * 608 + 608)].reduce(0.0) { $0 + Double($1) } } / Double(rows.count * 608)
            }
            for rows in [0..<360, 720..<1080] {
                // (ffmpeg's gray is full range: video black is 0 there.)
                let ratio = mean(out, rows: rows) / mean(centre, rows: rows)
                XCTAssertEqual(ratio, FitRenderer.backgroundBrightness, accuracy: 0.1, "frame \(frame) rows \(rows)")
            }
            // Blurred: neighbouring background pixels differ far less than the sharp source's.
            func roughness(_ pixels: [UInt8], rows: Range<Int>) -> Double {
                var total = 0.0
                for row in rows { for x in 1..<608 { total += abs(Double(pixels[row * 608 + x]) - Double(pixels[row * 608 + x - 1])) } }
                return total / Double(rows.count * 607)
            }
            XCTAssertLessThan(roughness(out, rows: 0..<360), 0.5 * roughness(centre, rows: 0..<360) * FitRenderer.backgroundBrightness + 0.05,
                              "frame \(frame): the background is not blurred")
        }
        let streams = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,width,height,nb_frames:stream_disposition=default",
                                                        "-of", "csv=p=0", output])).out.split(separator: "\n")
        XCTAssertEqual(streams.first, "video,608,1080,\(scene.frameCount),1")
        XCTAssertEqual(streams.dropFirst().map { $0.split(separator: ",").last.map(String.init) }, ["1", "0"], "stereo enabled, spatial stand-in disabled")
        try ReframeTests.assertAudioPassedThrough(source: source, output: output)
    }

    /// fit on the real iPhone recording (stored rotated 90°, HEVC Main10 HLG) into a square: the picture is
    /// turned upright before it is scaled (checked against ffmpeg's autorotated scale), stays 10-bit HLG, and
    /// the stereo and spatial audio pass through byte for byte with the fallback reference.
    func testFitOnTheRotatedHDRRecording() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("iphone-fit.mov")
        var options = fastOptions
        options.aspect = PixelSize(width: 1, height: 1)
        options.size = PixelSize(width: 270, height: 270)
        options.layout = .fit
        let summary = try Reframer.run(input: input, output: output, options: options)
        XCTAssertEqual(summary.orientation.rotation, 90)
        XCTAssertEqual(summary.path?.layouts.allSatisfy { $0 == .fit }, true)
        let video = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                      "stream=codec_name,profile,width,height,pix_fmt,color_transfer", "-of", "csv=p=0", output])).out
        XCTAssertEqual(video.trimmingCharacters(in: .whitespacesAndNewlines), "hevc,Main 10,270,270,yuv420p10le,arib-std-b67")
        let band = FitRenderer.foreground(source: (1080, 1920), output: (270, 270))
        XCTAssertEqual(band.height, 270)
        XCTAssertEqual(band.width, 152)
        let ours = folder.path("ours.png"), reference = folder.path("reference.png")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", output, "-vf", "select=eq(n\\,30),crop=\(band.width):270:\(band.x):0",
                                          "-frames:v", "1", ours])?.code, 0)
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", input, "-vf", "select=eq(n\\,30),scale=\(band.width):270:flags=bicubic",
                                          "-frames:v", "1", reference])?.code, 0)
        XCTAssertGreaterThan(try psnrValue(ours, reference), 30, "frame 30 is not the upright picture scaled")
        XCTAssertEqual(try Movie.open(path: output).tracks.first { $0.format == "apac" }?.referencedIDs("fall"), [2])
        try ReframeTests.assertAudioPassedThrough(source: input, output: output)
    }

    /// fit on real footage of two people 2/3 of the frame apart: the judge finds both faces in one output
    /// frame as often as in ffmpeg's own scale-and-pad of the source (their heads tilt, so not on every frame),
    /// and never in the follow output, which shows one of them. split shows both (a face in each half) on more
    /// frames than fit and follow, its halves as ffmpeg crops, scales and stacks the planned windows.
    func testFitOutputOfTwoPeopleApartShowsBothPeople() throws {
        let source = try PersonDetectorTests.footage("two_people_apart.mp4")
        let folder = TemporaryFolder()
        var options = fastOptions
        options.size = PixelSize(width: 1080, height: 1920)
        options.layout = .fit
        let fit = folder.path("fit.mp4")
        _ = try Reframer.run(input: source, output: fit, options: options)
        options.layout = .follow
        let follow = folder.path("follow.mp4")
        _ = try Reframer.run(input: source, output: follow, options: options)
        let reference = folder.path("reference.mp4")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-i", source, "-vf", "scale=1080:608:flags=bicubic,pad=1080:1920:0:656",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-an", reference])?.code, 0)
        let band = FitRenderer.foreground(source: (480, 270), output: (1080, 1920))
        XCTAssertEqual(band.y, 656)
        // Faces of at least 100 output pixels (44 source pixels: these two are 45-60) in the sharp band.
        let rows = band.y..<(band.y + band.height)
        let ours = try judgedFaceCentres(fit, fps: 4, minimumSize: 100, rows: rows)
        let expected = try judgedFaceCentres(reference, fps: 4, minimumSize: 100, rows: rows)
        // (The follow output shows a face about 7 times the source's, 400 px: larger faces only, which is quicker.)
        let followed = try judgedFaceCentres(follow, fps: 4, minimumSize: 200, rows: 0..<1920)
        let apart = 0.3 * 1080
        print("two_people_apart: frames where the judge finds both people: fit \(framesWithTwoPeople(ours, apart: apart))/\(ours.count), ffmpeg scale+pad \(framesWithTwoPeople(expected, apart: apart))/\(expected.count), follow \(framesWithTwoPeople(followed, apart: apart))/\(followed.count); a face at all: fit \(ours.filter { !$0.isEmpty }.count), follow \(followed.filter { !$0.isEmpty }.count)")
        XCTAssertGreaterThanOrEqual(framesWithTwoPeople(expected, apart: apart), 1, "the judge must be able to see both on this clip")
        // (x264 and the judge's cascades at their limit: the count varies by a frame or two between encodes.)
        XCTAssertGreaterThanOrEqual(framesWithTwoPeople(ours, apart: apart), max(1, framesWithTwoPeople(expected, apart: apart) / 2))
        XCTAssertEqual(framesWithTwoPeople(followed, apart: apart), 0)
        // The man (right) is found on most frames of the fit output, at his place in the source (x 345 of 480).
        let man = ours.filter { xs in xs.contains { abs($0 - 345 * 2.25) < 100 } }.count
        XCTAssertGreaterThanOrEqual(Double(man), 0.8 * Double(ours.count))
        try ReframeTests.assertAudioPassedThrough(source: source, output: fit)

        options.layout = .split
        options.planOutput = folder.path("split.json")
        let split = folder.path("split.mp4")
        _ = try Reframer.run(input: source, output: split, options: options)
        let geometry = Reframer.splitGeometry(crop: PixelSize(width: 152, height: 270), output: PixelSize(width: 1080, height: 1920))
        XCTAssertEqual(geometry.window, SplitSize(width: 152, height: 134))
        // Each half judged as a picture of its own (the judge turns the picture about its centre for tilted heads).
        let upper = try judgedFaces(split, fps: 4, minimumSize: 200, rows: 0..<geometry.half)
        let lower = try judgedFaces(split, fps: 4, minimumSize: 200, rows: geometry.lowerHalfRow..<1920)
        XCTAssertEqual(upper.count, lower.count)
        let both = zip(upper, lower).filter { !$0.isEmpty && !$1.isEmpty }.count
        print("two_people_apart split: a face in each half \(both)/\(upper.count) (upper \(upper.filter { !$0.isEmpty }.count), lower \(lower.filter { !$0.isEmpty }.count)); fit both \(framesWithTwoPeople(ours, apart: apart)), follow both \(framesWithTwoPeople(followed, apart: apart))")
        XCTAssertGreaterThan(both, framesWithTwoPeople(ours, apart: apart), "split shows both people more often than fit")
        XCTAssertGreaterThan(both, framesWithTwoPeople(followed, apart: apart), "split shows both people more often than follow")
        XCTAssertGreaterThanOrEqual(Double(both), 0.8 * Double(upper.count))
        let plan = try SplitLayoutTests.json(options.planOutput!)
        for entry in try XCTUnwrap(plan["frames"] as? [[String: Any]]) {
            let top = try XCTUnwrap((entry["top"] as? [String: Int])?["x"]), bottom = try XCTUnwrap((entry["bottom"] as? [String: Int])?["x"])
            XCTAssertLessThanOrEqual(top + 152, bottom, "the halves show different parts of the picture (the woman above, the man below)")
        }
        for frame in [5, 30, 55] {
            let psnr = try SplitLayoutTests.psnrAgainstFFmpeg(source: source, output: split, plan: plan, frame: frame, geometry: geometry, folder: folder)
            XCTAssertGreaterThan(psnr, 30, "frame \(frame): not ffmpeg's crop + scale + vstack of the planned windows")
        }
        try ReframeTests.assertAudioPassedThrough(source: source, output: split)
    }

    /// auto on real footage: two people far apart who cannot share a crop get split; the talking head is followed with the
    /// same path as the default layout; the stage clip's audience shot (six faces) gets fit, its performer
    /// shots follow; within every shot the subject changes at most once.
    func testAutoChoosesPerShotOnFootage() throws {
        let folder = TemporaryFolder()
        func plan(_ name: String, _ layout: LayoutMode) throws -> (plan: [String: Any], summary: ReframeSummary) {
            var options = fastOptions
            options.layout = layout
            options.planOnly = true
            options.planOutput = folder.path("\(name)-\(layout).json")
            let summary = try Reframer.run(input: try PersonDetectorTests.footage(name), output: "", options: options)
            let data = try Data(contentsOf: URL(fileURLWithPath: options.planOutput!))
            return (try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any]), summary)
        }
        let two = try plan("two_people_apart.mp4", .auto)
        XCTAssertEqual(two.plan["layouts"] as? [String], ["split"], "two people, far apart, nobody else")
        XCTAssertEqual(two.summary.shotDecisions.first?.mattering.count, 2)
        let talking = try plan("talking_head_720p.mp4", .auto), talkingDefault = try plan("talking_head_720p.mp4", .follow)
        XCTAssertEqual(talking.plan["layouts"] as? [String], ["follow"])
        XCTAssertEqual(talking.summary.path?.offsets, talkingDefault.summary.path?.offsets)
        let stage = try plan("stage_cuts_audience.mp4", .auto)
        let layouts = try XCTUnwrap(stage.plan["layouts"] as? [String])
        print("stage_cuts_audience auto: layouts \(layouts), people who matter \(stage.summary.shotDecisions.map(\.mattering.count)), people seen \(stage.summary.shotDecisions.map(\.people.count)), switches \(stage.summary.shotDecisions.map(\.switches))")
        XCTAssertEqual(layouts.count, stage.summary.path?.shots.count)
        XCTAssertEqual(layouts.last, "fit", "the audience shot")
        XCTAssertTrue(layouts.dropLast().allSatisfy { $0 == "follow" }, "the performer's shots")
        XCTAssertGreaterThan(stage.summary.shotDecisions.map(\.people.count).max() ?? 0, 1, "several people seen in a shot")
        for decisions in [two, talking, stage].map(\.summary.shotDecisions) {
            XCTAssertTrue(decisions.allSatisfy { $0.switches <= 1 }, "\(decisions.map(\.switches))")
        }
    }

    /// auto rests on evidence that persists, on real footage: with the detections the analysis made of each
    /// clip, one detection added (a copy of a face found there, moved a third of the picture either way) or
    /// removed on any analysed frame changes no layout of a shot analysed at least twice. (A shot the
    /// analysis looked at once has no other evidence: there one face more is a second person.)
    func testAutoIsNotTippedByOneDetectionOnFootage() throws {
        for name in ["stage_cuts_audience.mp4", "two_people_apart.mp4", "talking_head_720p.mp4"] {
            let movie = try Movie.open(path: try PersonDetectorTests.footage(name))
            let video = try ReframeTracks(movie: movie).video
            let entry = try XCTUnwrap(video.visualEntry)
            let orientation = DisplayOrientation(rotation: video.header.rotation ?? 0, storedWidth: Int(entry.width), storedHeight: Int(entry.height))
            let width = orientation.displayWidth, height = orientation.displayHeight
            let crop = CameraPathPlanner.cropSize(sourceWidth: width, sourceHeight: height, aspectWidth: 9, aspectHeight: 16)
            let analysis = try Reframer.analyse(movie, video, orientation: orientation, options: fastOptions,
                                                outputPixels: crop.width * crop.height, detect: true, keep: false) { _, _ in }
            let cuts = analysis.cuts().cuts
            let planner = CameraPathPlanner(sourceWidth: width, sourceHeight: height, cropWidth: crop.width, cropHeight: crop.height)
            func layouts(_ samples: [DetectionSample]) -> [ShotLayout] {
                planner.plan(frameTimes: analysis.frameTimes, samples: samples, cuts: cuts, layout: .auto).shots.map(\.layout)
            }
            let base = planner.plan(frameTimes: analysis.frameTimes, samples: analysis.samples, cuts: cuts, layout: .auto).shots
            let judged = base.indices.filter { shot in analysis.samples.filter { base[shot].frames.contains($0.frameIndex) }.count >= 2 }
            var changes = 0
            var tipped: [String] = []
            for (index, sample) in analysis.samples.enumerated() {
                var variants: [(String, [DetectionSample])] = []
                for (number, found) in sample.faces.enumerated() {
                    var removed = analysis.samples
                    removed[index].faces.remove(at: number)
                    variants.append(("face \(number) of frame \(sample.frameIndex) removed", removed))
                    for shift in [-1.0 / 3, 1.0 / 3] {
                        var copy = found
                        copy.box.x = min(max(0, found.box.x + shift * Double(width)), Double(width) - found.box.width)
                        var added = analysis.samples
                        added[index].faces.append(copy)
                        variants.append(("a copy of face \(number) at x \(Int(copy.box.midX)) on frame \(sample.frameIndex)", added))
                    }
                }
                for (change, samples) in variants {
                    changes += 1
                    let result = layouts(samples)
                    for shot in judged where result[shot] != base[shot].layout { tipped.append("\(change): shot \(shot) \(result[shot])") }
                }
            }
            print("\(name): auto \(base.map(\.layout.rawValue)), \(judged.count) of \(base.count) shots analysed twice or more, \(changes) one-detection changes, tipped \(tipped.count)")
            XCTAssertGreaterThan(changes, 10, name)
            XCTAssertFalse(judged.isEmpty, name)
            XCTAssertEqual(tipped, [], name)
        }
    }

    /// A plan edited to show a shot as fit renders exactly what --layout fit renders; bad layouts are refused
    /// naming the field; --layout with --plan is a usage error.
    func testAnEditedPlanChangesTheLayout() throws {
        let source = try PersonDetectorTests.footage("two_people_apart.mp4")
        let folder = TemporaryFolder()
        var options = fastOptions
        options.planOutput = folder.path("plan.json")
        _ = try Reframer.run(input: source, output: folder.path("follow.mp4"), options: options)
        let text = try String(contentsOfFile: options.planOutput!, encoding: .utf8)
        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(written["layouts"] as? [String], ["follow"])
        func edited(_ layouts: String, _ name: String) throws -> String {
            let path = folder.path(name)
            let replaced = text.replacingOccurrences(of: #""layouts":\s*\[[^\]]*\]"#, with: "\"layouts\":\(layouts)", options: .regularExpression)
            XCTAssertNotEqual(replaced, text)
            try replaced.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        var fitOptions = fastOptions
        fitOptions.layout = .fit
        let fit = folder.path("fit.mp4")
        _ = try Reframer.run(input: source, output: fit, options: fitOptions)
        var planned = fastOptions
        planned.planInput = try edited("[\"fit\"]", "fit-plan.json")
        let rendered = folder.path("planned.mp4")
        let summary = try Reframer.run(input: source, output: rendered, options: planned)
        XCTAssertEqual(summary.path?.layouts, [.fit])
        let a = try Movie.open(path: fit), b = try Movie.open(path: rendered)
        let videoA = try XCTUnwrap(a.tracks.first { $0.kind == .video }), videoB = try XCTUnwrap(b.tracks.first { $0.kind == .video })
        XCTAssertEqual(try videoB.sampleTable.samples.map { try b.source.read(at: $0.offset, count: Int($0.size)) },
                       try videoA.sampleTable.samples.map { try a.source.read(at: $0.offset, count: Int($0.size)) },
                       "the edited plan renders the same frames as --layout fit")

        let unknown = runCLI(["reframe", "--plan", try edited("[\"zoom\"]", "zoom.json"), source, folder.path("zoom.mp4")])
        XCTAssertEqual(unknown.code, 65, unknown.error)
        XCTAssertTrue(unknown.error.contains("layouts[0]"), unknown.error)
        let count = runCLI(["reframe", "--plan", try edited("[\"fit\",\"follow\"]", "two.json"), source, folder.path("two.mp4")])
        XCTAssertEqual(count.code, 65, count.error)
        XCTAssertTrue(count.error.contains("\"layouts\" has 2 entries"), count.error)
        let both = runCLI(["reframe", "--layout", "fit", "--plan", options.planOutput!, source, folder.path("both.mp4")])
        XCTAssertEqual(both.code, 64, both.error)
        let bad = runCLI(["reframe", "--layout", "zoom", source, folder.path("bad.mp4")])
        XCTAssertEqual(bad.code, 64, bad.error)
        XCTAssertTrue(bad.error.contains("follow, fit, split, auto"), bad.error)
    }
}
