import Foundation
import XCTest
@testable import KeepTrack
@testable import KeepTrackReframePipeline
@testable import KeepTrackTranscode

/// reframe keeps every frame at the time the source shows it, judged by ffprobe (which frames it decodes
/// and their times) on movies whose timing is not the ffmpeg default: no edit list with B-frames (the first
/// frame two frames late: eyevinn-mp4ff's prog_8s.mp4, ffmpeg's fragmented output), and a fragmented movie
/// whose edit list has the 0-length edit that means "to the end of the fragments" (androidx-media's
/// sample_fragmented_seekable_multiple_sidx.mp4). Before: the first lost its last two frames and moved two
/// frames earlier than its audio; the second came out with no frame shown at all (a 0-length edit in a
/// progressive file), while reframe exited 0.
final class ReframeTimingTests: XCTestCase {
    /// ffprobe's presentation times of every video frame it decodes.
    static func frameTimes(_ path: String) throws -> [String] {
        let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                                      "-of", "csv=p=0", path]))
        XCTAssertEqual(probe.code, 0, path)
        // The side-data line ffprobe adds to a frame (an SEI) is not a frame.
        return probe.out.split(separator: "\n").map { String($0.split(separator: ",").first ?? "") }.filter { !$0.isEmpty && $0.first!.isNumber }
    }

    static func makeSource(_ path: String, extra: [String]) throws {
        let arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi",
                         "-i", "sine=duration=2", "-c:v", "libx264", "-bf", "2", "-g", "10", "-pix_fmt", "yuv420p", "-c:a", "aac"] + extra
        guard runTool("ffmpeg", arguments + [path])?.code == 0 else { throw unavailable("ffmpeg with libx264 and aac is not installed") }
    }

    private func assertReframeKeepsEveryFrameTime(_ source: String, frames: Int, firstTime: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try Self.frameTimes(source)
        XCTAssertEqual(before.count, frames, "ffprobe's frames of the source", file: file, line: line)
        XCTAssertEqual(before.first, firstTime, file: file, line: line)
        let folder = TemporaryFolder()
        let output = folder.path("vertical.mp4")
        let result = runCLI(["reframe", source, output, "--preset", "ultrafast"])
        XCTAssertEqual(result.code, 0, result.error, file: file, line: line)
        XCTAssertEqual(try Self.frameTimes(output), before, "every frame, at the source's time", file: file, line: line)
    }

    func testMovieWithoutEditListKeepsItsLateFirstFrameAndItsLastFrames() throws {
        let folder = TemporaryFolder()
        let progressive = folder.path("progressive.mp4"), fragmented = folder.path("fragmented.mp4")
        try Self.makeSource(progressive, extra: ["-use_editlist", "0"])
        try Self.makeSource(fragmented, extra: ["-movflags", "frag_keyframe+empty_moov"])
        XCTAssertNil(try Movie.open(path: progressive).tracks.first { $0.kind == .video }?.editList)
        try assertReframeKeepsEveryFrameTime(progressive, frames: 50, firstTime: "0.080000")
        try assertReframeKeepsEveryFrameTime(fragmented, frames: 50, firstTime: "0.080000")
    }

    /// ffmpeg's fragmented output with a 0-length edit list added to its video track (`default_base_moof`: the
    /// fragments locate their data from their own moof, so moov may grow), as the androidx file has: media time
    /// 1024 (two frames at 12,800 per second, the first frame's composition time), to the end of the fragments.
    func testFragmentedMovieWhoseEditRunsToTheEndOfItsFragmentsKeepsEveryFrame() throws {
        let folder = TemporaryFolder()
        let plain = folder.path("plain.mp4"), edited = folder.path("edited.mp4")
        try Self.makeSource(plain, extra: ["-movflags", "frag_keyframe+empty_moov+default_base_moof"])
        var boxes = try BoxParser.parseFile(try FileByteSource(path: plain))
        let moovIndex = try XCTUnwrap(boxes.firstIndex { $0.type == "moov" })
        guard case .container(var moov) = boxes[moovIndex].content,
              let trakIndex = moov.children.firstIndex(where: { $0.type == "trak" }),
              case .container(var trak) = moov.children[trakIndex].content,
              let tkhdIndex = trak.children.firstIndex(where: { $0.type == "tkhd" }) else { return XCTFail("no moov/trak/tkhd") }
        XCTAssertEqual(try Movie.open(path: plain).tracks.first?.mediaHeader.timescale, 12800)
        var elst = EditListBox()
        var entry = EditListBox.Entry()
        entry.mediaTime = 1024
        entry.segmentDuration = 0
        elst.entries = [entry]
        trak.children.insert(Box(type: "edts", children: [Box(type: "elst", bytes: try elst.encoded())]), at: tkhdIndex + 1)
        moov.children[trakIndex].content = .container(trak)
        boxes[moovIndex].content = .container(moov)
        let source = try FileByteSource(path: plain)
        let bytes = try boxes.flatMap { try $0.serialized(source: source) }
        try Data(bytes).write(to: URL(fileURLWithPath: edited))
        // The edit shows the first frame at 0 and runs to the last: ffprobe shows 50 frames from 0.
        try assertReframeKeepsEveryFrameTime(edited, frames: 50, firstTime: "0.000000")
    }

    /// ffmpeg's fragmented output (25 fps, two B-frames, `default_base_moof`: moov may grow) with every `tfdt`
    /// moved 12,800 (1 s) on; `editFromZero`: with an edit list that starts at media time 0, to the end.
    static func makeFragmentedStartingLater(_ path: String, in folder: TemporaryFolder, editFromZero: Bool) throws {
        let plain = folder.path("plain.mp4")
        let made = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264", "-bf", "2",
                    "-g", "10", "-pix_fmt", "yuv420p", "-movflags", "frag_keyframe+empty_moov+default_base_moof", plain]
        guard runTool("ffmpeg", made)?.code == 0 else { throw unavailable("ffmpeg with libx264 is not installed") }
        var boxes = try BoxParser.parseFile(try FileByteSource(path: plain))
        for index in boxes.indices {
            if boxes[index].type == "moof" {
                try boxes[index].modifyChildren { trafs in
                    for t in trafs.indices where trafs[t].type == "traf" {
                        try trafs[t].modifyChildren { children in
                            for c in children.indices where children[c].type == "tfdt" {
                                var tfdt = try TrackFragmentDecodeTimeBox(box: children[c])
                                tfdt.baseMediaDecodeTime += 12800
                                children[c] = Box(type: "tfdt", bytes: try tfdt.encoded())
                            }
                        }
                    }
                }
            }
            if boxes[index].type == "moov", editFromZero {
                try boxes[index].modifyChildren { moov in
                    for t in moov.indices where moov[t].type == "trak" {
                        var elst = EditListBox()
                        elst.entries = [EditListBox.Entry()]  // media time 0, length 0: to the end
                        let edts = Box(type: "edts", children: [Box(type: "elst", bytes: try elst.encoded())])
                        moov[t].modifyChildren { trak in trak.insert(edts, at: (trak.firstIndex { $0.type == "tkhd" } ?? -1) + 1) }
                    }
                }
            }
        }
        let source = try FileByteSource(path: plain)
        try Data(try boxes.flatMap { try $0.serialized(source: source) }).write(to: URL(fileURLWithPath: path))
    }

    /// A fragmented movie without an edit list whose first fragment starts 1 s in (`tfdt`), with B-frames: its
    /// frames show from 1.08 s. The progressive copy's edit (DefragmentedTiming, shared by remux and reframe) ran
    /// the media duration from the first decode time, so remux showed 48 of 50 frames and reframe's read-back
    /// refused its output (74). Then ffmpeg showed the copies' first frame where the empty edit ended (1.00 s,
    /// and every later frame 80 ms early, against the audio): the wait now lasts until the first composition time, so
    /// every frame is shown at the source's time. Made from ffmpeg's output by moving every tfdt 12,800 on.
    /// The same with an edit list that starts at media time 0, before the first sample, to the end of the
    /// fragments: by the edit, too, the first frame shows at 1.08 s; the copies' empty edit ended at the first
    /// decode time, and ffmpeg showed every frame 80 ms early.
    func testFragmentedMovieStartingLaterKeepsEveryFrameThroughRemuxAndReframe() throws {
        let expected = (0..<50).map { String(format: "%.6f", 1.08 + Double($0) * 0.04) }
        for editFromZero in [false, true] {
            let folder = TemporaryFolder()
            let later = folder.path("later.mp4")
            try Self.makeFragmentedStartingLater(later, in: folder, editFromZero: editFromZero)
            XCTAssertEqual(try Self.frameTimes(later), expected, "ffprobe's account of the source, edit list \(editFromZero)")
            let copy = folder.path("copy.mp4")
            let remux = runCLI(["remux", later, copy])
            XCTAssertEqual(remux.code, 0, remux.error)
            XCTAssertEqual(try Self.frameTimes(copy), expected, "remux: every frame shown, at its time; edit list \(editFromZero)")
            let output = folder.path("vertical.mp4")
            let reframe = runCLI(["reframe", later, output, "--preset", "ultrafast"])
            XCTAssertEqual(reframe.code, 0, reframe.error)
            XCTAssertEqual(try Self.frameTimes(output), expected, "reframe: every frame shown, at its time; edit list \(editFromZero)")
        }
    }

    /// ffmpeg's frag_every_frame output (the committed fuzz seed) ends with two frames at the same time. The
    /// last frame once lasted one tick (the step between the last two times, 0), the edit ended before them and
    /// ffprobe showed 4 frames of the source's 5; the read-back check then refused the output (74). Now the last
    /// frame lasts the last step between two different times, and every time the source shows is shown.
    func testFramesAtTheSameTimeAtTheEndAreShown() throws {
        let source = try XCTUnwrap(try FuzzRegressionTests.committed("seeds").first { $0.lastPathComponent == "ff-frag-every-frame.mp4" }).path
        let folder = TemporaryFolder()
        let output = folder.path("vertical.mp4")
        let result = runCLI(["reframe", source, output, "--preset", "ultrafast"])
        XCTAssertEqual(result.code, 0, result.error)
        let before = try Self.frameTimes(source), after = try Self.frameTimes(output)
        XCTAssertEqual(before.count, 5)
        XCTAssertEqual(Set(after), Set(before), "every time the source shows")
        XCTAssertGreaterThanOrEqual(after.count, before.count)
    }

    /// reframe reads its output back before it keeps it: an output whose video edit shows nothing (what the
    /// 0-length edit above once gave: tkhd and elst of 0 s) or ends before the last frame is refused, though
    /// its samples are all there. Made here from a good movie by setting its video edit's length.
    func testOutputWhoseEditHidesFramesIsRefusedBeforeItIsKept() throws {
        let folder = TemporaryFolder()
        let good = folder.path("good.mp4")
        try Self.makeSource(good, extra: [])
        let movie = try Movie.open(path: good)
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        let shown = PresentedVideo.shownFrames(of: video).frames
        XCTAssertEqual(shown.shown.count, 50)
        let last = try XCTUnwrap(shown.times.last)
        XCTAssertNoThrow(try PassthroughMux.checkShownFrames(written: good, video: video.id, source: 50, lastShownAt: last))
        for length in [UInt64(0), UInt64(1900)] {  // movie ticks of 1/1000 s: nothing, and the last two frames left out
            var boxes = try BoxParser.parseFile(try FileByteSource(path: good))
            let moovIndex = try XCTUnwrap(boxes.firstIndex { $0.type == "moov" })
            guard case .container(var moov) = boxes[moovIndex].content,
                  let trakIndex = moov.children.firstIndex(where: { $0.type == "trak" }),
                  case .container(var trak) = moov.children[trakIndex].content,
                  let tkhdIndex = trak.children.firstIndex(where: { $0.type == "tkhd" }),
                  let edtsIndex = trak.children.firstIndex(where: { $0.type == "edts" }),
                  let elstBox = trak.children[edtsIndex].first("elst") else { return XCTFail("no moov/trak/tkhd/edts/elst") }
            var elst = try EditListBox(box: elstBox)
            elst.entries[elst.entries.count - 1].segmentDuration = length
            var tkhd = try TrackHeaderBox(box: trak.children[tkhdIndex])
            tkhd.duration = length
            trak.children[tkhdIndex] = Box(type: "tkhd", bytes: try tkhd.encoded())
            trak.children[edtsIndex] = Box(type: "edts", children: [Box(type: "elst", bytes: try elst.encoded())])
            moov.children[trakIndex].content = .container(trak)
            boxes[moovIndex].content = .container(moov)
            let source = try FileByteSource(path: good), hiding = folder.path("hiding-\(length).mp4")
            try Data(try boxes.flatMap { try $0.serialized(source: source) }).write(to: URL(fileURLWithPath: hiding))
            XCTAssertLessThan(try Self.frameTimes(hiding).count, 50, "ffprobe shows fewer frames")
            XCTAssertThrowsError(try PassthroughMux.checkShownFrames(written: hiding, video: video.id, source: 50, lastShownAt: last), "edit of \(length)")
        }
    }
}
