import Foundation
import XCTest
import KeepTrack
import KeepTrackFixtures
import KeepTrackFraming
@testable import KeepTrackReframePipeline

/// A clip cut with `ffmpeg -ss X -i IN -c copy` starts at the keyframe before X; its edit list hides the frames
/// before X (decoded, never shown). Those frames must not shape the plan (subject, cuts, layout, path, the
/// summary), must not appear in the preview or the plan file, whose times are the movie's (what a player
/// shows), and must still be encoded (the output keeps the edit list). Which frames a player shows is asked of
/// ffprobe, which applies the edit list.
final class ReframeEditListTests: XCTestCase {
    static let green = ReframeScene.Colours("0x204020", "0x70a060"), blue = ReframeScene.Colours("0x203050", "0x4060a0")

    /// On green, the person at the left for 0.6 s; a cut to blue, the person at the left again for 0.5 s and then
    /// at the right (x 1400) to the end (`tail`: then a cut back to green with the person at the left, 0.6 s).
    /// Rendered as one GOP (no keyframe at the cuts or the step), so a cut at 1.3 s hides both the first cut and
    /// the step behind the edit list.
    static func scene(tail: Bool) -> ReframeScene {
        ReframeScene(name: tail ? "hidden-both-ends" : "hidden-start", segments: [
            .init(duration: 0.6, colours: green, keyframes: [.init(0, x: 200)]),
            .init(duration: 2.4, colours: blue, keyframes: [.init(0.5, x: 200), .init(0.501, x: 1400)]),
        ] + (tail ? [.init(duration: 0.6, colours: green, keyframes: [.init(0, x: 200)])] : []))
    }

    /// Frames before 1.3 s: what `-ss 1.3` hides (frame 39 is the first shown, the person resting at the right).
    static let hiddenBefore = 39
    static let oneGOP = "keyint=300:min-keyint=300:scenecut=0"

