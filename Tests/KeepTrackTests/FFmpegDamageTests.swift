import XCTest
@testable import KeepTrack

/// What `ffmpeg -map 0 -c copy` does to the real iPhone recording, seen by keeptrack: the file is
/// readable, and lint and compare name the damage (DOMAIN.md: ffmpeg drops `fall`, `dapa` and the
/// mebx sample descriptions).
final class FFmpegDamageTests: XCTestCase {
    func testFFmpegCopyOfTheRealRecordingIsReadableAndItsDamageNamed() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("ffmpeg-copy.mov")
        let ffmpeg = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", source, "-map", "0", "-c", "copy", output]),
                                   "ffmpeg is installed by scripts/setup.sh")
        XCTAssertEqual(ffmpeg.code, 0)
        let inspect = runCLI(["inspect", output])
        XCTAssertEqual(inspect.code, 0, inspect.error)
        let movie = try Movie.open(path: output)
        XCTAssertEqual(movie.track(id: 3)?.format, "apac")
        XCTAssertEqual(movie.track(id: 3)?.referencedIDs("fall"), [], "ffmpeg drops the fall reference")
        XCTAssertNil(movie.track(id: 3)?.sampleEntries.first?.first("dapa"), "ffmpeg drops the APAC configuration")
        let findings = Linter.lint(movie)
        let emptyDescriptions = findings.filter { $0.rule == .missingSampleDescription }.flatMap(\.trackIDs)
        XCTAssertFalse(emptyDescriptions.isEmpty, "\(findings.map(\.text))")
        XCTAssertEqual(emptyDescriptions.sorted(), Array(4...9), "the six mebx tracks lose their sample descriptions")
        // ffmpeg invents an alternate group for them, every member enabled.
        XCTAssertTrue(findings.contains { $0.rule == .multipleEnabled && $0.trackIDs == Array(4...9) }, "\(findings.map(\.text))")
        XCTAssertTrue(findings.contains { $0.rule == .spatialWithoutFallback && $0.trackIDs == [3] })
        XCTAssertEqual(runCLI(["lint", output]).code, 1)
        let compare = runCLI(["compare", source, output])
        XCTAssertEqual(compare.code, 1)
        XCTAssertTrue(compare.out.contains("fall→2"), compare.out)
        // The original is clean.
        XCTAssertTrue(Linter.lint(try Movie.open(path: source)).isEmpty)
    }
}
