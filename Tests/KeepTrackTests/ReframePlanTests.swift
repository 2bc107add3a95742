import Foundation
import XCTest
import KeepTrack
import KeepTrackFraming
@testable import KeepTrackReframePipeline

/// `--plan-out`, `--plan` and `--plan-only`: the crop path as a file a person can read, edit and render.
final class ReframePlanTests: XCTestCase {
    /// A 640x360 clip with a picture that differs across its width (ffmpeg's testsrc2), 2 s, with AAC audio.
    static func clip(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("source.mp4")
        let made = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=2", "-f", "lavfi",
                                                     "-i", "sine=f=440:d=2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                                                     "-c:a", "aac", "-shortest", path]))
        XCTAssertEqual(made.code, 0, made.out)
        return path
    }

    static func plan(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    static func xs(_ plan: [String: Any]) throws -> [Int] {
        try XCTUnwrap(plan["frames"] as? [[String: Any]]).map { ($0["x"] as? Int) ?? -1 }
    }

    var options: ReframeOptions {
        var options = ReframeOptions()
        options.preset = "ultrafast"
        return options
    }

    func testPlanOutRendersTheSamePathAgainAndPlanOnlyWritesItWithoutEncoding() throws {
        let folder = TemporaryFolder()
        let source = try Self.clip(in: folder)
        var first = options
        first.planOutput = folder.path("plan.json")
        let summary = try Reframer.run(input: source, output: folder.path("first.mp4"), options: first)
        let plan = try Self.plan(folder.path("plan.json"))
        XCTAssertEqual(plan["keeptrackPlan"] as? Int, 1)
        XCTAssertEqual((plan["crop"] as? [String: Any])?["width"] as? Int, 202)
        XCTAssertEqual(try Self.xs(plan), try XCTUnwrap(summary.path).offsets, "one entry per frame: the path that was encoded")
        XCTAssertEqual(try Self.xs(plan).count, 60)

        // Rendering the plan again: the same path, the same encoded video, no detection.
        var again = options
        again.planInput = folder.path("plan.json")
        again.planOutput = folder.path("again.json")
        let rendered = try Reframer.run(input: source, output: folder.path("again.mp4"), options: again)
        XCTAssertEqual(rendered.analysedFrames, 0, "nothing detected")
        XCTAssertEqual(try Self.xs(try Self.plan(folder.path("again.json"))), try Self.xs(plan))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: folder.path("again.mp4"))).count > 0, true)
        let firstFrames = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-i", folder.path("first.mp4"), "-f", "framemd5", "-"])).out
        let againFrames = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-i", folder.path("again.mp4"), "-f", "framemd5", "-"])).out
        XCTAssertEqual(againFrames, firstFrames, "the same pictures (video and audio)")

        // --plan-only: the same plan, and no movie.
        var only = options
        only.planOnly = true
        only.planOutput = folder.path("only.json")
        let planned = try Reframer.run(input: source, output: "", options: only)
        XCTAssertEqual(try Self.xs(try Self.plan(folder.path("only.json"))), try Self.xs(plan))
        XCTAssertEqual(planned.frames, 0)
        XCTAssertNil(planned.verification)
    }

    /// A person moves the crop to the left edge for the first second: the output shows the source's left
    /// edge there (against ffmpeg's own crop at x 0, PSNR), and the planned place after it.
    func testAnEditedPlanMovesTheCrop() throws {
        let folder = TemporaryFolder()
        let source = try Self.clip(in: folder)
        var first = options
        first.planOutput = folder.path("plan.json")
        _ = try Reframer.run(input: source, output: folder.path("first.mp4"), options: first)
        var plan = try Self.plan(folder.path("plan.json"))
        var frames = try XCTUnwrap(plan["frames"] as? [[String: Any]])
        let planned = try XCTUnwrap(frames[45]["x"] as? Int)
        XCTAssertGreaterThan(planned, 100, "the planner did not choose the left edge itself")
        for index in 0..<30 { frames[index]["x"] = index == 3 ? 1 : 0 }  // an odd position is rounded down
        plan["frames"] = frames
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: folder.path("edited.json")))
        var edited = options
        edited.planInput = folder.path("edited.json")
        let summary = try Reframer.run(input: source, output: folder.path("edited.mp4"), options: edited)
        XCTAssertEqual(Array(try XCTUnwrap(summary.path).offsets.prefix(30)), Array(repeating: 0, count: 30))
        for (frame, x) in [(10, 0), (45, planned)] {
            let reference = folder.path("reference-\(frame).png"), ours = folder.path("ours-\(frame).png")
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-vf", "select=eq(n\\,\(frame)),crop=202:360:\(x):0",
                                              "-frames:v", "1", reference])?.code, 0)
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y", "-i", folder.path("edited.mp4"), "-vf", "select=eq(n\\,\(frame))",
                                              "-frames:v", "1", ours])?.code, 0)
            XCTAssertGreaterThan(try psnrValue(ours, reference), 30, "frame \(frame)")
        }
    }

    func testABadPlanIsRefusedNamingTheField() throws {
        let folder = TemporaryFolder()
        let source = try Self.clip(in: folder)
        var first = options
        first.planOutput = folder.path("plan.json")
        _ = try Reframer.run(input: source, output: folder.path("first.mp4"), options: first)
        let good = try Self.plan(folder.path("plan.json"))
        func refused(_ edit: (inout [String: Any]) -> Void, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
            var plan = good
            edit(&plan)
            let path = folder.path("bad.json")
            try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: path))
            var bad = options
            bad.planInput = path
            bad.overwrite = true
            XCTAssertThrowsError(try Reframer.run(input: source, output: folder.path("bad.mp4"), options: bad), file: file, line: line) { error in
                let keeptrack = error as? KeepTrackError
                XCTAssertEqual(keeptrack?.exitCode, 65, "\(error)", file: file, line: line)
                XCTAssertTrue("\(error)".contains(expected), "\(error)", file: file, line: line)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("bad.mp4")), "nothing written", file: file, line: line)
        }
        try refused({ plan in
            var frames = plan["frames"] as! [[String: Any]]
            frames[7]["x"] = 1000
            plan["frames"] = frames
        }, "frames[7].x is 1000; the crop fits at 0...438")
        try refused({ plan in plan["frames"] = Array((plan["frames"] as! [Any]).prefix(59)) }, "it has 59 frames; the video has 60")
        try refused({ plan in plan["crop"] = ["width": 300, "height": 360] }, "crop is 300x360")
        try refused({ plan in plan["cuts"] = [30, 20] }, "cuts[1] is 20")
        try refused({ plan in
            var frames = plan["frames"] as! [[String: Any]]
            frames[2]["x"] = "left"
            plan["frames"] = frames
        }, "frames[2].x is not an integer")
        try refused({ plan in plan["keeptrackPlan"] = 2 }, "\"keeptrackPlan\" is not 1")
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: folder.path("bad.json")))
        var bad = options
        bad.planInput = folder.path("bad.json")
        XCTAssertThrowsError(try Reframer.run(input: source, output: folder.path("bad.mp4"), options: bad)) { error in
            XCTAssertEqual((error as? KeepTrackError)?.exitCode, 65)
            XCTAssertTrue("\(error)".contains("is not JSON"), "\(error)")
        }
    }
}
