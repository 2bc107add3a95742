// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "keeptrack",
    products: [
        .library(name: "KeepTrack", targets: ["KeepTrack"]),
        .executable(name: "keeptrack", targets: ["keeptrack"]),
    ],
    targets: [
        // Core: Foundation only, no C dependency, portable to Apple platforms.
        .target(name: "KeepTrack"),
        // Synthetic iPhone-layout movies for tests, benchmarks and the demo.
        .target(name: "KeepTrackFixtures", dependencies: ["KeepTrack"]),
        // System libraries (Debian 12 packages installed by scripts/setup.sh): FFmpeg 5.1 codecs and libebur128.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavcodec", providers: [.apt(["libavcodec-dev", "libavutil-dev", "libswresample-dev", "libswscale-dev"])]),
        .systemLibrary(name: "CEbur128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        // Codec layer: decodes/encodes keeptrack's own demuxed samples with libavcodec; audio levels and loudness.
        .target(name: "KeepTrackCodec", dependencies: ["KeepTrack", "CFFmpeg", "CEbur128"]),
        // Commands and the table-driven argument parser; `keeptrack` is a thin main over it.
        .target(name: "KeepTrackCLI", dependencies: ["KeepTrack", "KeepTrackFixtures", "KeepTrackCodec"]),
        .executableTarget(name: "keeptrack", dependencies: ["KeepTrackCLI"]),
        // Golden/ holds expected dump texts, read by path (regenerate with KEEPTRACK_UPDATE_GOLDEN=1).
        .testTarget(name: "KeepTrackTests", dependencies: ["KeepTrack", "KeepTrackFixtures", "KeepTrackCLI", "KeepTrackCodec"], exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
