// swift-tools-version:6.0
import Foundation
import PackageDescription

// libfacedetection comes ready-built from the pinned PyPI wheel `yuface` that scripts/fetch-deps.sh
// (run by `make setup`) unpacks into .deps/yuface. The rpaths let the face detector's dlopen find it where
// `make install` puts it (PREFIX/lib/keeptrack, relative to the executable), else in this checkout;
// the library itself finds its OpenMP runtime through its own $ORIGIN/../yuface.libs RPATH.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
let yufaceLibraries = "\(packageRoot)/.deps/yuface/yuface"

let package = Package(
    name: "keeptrack",
    products: [
        .library(name: "KeepTrack", targets: ["KeepTrack"]),
        .executable(name: "keeptrack", targets: ["keeptrack"]),
        .executable(name: "keeptrack-media", targets: ["keeptrack-media"]),
    ],
    targets: [
        // Core: Foundation only, no C dependency, portable to Apple platforms.
        .target(name: "KeepTrack"),
        // Camera path planning for reframing: detections -> tracks -> shots -> a smooth crop path. Pure Swift.
        .target(name: "KeepTrackFraming"),
        // C shim over libfacedetection's C++ entry point (YuNet face detector, BSD-3, licenses/), which it opens on
        // the first detection (only reframe looks for faces). The executable's RUNPATH is where dlopen looks.
        .target(
            name: "CFaceDetect",
            linkerSettings: [
                .unsafeFlags([
                    // Installed (make install): PREFIX/bin/keeptrack-media finds PREFIX/lib/keeptrack/yuface first.
                    "-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/keeptrack/yuface",
                    "-Xlinker", "-rpath", "-Xlinker", yufaceLibraries,
                ]),
            ]
        ),
        // Swift face detector over CFaceDetect, producing KeepTrackFraming detections.
        .target(name: "KeepTrackFaces", dependencies: ["CFaceDetect", "KeepTrackFraming"]),
        // Opens libKeepTrackPeopleDetector.so on the first detection: OpenCV's ~20 libraries cost every
        // keeptrack-media start ~13 ms, and only reframe looks for people. The library (a C shim over OpenCV's HOG
        // people detector, native/people-detector) is built by scripts/build-people-detector.sh, which make runs:
        // built by SwiftPM it would name the Swift runtime, which an installed keeptrack does not have.
        .target(name: "CPeopleDetectLoader"),
        // Swift person (body) detector over CPeopleDetectLoader, producing KeepTrackFraming detections.
        .target(name: "KeepTrackPeople", dependencies: ["CPeopleDetectLoader", "KeepTrackFraming"]),
        // Synthetic iPhone-layout movies for tests, benchmarks and the demo.
        .target(name: "KeepTrackFixtures", dependencies: ["KeepTrack"]),
        // System libraries (Debian 12 packages installed by scripts/setup.sh): FFmpeg 5.1 codecs and filters, and libebur128.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavcodec", providers: [.apt(["libavcodec-dev", "libavutil-dev", "libavfilter-dev", "libswresample-dev", "libswscale-dev"])]),
        .systemLibrary(name: "CEbur128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        // Stands in for libhwy 1.0.3's timer calibration, which libavcodec's load would otherwise run (8-9 ms of
        // CPU per start) for a value only Highway's benchmark code reads; comments in the file say how.
        .target(name: "CHighwayTimer", linkerSettings: [
            .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=_ZN3hwy8platform15TimerResolutionEv"], .when(platforms: [.linux])),
        ]),
        // Codec layer: decodes/encodes keeptrack's own demuxed samples with libavcodec; audio levels and loudness.
        .target(name: "KeepTrackCodec", dependencies: ["KeepTrack", "CFFmpeg", "CEbur128", "CHighwayTimer"]),
        // The one video pipeline: decode, filter (scale, tone-map), encode on a thread of its own, and mux the new
        // video track in the old one's place beside every other track passed through. Reframe adds its crop on top.
        // (KeepTrackFraming only for its pure-Swift PixelSize and ShownFrames.)
        .target(name: "KeepTrackTranscode", dependencies: ["KeepTrack", "KeepTrackCodec", "CFFmpeg", "KeepTrackFraming"]),
        // Reframing pipeline: decode, find the subject, plan, crop and encode the video; pass the audio through.
        .target(name: "KeepTrackReframePipeline", dependencies: ["KeepTrack", "KeepTrackCodec", "CFFmpeg", "KeepTrackFaces", "KeepTrackPeople", "KeepTrackFraming", "KeepTrackTranscode"]),
        // Container commands and the table-driven argument parser; links no C library.
        .target(name: "KeepTrackCLI", dependencies: ["KeepTrack", "KeepTrackFixtures"]),
        // Commands that decode or encode media (levels, reframe, demo, compare --levels).
        .target(name: "KeepTrackMediaCLI", dependencies: ["KeepTrackCLI", "KeepTrack", "KeepTrackFixtures", "KeepTrackCodec", "KeepTrackFraming", "KeepTrackReframePipeline", "KeepTrackTranscode", "KeepTrackFaces", "KeepTrackPeople"]),
        // `keeptrack` starts fast and hands media commands to `keeptrack-media` beside it.
        .executableTarget(name: "keeptrack", dependencies: ["KeepTrack", "KeepTrackCLI"]),
        .executableTarget(name: "keeptrack-media", dependencies: ["KeepTrack", "KeepTrackMediaCLI"]),
        // Golden/ holds expected dump texts, read by path (regenerate with KEEPTRACK_UPDATE_GOLDEN=1).
        .testTarget(
            name: "KeepTrackTests",
            dependencies: ["KeepTrack", "KeepTrackFixtures", "KeepTrackCLI", "KeepTrackMediaCLI", "KeepTrackCodec", "KeepTrackFraming", "KeepTrackFaces", "KeepTrackPeople", "KeepTrackReframePipeline", "KeepTrackTranscode", "CHighwayTimer"],
            exclude: ["Golden", "Judge"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
