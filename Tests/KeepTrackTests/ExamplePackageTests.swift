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
        let result = try InstallTests.run("/usr/bin/env", ["swift", "run", "--scratch-path", folder.path("example-build"), "fix-and-remux", movie, output], in: example)
        XCTAssertEqual(result.code, 0, result.out)
        XCTAssertTrue(result.out.contains("group 1: tracks [2, 3], enabled [2, 3]"), result.out)
        XCTAssertTrue(result.out.contains("change: track 3: disabled"), result.out)
        let lint = runCLI(["lint", output])
        XCTAssertEqual(lint.code, 0, lint.out + lint.error)
    }
}