    /// The presentation times (seconds) of the frames ffprobe shows, edit list applied, and the samples in the track.
    static func shownTimes(_ path: String) throws -> (times: [Double], samples: Int) {
        let frames = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                                       "-of", "csv=p=0", path]))
        XCTAssertEqual(frames.code, 0, frames.out)
        let times = frames.out.split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }
        let stream = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=nb_frames",
                                                       "-of", "csv=p=0", path]))
        return (times, try XCTUnwrap(Int(stream.out.trimmingCharacters(in: .whitespacesAndNewlines)), stream.out))
    }

    /// The same frame times, within a millisecond (one failure naming the first difference).
    static func assertSameTimes(_ ours: [Double], _ theirs: [Double], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(ours.count, theirs.count, "\(what): frame count", file: file, line: line)
        if let index = (0..<min(ours.count, theirs.count)).first(where: { abs(ours[$0] - theirs[$0]) > 0.001 }) {
            XCTFail("\(what): frame \(index) at \(ours[index]) s, expected \(theirs[index]) s", file: file, line: line)
        }
    }

    static func json(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// The plan file's crop positions and times.
    static func planFrames(_ path: String) throws -> (xs: [Int], times: [Double], cuts: [Int]) {
        let plan = try json(path)
        let frames = try XCTUnwrap(plan["frames"] as? [[String: Any]])
        return (frames.map { $0["x"] as? Int ?? -1 }, frames.map { ($0["time"] as? NSNumber)?.doubleValue ?? -1 },
                try XCTUnwrap(plan["cuts"] as? [Int]))
    }

    /// Every tile of the contact sheet shows a shown frame: its frame number is one of the plan's, its time the
    /// plan's time of that frame, and its picture the blue shot (the hidden part starts on green). A corner of
    /// the tile (outside the crop, darkened) is compared: blue over green.
    func checkSheet(_ sheetPath: String, summary: [String: Any], planTimes: [Double], file: StaticString = #filePath, line: UInt = #line) throws {
        let preview = try XCTUnwrap(summary["preview"] as? [String: Any], file: file, line: line)
        let sheet = try ReframePreviewTests.decoded(sheetPath)
        let tiles = try XCTUnwrap(preview["frames"] as? [[String: Any]], file: file, line: line)
        XCTAssertFalse(tiles.isEmpty, file: file, line: line)
        for tile in tiles {
            let frame = try XCTUnwrap(tile["frame"] as? Int, file: file, line: line)
            XCTAssertTrue(planTimes.indices.contains(frame), "tile frame \(frame) of \(planTimes.count) shown", file: file, line: line)
            let x0 = try XCTUnwrap(tile["x"] as? Int, file: file, line: line), y0 = try XCTUnwrap(tile["y"] as? Int, file: file, line: line)
            var sums = [0, 0, 0]
            for y in y0 + 4..<y0 + 24 {
                for x in x0 + 4..<x0 + 24 {
                    for channel in 0..<3 { sums[channel] += Int(sheet.rgb[(y * sheet.width + x) * 3 + channel]) }
                }
            }
            XCTAssertGreaterThan(sums[2], sums[1], "tile of frame \(frame) shows the blue shot (rgb sums \(sums))", file: file, line: line)
            let time = (tile["time"] as? NSNumber)?.doubleValue
            XCTAssertEqual(time ?? -1, planTimes.indices.contains(frame) ? planTimes[frame] : -2, accuracy: 0.001, "tile of frame \(frame): time",
                           file: file, line: line)
        }
    }

    /// The crop on every shown frame holds the face, and the crop does not move: the person rests at the right
    /// throughout what is shown (before the fix the plan started on the hidden frames, at the left).
    func checkPath(_ xs: [Int], scene: ReframeScene, firstShown: Int, file: StaticString = #filePath, line: UInt = #line) {
        let outside = xs.indices.filter { index in
            let face = scene.faceBox(frame: firstShown + index)
            return Double(xs[index]) > face.x || face.x + face.width > Double(xs[index] + 608)
        }
        XCTAssertEqual(outside, [], "shown frames whose crop leaves out the face (crops \(xs))", file: file, line: line)
        XCTAssertEqual(Set(xs).count, 1, "the crop stays where the resting person is: \(Set(xs).sorted())", file: file, line: line)
    }

    /// Reframes `source` into `out.mov` with `plan.json` and `sheet.png` in `folder` and checks what every test
    /// here checks: the plan file has the frames ffprobe shows (`shown`, their times) and no cut, its crop holds
    /// the resting face without moving, one shot, every tile of the preview a shown frame; the output has every
    /// frame of the scene and shows the same ones at the same times. Returns the summary and the plan.
    func reframe(_ source: String, scene: ReframeScene, shown: [Double], into folder: TemporaryFolder, options: [String] = [],
                 file: StaticString = #filePath, line: UInt = #line) throws -> (summary: [String: Any], plan: (xs: [Int], times: [Double], cuts: [Int])) {
        let output = folder.path("out.mov"), plan = folder.path("plan.json"), sheet = folder.path("sheet.png")
        let run = runCLI(["reframe", source, output, "--plan-out", plan, "--preview", sheet, "--preset", "ultrafast", "--json"] + options)
        XCTAssertEqual(run.code, 0, run.error, file: file, line: line)
        let summary = try ReframePreviewTests.json(run.out)
        let planned = try Self.planFrames(plan)
        Self.assertSameTimes(planned.times, shown, "plan file (one entry per shown frame) vs ffprobe's shown frames", file: file, line: line)
        XCTAssertEqual(planned.cuts, [], "the cuts among the hidden frames are no cuts of the shown clip", file: file, line: line)
        checkPath(planned.xs, scene: scene, firstShown: Self.hiddenBefore, file: file, line: line)
        XCTAssertEqual((summary["shots"] as? [String: Any])?["count"] as? Int, 1, file: file, line: line)
        try checkSheet(sheet, summary: summary, planTimes: planned.times, file: file, line: line)
        // The output: every frame encoded (the edit list still hides the same ones), showing the same times.
        let written = try Self.shownTimes(output)
        XCTAssertEqual(written.samples, scene.frameCount, "hidden frames are encoded too", file: file, line: line)
        Self.assertSameTimes(written.times, shown, "output's shown frames vs the source's", file: file, line: line)
        return (summary, planned)
    }

    /// `ffmpeg -ss 1.3 -i scene -c copy`: 39 frames hidden before the first shown one, among them a cut and the
    /// person at the left. The plan, the summary, the preview and the plan file see only the 51 shown frames;
    /// the output has all 90 (the hidden ones cropped where the first shown frame is) and shows what the source shows.
    func testFramesTheEditListHidesBeforeTheCutDoNotShapeThePlan() throws {
        let folder = TemporaryFolder()
        let scene = Self.scene(tail: false)
        let rendered = try writeScene(scene, in: folder, x264Parameters: Self.oneGOP)
        let source = folder.path("cut.mov")
        let cut = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-ss", "1.3", "-i", rendered, "-map", "0", "-c", "copy", source]))
        XCTAssertEqual(cut.code, 0, cut.out)
        // What a player shows, by ffprobe: 51 frames from 0 s, of 90 in the track.
        let shown = try Self.shownTimes(source)
        XCTAssertEqual(shown.samples, scene.frameCount)
        XCTAssertEqual(shown.times.count, scene.frameCount - Self.hiddenBefore, "ffmpeg hid the frames before the cut")
        XCTAssertEqual(shown.times.first ?? -1, 0, accuracy: 1e-6)

        let output = folder.path("out.mov"), plan = folder.path("plan.json")
        let (summary, planned) = try reframe(source, scene: scene, shown: shown.times, into: folder, options: ["--layout", "auto"])
        let layout = try XCTUnwrap(summary["layout"] as? [String: Any])
        XCTAssertEqual(layout["shots"] as? [String], ["follow"])
        XCTAssertEqual(layout["people"] as? [Int], [1])
        let subject = try XCTUnwrap(summary["subject"] as? [String: Any])
        XCTAssertLessThanOrEqual(try XCTUnwrap(subject["decodedForAnalysis"] as? Int), shown.times.count, "only shown frames analysed")
        XCTAssertEqual(subject["coverage"] as? Double, 1)

        // The first shown frame is ffmpeg's crop of the source's first shown frame at the planned place; the first
        // hidden frame (decoded with the edit list ignored) is cropped where the first shown frame is.
        let x = try XCTUnwrap(planned.xs.first)
        for (name, ignoreEdits) in [("shown", false), ("hidden", true)] {
            let ignore = ignoreEdits ? ["-ignore_editlist", "1"] : []
            let reference = folder.path("reference-\(name).png"), ours = folder.path("ours-\(name).png")
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y"] + ignore + ["-i", source, "-vf", "crop=608:1080:\(x):0", "-frames:v", "1", reference])?.code, 0)
            XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-y"] + ignore + ["-i", output, "-frames:v", "1", ours])?.code, 0)
            XCTAssertGreaterThan(try psnrValue(ours, reference), 30, "first \(name) frame")
        }
        try ReframeTests.assertAudioPassedThrough(source: source, output: output)

        // The plan file reads back (--plan): the same frames, times and crop, the same pictures.
        let again = folder.path("again.json"), againMovie = folder.path("again.mov")
        let reread = runCLI(["reframe", source, againMovie, "--plan", plan, "--plan-out", again, "--preset", "ultrafast"])
        XCTAssertEqual(reread.code, 0, reread.error)
        let replanned = try Self.planFrames(again)
        XCTAssertEqual(replanned.xs, planned.xs)
        XCTAssertEqual(replanned.times, planned.times)
        func pictures(_ movie: String) throws -> String {
            try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-i", movie, "-map", "0:v", "-f", "framemd5", "-"])).out
        }
        XCTAssertEqual(try pictures(againMovie), try pictures(output))
        // A plan with an entry for every decoded frame (as one was written before) does not fit: refused, naming them.
        var everyFrame = try Self.json(plan)
        let frames = try XCTUnwrap(everyFrame["frames"] as? [[String: Any]])
        everyFrame["frames"] = Array(repeating: frames[0], count: Self.hiddenBefore) + frames
        let oldPlan = folder.path("every-frame.json")
        try JSONSerialization.data(withJSONObject: everyFrame).write(to: URL(fileURLWithPath: oldPlan))
        let refused = runCLI(["reframe", source, folder.path("refused.mov"), "--plan", oldPlan])
        XCTAssertEqual(refused.code, 65, refused.error)
        XCTAssertTrue(refused.error.contains("it has 90 frames; the video shows 51 (its edit list hides 39 more)"), refused.error)
    }

    /// An edit list that starts with an empty edit (a 0.5 s delay, as `ffmpeg -itsoffset` writes) and whose
    /// presented edit skips the first 39 frames and ends 18 frames before the last (a cut and the person at the
    /// left come after it): written by ffmpeg, then the presented edit narrowed in place. The plan sees the 51
    /// frames between; its times start at the delay, as ffprobe's do; the output has all 108 frames and the same
    /// edit list, so it shows the same frames at the same times. Run decoding twice (`--frame-memory 0`), where
    /// the encoding pass decodes the hidden frames again rather than taking the ones the analysis kept.
    func testAnEmptyEditDelaysAndFramesAfterTheEditListsEndAreHiddenToo() throws {
        let folder = TemporaryFolder()
        let scene = Self.scene(tail: true)
        let rendered = try writeScene(scene, in: folder, x264Parameters: Self.oneGOP)
        let source = folder.path("delayed.mov")
        let delayed = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-i", rendered, "-itsoffset", "0.5", "-i", rendered,
                                                       "-map", "1:v", "-map", "0:a", "-c", "copy", source]))
        XCTAssertEqual(delayed.code, 0, delayed.out)
        // ffmpeg wrote [empty 0.5 s, the whole media]: present 51 frames from frame 39 instead.
        let movie = try Movie.open(path: source)
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        let entries = try XCTUnwrap(video.editList?.entries)
        XCTAssertEqual(entries.map(\.mediaTime).first, -1, "an empty edit first")
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(video.editList?.header.version, 0)
        let frameDuration = Int64(video.mediaHeader.timescale) / Int64(scene.frameRate)
        let shownCount = 51, hiddenAfter = scene.frameCount - Self.hiddenBefore - shownCount
        let elst = try XCTUnwrap(video.box.find(["edts", "elst"]))
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: source))
        var second = ByteWriter()
        second.u32(UInt32(shownCount) * video.movieTimescale / UInt32(scene.frameRate))
        second.u32(UInt32(entries[1].mediaTime + Int64(Self.hiddenBefore) * frameDuration))
        try handle.seek(toOffset: elst.payloadOffset + 8 + 12)
        try handle.write(contentsOf: second.bytes)
        try handle.close()

        let shown = try Self.shownTimes(source)
        XCTAssertEqual(shown.samples, scene.frameCount)
        XCTAssertEqual(shown.times.count, shownCount, "ffprobe shows the frames between the edit's ends")
        XCTAssertEqual(shown.times.first ?? -1, 0.5, accuracy: 1e-6, "after the delay")
        XCTAssertGreaterThan(hiddenAfter, 0)

        let output = folder.path("out.mov")
        // Decoded twice here (the analysis decodes the referenced frames only, the encoding pass every frame again).
        let (_, planned) = try reframe(source, scene: scene, shown: shown.times, into: folder, options: ["--frame-memory", "0"])
        // The last hidden frame is cropped where the last shown frame is.
        let x = try XCTUnwrap(planned.xs.last)
        let reference = folder.path("reference.png"), ours = folder.path("ours.png")
        let last = "select=eq(n\\,\(scene.frameCount - 1))"
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-ignore_editlist", "1", "-i", source, "-vf", "\(last),crop=608:1080:\(x):0",
                                          "-frames:v", "1", reference])?.code, 0)
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-ignore_editlist", "1", "-i", output, "-vf", last, "-frames:v", "1", ours])?.code, 0)
        XCTAssertGreaterThan(try psnrValue(ours, reference), 30, "last hidden frame")
        try ReframeTests.assertAudioPassedThrough(source: source, output: output)
    }
}
