// keeptrack-fixture: writes a synthetic iPhone-layout movie (benchmarks need files of several GiB
// with real bytes, which the test helpers do not write).
import Foundation
import KeepTrack
import KeepTrackFixtures

let usage = """
Usage: keeptrack-fixture VARIANT OUT [--duration SECONDS] [--frame-bytes N] [--sparse]
Variants: \(FixtureOptions.variantNames.joined(separator: ", "))
--frame-bytes sets the size of a video frame (sync frames are 4x); 60 s at 1100000 gives about 2.3 GB.
"""

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func take(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
    return value
}
let duration = take("--duration").flatMap(Double.init)
let frameBytes = take("--frame-bytes").flatMap(Int.init)
let sparse = arguments.contains("--sparse")
arguments.removeAll { $0 == "--sparse" }
guard arguments.count == 2, var options = FixtureOptions.variant(arguments[0]) else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(64)
}
if let duration { options.duration = duration }
if let frameBytes { options.videoFrameBytes = frameBytes }
options.sparseVideo = sparse
do {
    try FixtureBuilder(options).write(to: arguments[1])
} catch let error as KeepTrackError {
    FileHandle.standardError.write(Data("keeptrack-fixture: \(error.description)\n".utf8))
    exit(error.exitCode)
}
