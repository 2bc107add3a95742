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
        // Commands and the table-driven argument parser; `keeptrack` is a thin main over it.
        .target(name: "KeepTrackCLI", dependencies: ["KeepTrack", "KeepTrackFixtures"]),
        .executableTarget(name: "keeptrack", dependencies: ["KeepTrackCLI"]),
        // Golden/ holds expected dump texts, read by path (regenerate with KEEPTRACK_UPDATE_GOLDEN=1).
        .testTarget(name: "KeepTrackTests", dependencies: ["KeepTrack", "KeepTrackFixtures", "KeepTrackCLI"], exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
