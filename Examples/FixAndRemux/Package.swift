// swift-tools-version:6.0
// An example of keeptrack used as a library by another package: it depends on the KeepTrack product
// only (Foundation, no C library). `make test` builds and runs it.
import PackageDescription

let package = Package(
    name: "FixAndRemux",
    dependencies: [.package(name: "keeptrack", path: "../..")],
    targets: [
        .executableTarget(name: "fix-and-remux", dependencies: [.product(name: "KeepTrack", package: "keeptrack")]),
    ]
)
