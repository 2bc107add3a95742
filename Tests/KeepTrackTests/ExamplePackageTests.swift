import Foundation
import XCTest

/// The example package uses the library as a downstream package would (by path, KeepTrack product only).
/// Not in InstallTests: it hides nothing, so it runs beside other tests.
final class ExamplePackageTests: XCTestCase {
    func testExamplePackageBuildsAndFixesAMovie() throws {
        let folder = TemporaryFolder()
        let movie = folder.path("both-enabled.mov")
        XCTAssertEqual(runCLI(["fixture", "both-enabled", movie]).code, 0)
        let output = folder.path("fixed.mov")
        let example = InstallTests.checkout.appendingPathComponent("Examples/FixAndRemux")
        let result = try InstallTests.run("/usr/bin/env", ["swift", "run", "--scratch-path", folder.path("example-build"),
                                                                      // a binary run once: no editor index, no debug info (43 CPU-s, was 51)
                                                                      "--disable-index-store", "-Xswiftc", "-gnone", "fix-and-remux", movie, output], in: example)
        XCTAssertEqual(result.code, 0, result.out)
        XCTAssertTrue(result.out.contains("group 1: tracks [2, 3], enabled [2, 3]"), result.out)
        XCTAssertTrue(result.out.contains("change: track 3: disabled"), result.out)
        let lint = runCLI(["lint", output])
        XCTAssertEqual(lint.code, 0, lint.out + lint.error)
        // ffprobe, a reader that is not ours, sees the fix: both audio tracks default before, only the first after.
        XCTAssertEqual(try GroupCheck.probe(movie).filter { $0.type == "audio" }.map(\.isDefault), [true, true])
        XCTAssertEqual(try GroupCheck.probe(output).filter { $0.type == "audio" }.map(\.isDefault), [true, false])
    }
}
