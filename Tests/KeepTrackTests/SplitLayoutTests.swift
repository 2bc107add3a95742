import Foundation
import XCTest
import KeepTrack
import KeepTrackFixtures
import KeepTrackFraming
@testable import KeepTrackReframePipeline

/// `--layout split` end to end: on a synthetic scene of two people far apart (ground truth per frame) each
/// half follows its own person, centred, without jitter or reversals, within the speed limits; the halves are
/// exactly ffmpeg's crop + scale + vstack of the planned windows; plan files carry both windows per frame and
/// an edited one renders; audio passes through untouched. (Real footage: LayoutTests.)
final class SplitLayoutTests: XCTestCase {
    var fastOptions: ReframeOptions {
        var options = ReframeOptions()
        options.preset = "ultrafast"
        return options
    }

    /// Our output frame `frame` against ffmpeg's own crop + scale of the two windows stacked with a black
    /// divider (the same filter graph a user would write), as PSNR in dB.
    static func psnrAgainstFFmpeg(source: String, output: String, plan: [String: Any], frame: Int, geometry: SplitGeometry,
                                  folder: TemporaryFolder) throws -> Double {
        try halfPSNR(source: source, output: output, plan: plan, frame: frame, geometry: geometry, rows: 0..<geometry.output.height, folder: folder)
    }

    static func json(_ file: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
    }

    /// One window's path (x along the horizontal axis) as a crop path, for the path statistics.
    static func windowPath(_ plan: [String: Any], _ name: String, path: CropPath) throws -> CropPath {
        let frames = try XCTUnwrap(plan["frames"] as? [[String: Any]])
        let offsets = try frames.map { try XCTUnwrap(($0[name] as? [String: Int])?["x"]) }
        return CropPath(axis: .horizontal, sourceWidth: path.sourceWidth, sourceHeight: path.sourceHeight,
                        cropWidth: path.splitSize.width, cropHeight: path.splitSize.height, offsets: offsets, shots: path.shots)
    }

