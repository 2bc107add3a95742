import Foundation
import XCTest
@testable import KeepTrack

/// `keeptrack split`: consecutive pieces, each exact like a trim, that together present every frame
/// of the source exactly once.
final class TrimSplitTests: XCTestCase {
    func checkPieces(source: String, folder: TemporaryFolder, arguments: [String], expected bounds: [Double], frameDuration: Double,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let outDir = folder.path("pieces-\(arguments.joined(separator: "_"))")
        let result = runCLI(["split", source, "--out-dir", outDir, "--json"] + arguments)
        XCTAssertEqual(result.code, 0, result.error, file: file, line: line)
        let pieces = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [[String: Any]], file: file, line: line)
        XCTAssertEqual(pieces.count, bounds.count - 1, file: file, line: line)
        let movie = try Movie.open(path: source)
        let planned = try Trim.split(movie, at: Array(bounds.dropFirst().dropLast()))
        var frames: [String] = []
        for (number, plan) in planned.enumerated() {
            let path = Trim.piecePath(input: source, folder: outDir, number: number + 1, of: planned.count)
            XCTAssertEqual(pieces[number]["output"] as? String, path, file: file, line: line)
            XCTAssertEqual(pieces[number]["start"] as? Double ?? -1, plan.startSeconds, accuracy: 1e-9, file: file, line: line)
            if number > 0 { XCTAssertEqual(plan.start, planned[number - 1].end, "pieces meet exactly", file: file, line: line) }
            try TrimProof.check(source: source, output: path, plan: plan, requested: (bounds[number], bounds[number + 1]),
                                frameDuration: frameDuration, file: file, line: line)
            frames += try TrimProof.frameHashes(path)
        }
        XCTAssertEqual(frames, try TrimProof.frameHashes(source), "the pieces present every source frame once, in order", file: file, line: line)
    }

    /// An FFMETADATA file with chapters Intro 0-1.5 s, Middle 1.5-3 s and End 3-4 s, for ffmpeg's -map_chapters.
    static func writeThreeChapters(to path: String) throws {
        let chapters = [("Intro", 0, 1500), ("Middle", 1500, 3000), ("End", 3000, 4000)]
        let text = ";FFMETADATA1\n" + chapters.map { "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\($0.1)\nEND=\($0.2)\ntitle=\($0.0)\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// A Nero chapter list (moov/udta/chpl, which ffmpeg writes into MP4) follows the cut: a trim and every split piece
    /// list the chapters that fall in them, timed from their start, as exiftool reads them (copied unchanged, a 2 s
    /// trim listed "End" at 3 s).
    func testNeroChapterListsFollowTheCut() throws {
        let folder = TemporaryFolder()
        let metadata = folder.path("chapters.txt"), source = folder.path("chapters.mp4")
        try Self.writeThreeChapters(to: metadata)
        guard let made = runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=4", "-i", metadata,
                                            "-map", "0:v", "-map_chapters", "1", "-c:v", "libx264", "-g", "25", source]), made.code == 0 else {
            throw unavailable("ffmpeg cannot make \(source)")
        }
        func chapterList(_ path: String) throws -> String {
            let result = try XCTUnwrap(runTool("exiftool", ["-s3", "-UserData:ChapterList", path]), "exiftool is installed")
            return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(try chapterList(source), "[0:00:00.000] Intro, [0:00:01.500] Middle, [0:00:03.000] End", "ffmpeg wrote a chpl")

        let trimmed = folder.path("trimmed.mp4")
        let trim = runCLI(["trim", source, trimmed, "--start", "1", "--end", "3"])
        XCTAssertEqual(trim.code, 0, trim.error)
        XCTAssertEqual(try chapterList(trimmed), "[0:00:00.000] Intro, [0:00:00.500] Middle")
        XCTAssertTrue((trim.out + trim.error).contains("moov/udta/chpl: 2 of 3 chapters fall in the cut"), trim.out + trim.error)

        let pieces = folder.path("pieces")
        let split = runCLI(["split", source, "--out-dir", pieces, "--at", "1", "--at", "3.2"])
        XCTAssertEqual(split.code, 0, split.error)
        let expected = ["[0:00:00.000] Intro", "[0:00:00.000] Intro, [0:00:00.500] Middle, [0:00:02.000] End", "[0:00:00.000] End"]
        for (number, list) in expected.enumerated() {
            XCTAssertEqual(try chapterList(Trim.piecePath(input: source, folder: pieces, number: number + 1, of: 3)), list, "piece \(number + 1)")
        }
        // Joined back, the list is the source's again (the first piece's alone before), each chapter once.
        let joined = folder.path("joined.mp4")
        let join = runCLI(["join"] + (1...3).map { Trim.piecePath(input: source, folder: pieces, number: $0, of: 3) } + [joined])
        XCTAssertEqual(join.code, 0, join.error)
        XCTAssertEqual(try chapterList(joined), try chapterList(source), "joined pieces: the source's chapter list")
    }

    /// Text is cut in its samples (the cue playing at the cut starts at 0, shortened), not only through the edit list,
    /// which ffprobe, mediainfo and GStreamer do not apply to text: a QuickTime chapter track and mov_text subtitles
    /// in a trim read as the source's from the cut; split pieces joined back give the source's chapters, each once.
    func testTextIsCutInItsSamplesAndJoinsBack() throws {
        let folder = TemporaryFolder()
        let metadata = folder.path("chapters.txt"), subtitles = folder.path("cues.srt"), source = folder.path("text.mov")
        try Self.writeThreeChapters(to: metadata)
        try Data("1\n00:00:00,200 --> 00:00:01,300\nfirst line\n\n2\n00:00:01,600 --> 00:00:02,700\nsecond line\n\n".utf8)
            .write(to: URL(fileURLWithPath: subtitles))
        guard let made = runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30000/1001:duration=4",
                                            "-i", metadata, "-i", subtitles, "-map", "0:v", "-map", "2:s", "-map_chapters", "1",
                                            "-c:v", "libx264", "-g", "30", "-c:s", "mov_text", source]), made.code == 0 else {
            throw unavailable("ffmpeg cannot make \(source)")
        }
        func chapters(_ path: String) throws -> [String] {
            let result = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-show_chapters", "-show_entries", "chapter=start_time,end_time:chapter_tags=title",
                                                           "-of", "csv=p=0", path]))
            return result.out.split(separator: "\n").map(String.init)
        }
        func cues(_ path: String) throws -> String {
            try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:s:0", "-f", "srt", "-"])).out
        }
        XCTAssertEqual(try chapters(source), ["0.000000,1.500000,Intro", "1.500000,3.000000,Middle", "3.000000,4.000000,End"], "ffmpeg's chapter track")

        let trimmed = folder.path("trimmed.mov")
        let trim = runCLI(["trim", source, trimmed, "--start", "1", "--end", "3"])
        XCTAssertEqual(trim.code, 0, trim.error)
        let plan = try Trim.plan(Movie.open(path: source), Trim.Request(start: 1, end: 3))
        let start = plan.startSeconds
        // The cut snaps to the frames shown at 1 s and 3 s; the chapter track counts milliseconds (rounded down).
        let (first, last) = (Int((plan.startSeconds * 1000).rounded(.down)), Int((plan.endSeconds * 1000).rounded(.down)))
        let ms = { (value: Int) in String(format: "%.6f", Double(value - first) / 1000) }
        XCTAssertEqual(try chapters(trimmed), ["0.000000,\(ms(1500)),Intro", "\(ms(1500)),\(ms(last)),Middle"], "the chapter track from the cut")
        func milliseconds(_ seconds: Double) -> String {
            let total = Int((seconds * 1000).rounded())
            return String(format: "00:00:%02d,%03d", total / 1000, total % 1000)
        }
        XCTAssertEqual(try cues(trimmed), "1\n00:00:00,000 --> \(milliseconds(1.3 - start))\nfirst line\n\n2\n\(milliseconds(1.6 - start)) --> \(milliseconds(2.7 - start))\nsecond line\n\n",
                       "subtitles from the cut")

        let pieces = folder.path("pieces"), joined = folder.path("joined.mov")
        XCTAssertEqual(runCLI(["split", source, "--out-dir", pieces, "--at", "1.5", "--at", "2.5"]).code, 0)
        let join = runCLI(["join"] + (1...3).map { Trim.piecePath(input: source, folder: pieces, number: $0, of: 3) } + [joined])
        XCTAssertEqual(join.code, 0, join.error)
        XCTAssertEqual(try chapters(joined), try chapters(source), "joined pieces: the source's chapters, each once")
        XCTAssertEqual(try cues(joined), try cues(source), "joined pieces: the source's subtitles")
        let text = try Movie.open(path: joined).tracks.filter { $0.kind == .text }
        XCTAssertEqual(text.count, 2)
        XCTAssertEqual(text.map { $0.editList?.entries.count ?? 0 }, [1, 1], "one edit per text track")
    }

    func testRealRecordingSplitAtPointsAndEvery() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        try checkPieces(source: source, folder: folder, arguments: ["--at", "1.0", "--at", "0:00.5"], expected: [0, 0.5, 1.0, 2.3],
                        frameDuration: TrimTests.iphoneFrame)
        try checkPieces(source: source, folder: folder, arguments: ["--every", "0.8"], expected: [0, 0.8, 1.6, 2.3],
                        frameDuration: TrimTests.iphoneFrame)
    }

    func testSyntheticSplitIntoManyPieces() throws {
        let folder = TemporaryFolder()
        let source = try TrimTests.syntheticMovie(in: folder, openGOP: true)
        try checkPieces(source: source, folder: folder, arguments: ["--every", "0.7"], expected: [0, 0.7, 1.4, 2.1, 2.8, 3.5, 4.0],
                        frameDuration: 1.0 / 30)
    }

    func testSplitRefusesBadPointsAndWritesNothing() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let outDir = folder.path("out")
        for arguments in [["--at", "1", "--at", "2.4"], ["--at", "0"], ["--every", "5"], ["--at", "1", "--every", "1"], [],
                          ["--at", "1.0", "--at", "1.01"]] {
            let result = runCLI(["split", source, "--out-dir", outDir] + arguments)
            XCTAssertEqual(result.code, 64, "\(arguments): \(result.error)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: outDir), "\(arguments): nothing written")
        }
        XCTAssertTrue(runCLI(["split", source, "--out-dir", outDir, "--at", "2.4"]).error.contains("the movie lasts 2.3 s"))
        XCTAssertEqual(runCLI(["split", source, "--out-dir", outDir, "--at", "1"]).code, 0)
        XCTAssertEqual(runCLI(["split", source, "--out-dir", outDir, "--at", "1"]).code, 73, "pieces exist")
        XCTAssertEqual(runCLI(["split", source, "--out-dir", outDir, "--at", "1", "--force"]).code, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outDir).sorted(),
                       ["iphone16pro-spatial-audio-001.mov", "iphone16pro-spatial-audio-002.mov"])
        XCTAssertTrue(runCLI(["split", "--help"]).out.contains("--every"))
    }
}
