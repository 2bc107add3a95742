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
        let frames = try XCTUnwrap(plan["frames"] as? [[String: Any]])
        let entry = frames[frame]
        let top = try XCTUnwrap(entry["top"] as? [String: Int]), bottom = try XCTUnwrap(entry["bottom"] as? [String: Int])
        let w = geometry.window.width, h = geometry.window.height, width = geometry.output.width, half = geometry.half
        let graph = "[0:v]select=eq(n\\,\(frame)),split[a][b];"
            + "[a]crop=\(w):\(h):\(top["x"]!):\(top["y"]!),scale=\(width):\(half):flags=bicubic,pad=\(width):\(half + geometry.divider):0:0:black[t];"
            + "[b]crop=\(w):\(h):\(bottom["x"]!):\(bottom["y"]!),scale=\(width):\(half):flags=bicubic[u];[t][u]vstack[v]"
        let reference = folder.path("reference-\(frame).png"), ours = folder.path("ours-\(frame).png")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-filter_complex", graph, "-map", "[v]", "-frames:v", "1", reference])?.code, 0)
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", output, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1", ours])?.code, 0)
        return try psnrValue(ours, reference)
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
        XCTAssertEqual((try Self.json(folder.path("auto.json"))["frames"] as? [[String: Any]])?.count, scene.frameCount)
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
