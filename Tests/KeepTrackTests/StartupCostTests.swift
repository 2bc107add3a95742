import CHighwayTimer
import Foundation
import XCTest

/// What a process that links libavcodec pays before its first line runs.
final class StartupCostTests: XCTestCase {
    /// libhwy 1.0.3 (loaded with libavcodec, through libjxl) calibrates a benchmark timer in a static initializer,
    /// 8-9 ms of CPU per start. keeptrack's definition of that function is the one its initializer runs: in this
    /// process (counted), and in keeptrack-media as the dynamic loader reports its bindings.
    func testHighwaysTimerCalibrationIsKeepTracksQuickOne() throws {
        let maps = String(decoding: try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(maps.contains("/libhwy.so"), "libhwy is loaded here (libavcodec -> libjxl -> libhwy)")
        XCTAssertEqual(keeptrack_highway_timer_resolution_calls(), 1, "libhwy's initializer ran keeptrack's estimate, once")
        let media = URL(fileURLWithPath: try RemuxProcessTests.binary()).deletingLastPathComponent().appendingPathComponent("keeptrack-media").path
        let loader = try XCTUnwrap(runToolStandardError("env", ["LD_DEBUG=bindings", media, "--version"]))
        let binding = loader.split(separator: "\n").first { $0.contains("`_ZN3hwy8platform15TimerResolutionEv'") }
        XCTAssertNotNil(binding, "the loader binds libhwy's call")
        XCTAssertTrue(binding?.contains("libhwy.so") == true && binding?.contains("to \(media) ") == true,
                      "bound to keeptrack-media, not to libhwy's own: \(binding ?? "")")
    }
}
