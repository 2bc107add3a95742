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

    /// A Nero chapter list (moov/udta/chpl, which ffmpeg writes into MP4) follows the cut: a trim and every split piece
    /// list the chapters that fall in them, timed from their start, as exiftool reads them (copied unchanged, a 2 s
    /// trim listed "End" at 3 s).
    func testNeroChapterListsFollowTheCut() throws {
        let folder = TemporaryFolder()
        let metadata = folder.path("chapters.txt"), source = folder.path("chapters.mp4")
        try Data("""
            ;FFMETADATA1
            [CHAPTER]
            TIMEBASE=1/1000
            START=0
            END=1500
            title=Intro
            [CHAPTER]
            TIMEBASE=1/1000
            START=1500
            END=3000
            title=Middle
            [CHAPTER]
            TIMEBASE=1/1000
            START=3000
            END=4000
            title=End

            """.utf8).write(to: URL(fileURLWithPath: metadata))
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