    func testSplitFollowsEachPersonOfASyntheticScene() throws {
        let folder = TemporaryFolder()
        let scene = ReframeScene.twoApart(duration: 4)
        let source = try writeScene(scene, in: folder)
        let output = folder.path("split.mov")
        var options = fastOptions
        options.layout = .split
        options.planOutput = folder.path("plan.json")
        let summary = try Reframer.run(input: source, output: output, options: options)
        let path = try XCTUnwrap(summary.path)
        XCTAssertEqual(path.layouts, [.split])
        XCTAssertEqual(summary.shotDecisions.first?.mattering.count, 2)
        let geometry = SplitGeometry(crop: SplitSize(width: 608, height: 1080), output: SplitSize(width: 608, height: 1080))
        XCTAssertEqual(geometry.half, 538)
        XCTAssertEqual(geometry.divider, 4)
        XCTAssertEqual(path.splitSize, SplitSize(width: 608, height: 538))

        // Ground truth: each window holds its own person's face, near its centre line (at rest within 5 % of
        // the window's width, moving within the central 40 %), the face a third of the way down.
        var restErrors: [Double] = [], worst = 0.0
        for frame in 0..<scene.frameCount {
            let windows = try XCTUnwrap(path.splitRects(frame: frame))
            for (person, window) in [(0, windows.top), (1, windows.bottom)] {
                let face = scene.faceRect(frame: frame)
                let own = person == 0 ? face : { let b = scene.faceBox(frame: frame, person: 1); return FrameRect(x: b.x, y: b.y, width: b.width, height: b.height) }()
                XCTAssertTrue(window.contains(own), "frame \(frame): person \(person)'s face \(own) is not inside its window \(window)")
                let offset = abs(own.midX - window.midX) / window.width
                worst = max(worst, offset)
                XCTAssertLessThanOrEqual(offset, 0.2, "frame \(frame), person \(person): the face leaves the central 40 %")
                // The left person rests for the first 2 s (after the first half second of settling); the right one throughout.
                if person == 1 || (15..<60).contains(frame) { restErrors.append(offset) }
                XCTAssertEqual((own.midY - window.y) / window.height, 1.0 / 3, accuracy: 0.06, "frame \(frame): face a third down")
            }
        }
        print("two-apart split: worst face offset from the window's centre \(worst), at rest \(restErrors.max() ?? -1)")
        XCTAssertLessThanOrEqual(restErrors.max() ?? 1, 0.05)

        // Each window's path: no reversal, within the planner's speed limit, the still person's window still.
        let plan = try Self.json(options.planOutput!)
        XCTAssertEqual(plan["split"] as? [String: Int], ["width": 608, "height": 538])
        let times = (0..<scene.frameCount).map { Double($0) / 30 }
        let limit = CameraPathPlanner.Settings().maximumSpeed * 1920
        for name in ["top", "bottom"] {
            let statistics = PathStatistics(path: try Self.windowPath(plan, name, path: path), frameTimes: times)
            print("two-apart split \(name): \(statistics)")
            XCTAssertEqual(statistics.reversals, 0, name)
            XCTAssertLessThanOrEqual(statistics.maximumSpeed, limit, name)
            XCTAssertLessThanOrEqual(statistics.largestStep, 16, name)
            if name == "bottom" { XCTAssertEqual(statistics.movingFrames, 0, "the still person's window never moves") }
        }
        let top = try Self.windowPath(plan, "top", path: path).offsets
        XCTAssertGreaterThan(top.last! - top.first!, 100, "the top window follows the left person's walk (250 px)")

        // The output: ffprobe's frames, size and duration; every half as ffmpeg crops and stacks it.
        let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,nb_frames,duration",
                                                      "-of", "csv=p=0", output])).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let fields = probe.split(separator: ",")
        XCTAssertEqual(fields.prefix(2), ["608", "1080"])
        XCTAssertEqual(fields.last.map(String.init), "\(scene.frameCount)")
        XCTAssertEqual(Double(fields[2]) ?? 0, 4, accuracy: 0.05)
        for frame in [0, 45, 90, 119] {
            let psnr = try Self.psnrAgainstFFmpeg(source: source, output: output, plan: plan, frame: frame, geometry: geometry, folder: folder)
            XCTAssertGreaterThan(psnr, 35, "frame \(frame): not ffmpeg's crop + vstack of the planned windows")
        }
        try ReframeTests.assertAudioPassedThrough(source: source, output: output)

        // auto chooses split for two people this far apart; the JSON summary says so.
        let auto = runCLI(["reframe", "--layout", "auto", "--plan-only", "--plan-out", folder.path("auto.json"), "--json", source])
        XCTAssertEqual(auto.code, 0, auto.error)
        let summaryJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(auto.out.utf8)) as? [String: Any])
        XCTAssertEqual((summaryJSON["layout"] as? [String: Any])?["shots"] as? [String], ["split"])
        let autoPlan = try Self.json(folder.path("auto.json"))
        XCTAssertEqual((autoPlan["frames"] as? [[String: Any]])?.count, scene.frameCount)

        // --json describes each window of a split shot: its own path (as the plan file's windows move), how
        // often its person's face is inside it, how it centres the face (the still person's window at rest on
        // the face, the walking person's keeping it in its central 40 %).
        let windows = try XCTUnwrap(summaryJSON["splitWindows"] as? [String: [String: Any]], "\(summaryJSON.keys.sorted())")
        for name in ["top", "bottom"] {
            let reported = try XCTUnwrap(windows[name], name)
            print("two-apart auto --json splitWindows.\(name): \(reported)")
            let fromPlan = PathStatistics(path: try Self.windowPath(autoPlan, name, path: path), frameTimes: times)
            XCTAssertEqual(reported["movingFrames"] as? Int, fromPlan.movingFrames, name)
            XCTAssertEqual(reported["reversals"] as? Int, fromPlan.reversals, name)
            XCTAssertEqual(reported["largestStep"] as? Int, fromPlan.largestStep, name)
            XCTAssertEqual(reported["reversals"] as? Int, 0, name)
            XCTAssertGreaterThan(reported["framesPossible"] as? Int ?? 0, 5, name)
            XCTAssertGreaterThanOrEqual(reported["coverage"] as? Double ?? 0, 0.95, name)
            XCTAssertGreaterThanOrEqual(reported["centralFraction"] as? Double ?? 0, 0.9, name)
        }
        XCTAssertEqual(windows["bottom"]?["movingFrames"] as? Int, 0, "the still person's window")
        XCTAssertGreaterThan(windows["top"]?["movingFrames"] as? Int ?? 0, 10, "the walking person's window")
        XCTAssertGreaterThan(windows["bottom"]?["restFrames"] as? Int ?? 0, 15, "rest frames: the detections interpolated, 0.5 s of settling each end")
        XCTAssertLessThanOrEqual(windows["bottom"]?["largestRestOffset"] as? Double ?? 1, 0.05)
        let main = try XCTUnwrap(summaryJSON["path"] as? [String: Any])
        XCTAssertEqual(main["movingFrames"] as? Int, PathStatistics(path: CropPath(axis: .horizontal, sourceWidth: 1920, sourceHeight: 1080, cropWidth: 608,
            cropHeight: 1080, offsets: try XCTUnwrap(autoPlan["frames"] as? [[String: Any]]).map { try XCTUnwrap($0["x"] as? Int) },
            shots: path.shots), frameTimes: times).movingFrames, "path: the main crop's")
    }

    /// PSNR (dB) of the output rows `rows` of frame `frame` of `output` against the same rows of ffmpeg's crop +
    /// scale + vstack of the planned windows of `source` (ffmpeg turns a rotated source upright first).
    static func halfPSNR(source: String, output: String, plan: [String: Any], frame: Int, geometry: SplitGeometry, rows: Range<Int>,
                         swapped: Bool = false, folder: TemporaryFolder) throws -> Double {
        let frames = try XCTUnwrap(plan["frames"] as? [[String: Any]])
        var top = try XCTUnwrap(frames[frame]["top"] as? [String: Int]), bottom = try XCTUnwrap(frames[frame]["bottom"] as? [String: Int])
        if swapped { swap(&top, &bottom) }
        let w = geometry.window.width, h = geometry.window.height, width = geometry.output.width, half = geometry.half
        let graph = "[0:v]select=eq(n\\,\(frame)),split[a][b];"
            + "[a]crop=\(w):\(h):\(top["x"]!):\(top["y"]!),scale=\(width):\(half):flags=bicubic,pad=\(width):\(half + geometry.divider):0:0:black[t];"
            + "[b]crop=\(w):\(h):\(bottom["x"]!):\(bottom["y"]!),scale=\(width):\(half):flags=bicubic[u];[t][u]vstack,crop=\(width):\(rows.count):0:\(rows.lowerBound)[v]"
        let reference = folder.path("reference-\(frame)-\(rows.lowerBound)\(swapped).png"), ours = folder.path("ours-\(frame)-\(rows.lowerBound).png")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-filter_complex", graph, "-map", "[v]", "-frames:v", "1", reference])?.code, 0)
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", output, "-vf", "select=eq(n\\,\(frame)),crop=\(width):\(rows.count):0:\(rows.lowerBound)",
                                          "-frames:v", "1", ours])?.code, 0)
        return try psnrValue(ours, reference)
    }

    /// Each half of `output` at `frames` is ffmpeg's upright crop + scale of its own planned window of `source`
    /// (PSNR > 30 dB) and at least `margin` dB further from the other window's.
    static func assertHalvesShowTheirWindows(source: String, output: String, plan: [String: Any], geometry: SplitGeometry, frames: [Int],
                                             margin: Double, folder: TemporaryFolder, file: StaticString = #filePath, line: UInt = #line) throws {
        for frame in frames {
            for rows in [0..<geometry.half, geometry.lowerHalfRow..<geometry.output.height] {
                let own = try halfPSNR(source: source, output: output, plan: plan, frame: frame, geometry: geometry, rows: rows, folder: folder)
                let other = try halfPSNR(source: source, output: output, plan: plan, frame: frame, geometry: geometry, rows: rows, swapped: true, folder: folder)
                print("\(URL(fileURLWithPath: source).lastPathComponent) split, frame \(frame), rows \(rows): PSNR \(own) dB against its window, \(other) dB against the other window")
                XCTAssertGreaterThan(own, 30, "frame \(frame), rows \(rows): not ffmpeg's upright crop of the planned window", file: file, line: line)
                XCTAssertLessThan(other, own - margin, "frame \(frame), rows \(rows): the half does not tell its window from the other", file: file, line: line)
            }
        }
    }

    /// `input` re-encoded stored turned a quarter counter-clockwise, with a track matrix that turns it back
    /// (90°, as an iPhone records portrait): what players show is the original picture. (FFmpeg 5.1 cannot
    /// write a rotation, so the 36 matrix bytes of the video tkhd are rewritten in place.)
    static func rotatedCopy(of input: String, in folder: TemporaryFolder) throws -> String {
        let stored = folder.path("stored.mp4"), rotated = folder.path("rotated.mp4")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-i", input, "-vf", "transpose=2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "16",
                                          "-c:a", "copy", stored])?.code, 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stored)))
        func word(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let identity = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000].flatMap(word)
        let quarter = [0, 0x10000, 0, 0xFFFF_0000, 0, 0, 0, 0, 0x4000_0000].flatMap(word)
        let tkhd = try XCTUnwrap(bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual(Array("tkhd".utf8)) })
        let matrix = try XCTUnwrap((tkhd..<(tkhd + 100)).first { bytes[$0..<($0 + 36)].elementsEqual(identity) }, "the video tkhd's matrix")
        bytes.replaceSubrange(matrix..<(matrix + 36), with: quarter)
        try Data(bytes).write(to: URL(fileURLWithPath: rotated))
        return rotated
    }

    /// split on a rotated source: two people apart in a clip stored turned (players show it upright) are
    /// detected and split in display orientation — the same plan as the upright clip's — and each half is
    /// ffmpeg's crop of its window from the upright picture (swapping the windows does not match: each half
    /// shows its own window); auto splits it too; the audio passes through.
    func testSplitOnARotatedClipOfTwoPeople() throws {
        let folder = TemporaryFolder()
        let upright = try PersonDetectorTests.footage("two_people_apart.mp4")
        let rotated = try Self.rotatedCopy(of: upright, in: folder)
        let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height:stream_side_data=rotation",
                                                      "-of", "flat", rotated])).out
        XCTAssertTrue(probe.contains("width=270") && probe.contains("height=480") && probe.contains("rotation=-90"), probe)
        for (name, path) in [("upright", upright), ("rotated", rotated)] {
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", path, "-vf", "select=eq(n\\,20)", "-frames:v", "1", folder.path("\(name).png")])?.code, 0)
        }
        XCTAssertGreaterThan(try psnrValue(folder.path("rotated.png"), folder.path("upright.png")), 40, "ffmpeg shows the rotated copy upright")

        var options = fastOptions
        options.size = PixelSize(width: 1080, height: 1920)
        options.layout = .split
        options.planOutput = folder.path("rotated.json")
        let output = folder.path("split.mp4")
        let summary = try Reframer.run(input: rotated, output: output, options: options)
        XCTAssertEqual(summary.orientation.rotation, 90)
        XCTAssertEqual(summary.path?.layouts, [.split])
        options.planOutput = folder.path("upright.json")
        options.planOnly = true
        _ = try Reframer.run(input: upright, output: "", options: options)
        let plan = try Self.json(folder.path("rotated.json")), uprightPlan = try Self.json(folder.path("upright.json"))
        XCTAssertEqual(plan["split"] as? [String: Int], ["width": 152, "height": 134])
        func windows(_ plan: [String: Any]) throws -> [[String: Int]] {
            try XCTUnwrap(plan["frames"] as? [[String: Any]]).flatMap { [$0["top"] as? [String: Int] ?? [:], $0["bottom"] as? [String: Int] ?? [:]] }
        }
        // (The rotated copy is a re-encode: its detections move by a pixel or two.)
        let difference = zip(try windows(plan), try windows(uprightPlan)).flatMap { a, b in ["x", "y"].map { abs((a[$0] ?? -99) - (b[$0] ?? 99)) } }.max() ?? 99
        print("rotated vs upright two_people_apart split plan: windows differ by at most \(difference) px")
        XCTAssertLessThanOrEqual(difference, 8, "the rotated clip is planned as the upright one")
        let geometry = Reframer.splitGeometry(crop: PixelSize(width: 152, height: 270), output: PixelSize(width: 1080, height: 1920))
        let probeOut = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height:stream_side_data=rotation",
                                                         "-of", "flat", output])).out
        XCTAssertTrue(probeOut.contains("width=1080") && probeOut.contains("height=1920") && !probeOut.contains("rotation"), probeOut)
        try Self.assertHalvesShowTheirWindows(source: rotated, output: output, plan: plan, geometry: geometry, frames: [5, 30, 55],
                                              margin: 6, folder: folder)
        try ReframeTests.assertAudioPassedThrough(source: rotated, output: output)
        var auto = fastOptions
        auto.layout = .auto
        auto.planOnly = true
        auto.planOutput = folder.path("auto.json")
        XCTAssertEqual(try Reframer.run(input: rotated, output: "", options: auto).path?.layouts, [.split])
    }

    /// split on the real iPhone recording (stored rotated 90°, HEVC Main10 HLG, stereo + spatial audio):
    /// --layout split and auto find nobody to split on it (no face is found in this street scene) and follow;
    /// a plan edited into a split (two windows of the upright picture, the lower one moving) renders each half
    /// as ffmpeg's crop of that window from the upright picture, stays 10-bit HLG with its colour tags, and
    /// passes both audio tracks through byte for byte with the fallback reference, as fit does.
    func testSplitOnTheRotatedHDRRecording() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        var options = fastOptions
        options.aspect = PixelSize(width: 1, height: 1)
        options.size = PixelSize(width: 270, height: 270)
        options.planOnly = true
        for mode in [LayoutMode.split, .auto] {
            options.layout = mode
            options.planOutput = folder.path("\(mode).json")
            let summary = try Reframer.run(input: input, output: "", options: options)
            XCTAssertEqual(summary.orientation.rotation, 90)
            XCTAssertEqual(summary.path?.layouts, [.follow], "\(mode): nobody to split")
        }
        var plan = try Self.json(folder.path("split.json"))
        XCTAssertEqual(plan["crop"] as? [String: Int], ["width": 1080, "height": 1080])
        plan["layouts"] = ["split"]
        plan["split"] = ["width": 1080, "height": 536]
        var frames = try XCTUnwrap(plan["frames"] as? [[String: Any]])
        for index in frames.indices {
            frames[index]["top"] = ["x": 0, "y": 760]
            frames[index]["bottom"] = ["x": 0, "y": 1380 - 4 * index]
        }
        plan["frames"] = frames
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: folder.path("edited.json")))
        var render = fastOptions
        render.aspect = PixelSize(width: 1, height: 1)
        render.size = PixelSize(width: 270, height: 270)
        render.planInput = folder.path("edited.json")
        let output = folder.path("iphone-split.mov")
        let summary = try Reframer.run(input: input, output: output, options: render)
        XCTAssertEqual(summary.path?.layouts, [.split])
        let video = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                      "stream=codec_name,profile,width,height,pix_fmt,color_transfer,color_primaries,color_space",
                                                      "-of", "csv=p=0", output])).out
        XCTAssertEqual(video.trimmingCharacters(in: .whitespacesAndNewlines), "hevc,Main 10,270,270,yuv420p10le,bt2020nc,arib-std-b67,bt2020")
        let geometry = Reframer.splitGeometry(crop: PixelSize(width: 1080, height: 1080), output: PixelSize(width: 270, height: 270))
        XCTAssertEqual(geometry.window, SplitSize(width: 1080, height: 536))
        let edited = try Self.json(folder.path("edited.json"))
        try Self.assertHalvesShowTheirWindows(source: input, output: output, plan: edited, geometry: geometry, frames: [5, 40, 65],
                                              margin: 3, folder: folder)
        XCTAssertEqual(try Movie.open(path: output).tracks.first { $0.format == "apac" }?.referencedIDs("fall"), [2])
        try ReframeTests.assertAudioPassedThrough(source: input, output: output)
    }

    /// A split plan renders again as the same frames; an edited window moves the half; a plan whose split
    /// shot lacks its windows, or has them outside the picture, is refused (65) naming the field.
    func testSplitPlanFileRoundTripsAndIsChecked() throws {
        let folder = TemporaryFolder()
        let scene = ReframeScene.twoApart(duration: 2)
        let source = try writeScene(scene, in: folder)
        var options = fastOptions
        options.layout = .split
        options.planOutput = folder.path("plan.json")
        let first = folder.path("split.mov")
        _ = try Reframer.run(input: source, output: first, options: options)
        let text = try String(contentsOfFile: options.planOutput!, encoding: .utf8)

        var planned = fastOptions
        planned.planInput = options.planOutput
        let again = folder.path("again.mov")
        let summary = try Reframer.run(input: source, output: again, options: planned)
        XCTAssertEqual(summary.path?.layouts, [.split])
        func videoSamples(_ file: String) throws -> [[UInt8]] {
            let movie = try Movie.open(path: file)
            let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
            return try video.sampleTable.samples.map { try movie.source.read(at: $0.offset, count: Int($0.size)) }
        }
        XCTAssertEqual(try videoSamples(again), try videoSamples(first), "the written plan renders the same frames")

        func edited(_ name: String, _ change: (inout [String: Any]) -> Void) throws -> String {
            var plan = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            change(&plan)
            let file = folder.path(name)
            try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: file))
            return file
        }
        func frames(_ plan: inout [String: Any], _ change: (inout [String: Any], Int) -> Void) {
            var list = plan["frames"] as! [[String: Any]]
            for index in list.indices { change(&list[index], index) }
            plan["frames"] = list
        }
        // Every upper window moved to the left edge: the upper half shows the frame's left edge.
        var moved = fastOptions
        moved.planInput = try edited("left.json") { plan in frames(&plan) { frame, _ in frame["top"] = ["x": 0, "y": 100] } }
        let left = folder.path("left.mov")
        _ = try Reframer.run(input: source, output: left, options: moved)
        let geometry = SplitGeometry(crop: SplitSize(width: 608, height: 1080), output: SplitSize(width: 608, height: 1080))
        let editedPlan = try Self.json(moved.planInput!)
        XCTAssertGreaterThan(try Self.psnrAgainstFFmpeg(source: source, output: left, plan: editedPlan, frame: 30, geometry: geometry,
                                                        folder: folder), 35)

        let missing = try edited("missing.json") { plan in frames(&plan) { frame, index in if index == 5 { frame["bottom"] = nil } } }
        let outside = try edited("outside.json") { plan in frames(&plan) { frame, index in if index == 7 { frame["top"] = ["x": 1400, "y": 0] } } }
        let size = try edited("size.json") { plan in plan["split"] = ["width": 608, "height": 540] }
        let noSize = try edited("nosize.json") { plan in plan["split"] = nil }
        for (file, field) in [(missing, "frames[5].bottom"), (outside, "frames[7].top.x is 1400"), (size, "split is 608x540"),
                              (noSize, "\"split\"")] {
            let result = runCLI(["reframe", "--plan", file, source, folder.path("refused.mov")])
            XCTAssertEqual(result.code, 65, result.error)
            XCTAssertTrue(result.error.contains(field), "\(field): \(result.error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("refused.mov")))
    }
}
