import Foundation
import XCTest
import KeepTrack
import KeepTrackCLI
import KeepTrackMediaCLI

/// `make install PREFIX=…` gives a tool that works without the checkout: the checkout's `.deps`
/// (where the build finds libfacedetection) is hidden while the installed binaries run. A test process
/// started while it is hidden cannot load its libraries, so this class runs alone: `make test` runs it
/// after the parallel run of every other class (`--skip InstallTests`).
final class InstallTests: XCTestCase {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `executable` with `arguments`; standard output and error together.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], in folder: URL? = nil, environment: [String: String] = [:]) throws -> (code: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testInstalledToolWorksWithoutTheCheckoutAndUninstallsCleanly() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else { throw unavailable("ffmpeg not installed (scripts/setup.sh)") }
        let folder = TemporaryFolder()
        let prefix = folder.path("prefix")
        // scripts/install.sh is what `make install` runs after `make build` (the release build). The test cannot
        // build (swift test holds the build folder's lock) and `make test` makes no release build (issue 14: it
        // cost a third of the run), so the same script installs the executables this test build made: same
        // linker settings (the $ORIGIN RUNPATH of Package.swift), same layout, man pages from the current tables.
        let build = "/.build/debug"
        for binary in ["keeptrack", "keeptrack-media"] where !FileManager.default.isExecutableFile(atPath: Self.checkout.path + build + "/" + binary) {
            throw unavailable("no \(build) build of \(binary): run `swift build --build-tests` (make test does) first")
        }
        let install = try Self.run(Self.checkout.path + "/scripts/install.sh", [prefix], in: Self.checkout, environment: ["KEEPTRACK_BUILD_DIR": "." + build])
        XCTAssertEqual(install.code, 0, install.out)

        // Inputs made before the checkout's libraries are hidden.
        let movie = folder.path("iphone.mov")
        XCTAssertEqual(runCLI(["fixture", "iphone", movie]).code, 0)
        let clip = folder.path("wide.mp4")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=1", "-f", "lavfi", "-i", "sine=d=1",
                                          "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", clip])?.code, 0)

        let deps = Self.checkout.appendingPathComponent(".deps")
        let hidden = Self.checkout.appendingPathComponent(".deps-hidden-by-InstallTests")
        try FileManager.default.moveItem(at: deps, to: hidden)
        defer { try? FileManager.default.moveItem(at: hidden, to: deps) }

        let media = prefix + "/bin/keeptrack-media"
        let libraries = try Self.run("/usr/bin/ldd", [media]).out
        XCTAssertFalse(libraries.contains("not found"), libraries)
        // libfacedetection is opened by reframe's first detection (from PREFIX/lib/keeptrack/yuface, checked below).
        XCTAssertFalse(libraries.contains("libfacedetection"), "keeptrack-media links libfacedetection itself: \(libraries)")
        // OpenCV comes only with the people detector library, which keeptrack-media opens from PREFIX/lib/keeptrack.
        XCTAssertFalse(libraries.contains("libopencv"), "keeptrack-media links OpenCV itself: \(libraries)")
        let detector = prefix + "/lib/keeptrack/libKeepTrackPeopleDetector.so"
        let detectorLibraries = try Self.run("/usr/bin/ldd", [detector]).out
        XCTAssertTrue(detectorLibraries.contains("libopencv_objdetect"), detectorLibraries)
        XCTAssertFalse(detectorLibraries.contains("not found") || detectorLibraries.contains("swift"), detectorLibraries)

        let inspect = try Self.run(prefix + "/bin/keeptrack", ["inspect", movie])
        XCTAssertEqual(inspect.code, 0, inspect.out)
        XCTAssertTrue(inspect.out.contains("Alternate group 1"), inspect.out)
        let vertical = folder.path("vertical.mp4")
        let reframe = try Self.run(prefix + "/bin/keeptrack", ["reframe", clip, vertical, "--size", "180x320"], environment: ["LD_DEBUG": "libs"])
        XCTAssertEqual(reframe.code, 0, reframe.out)
        let faceLibrary = prefix + "/bin/../lib/keeptrack/yuface/libfacedetection.so"
        XCTAssertTrue(reframe.out.contains("calling init: \(faceLibrary)"), "the detector opened the installed libfacedetection")
        let stream = try XCTUnwrap(FFprobe.probe(vertical, packets: false).streams.first { $0.codecType == "video" })
        XCTAssertEqual(stream.width, 180)
        XCTAssertEqual(stream.height, 320)
        // transcode --stereo finds the FFmpeg 9 installed beside it (the checkout's .deps is hidden).
        let spatial = try AudioFactsTests.wild(StereoVideoTests.spatial), sideBySide = folder.path("sbs.mp4")
        let stereo = try Self.run(prefix + "/bin/keeptrack", ["transcode", spatial, sideBySide, "--stereo", "sbs", "--preset", "ultrafast"])
        XCTAssertEqual(stereo.code, 0, stereo.out)
        XCTAssertEqual(try FFprobe.probe(sideBySide, packets: false).streams.first { $0.codecType == "video" }?.width, 320)

        // Man page and completions name every option of every command (they come from one table).
        let man = try String(contentsOfFile: prefix + "/share/man/man1/keeptrack.1", encoding: .utf8)
        let bash = try String(contentsOfFile: prefix + "/share/bash-completion/completions/keeptrack", encoding: .utf8)
        let zsh = try String(contentsOfFile: prefix + "/share/zsh/site-functions/_keeptrack", encoding: .utf8)
        let fish = try String(contentsOfFile: prefix + "/share/fish/vendor_completions.d/keeptrack.fish", encoding: .utf8)
        for command in MediaCommandLine.commands {
            XCTAssertTrue(man.contains(".SS \"keeptrack \(command.name.replacingOccurrences(of: "-", with: #"\-"#))"), "man page lacks \(command.name)")
            for option in command.options {
                XCTAssertTrue(man.contains(#"\fB\-\-"# + option.name.replacingOccurrences(of: "-", with: #"\-"#) + #"\fR"#), "man: \(command.name) --\(option.name)")
                XCTAssertTrue(bash.contains("--\(option.name)"), "bash: \(command.name) --\(option.name)")
                XCTAssertTrue(zsh.contains("--\(option.name)"), "zsh: \(command.name) --\(option.name)")
                XCTAssertTrue(fish.contains("from \(command.name)' -l \(option.name)"), "fish: \(command.name) --\(option.name)")
            }
        }
        let rendered = try Self.run("/usr/bin/groff", ["-man", "-Tutf8", "-ww", prefix + "/share/man/man1/keeptrack.1"])
        XCTAssertEqual(rendered.code, 0, rendered.out)
        XCTAssertTrue(rendered.out.contains("reframe"), String(rendered.out.prefix(400)))
        let complaints = rendered.out.components(separatedBy: "\n").filter { $0.contains("troff:") }
        XCTAssertEqual(complaints, [], "groff -ww warnings about the generated man page")

        // bash really completes: options of the command being typed, commands in first position.
        let script = """
        source '\(prefix)/share/bash-completion/completions/keeptrack'
        COMP_WORDS=(keeptrack remux --verify); COMP_CWORD=2; _keeptrack; echo "options: ${COMPREPLY[*]}"
        COMP_WORDS=(keeptrack stri); COMP_CWORD=1; _keeptrack; echo "commands: ${COMPREPLY[*]}"
        """
        let completed = try Self.run("/bin/bash", ["-c", script])
        XCTAssertTrue(completed.out.contains("options: --verify-data"), completed.out)
        XCTAssertTrue(completed.out.contains("commands: strip-spatial"), completed.out)
        for (shell, file) in [("/usr/bin/zsh", prefix + "/share/zsh/site-functions/_keeptrack"), ("/usr/bin/fish", prefix + "/share/fish/vendor_completions.d/keeptrack.fish")] {
            guard FileManager.default.isExecutableFile(atPath: shell) else { throw unavailable("\(shell) not installed (scripts/setup.sh)") }
            let check = try Self.run(shell, ["-n", file])
            XCTAssertEqual(check.code, 0, "\(shell) -n \(file): \(check.out)")
        }

        // Without the installed face detector library, reframe says what is missing (69) and transcode still runs.
        let faceLibraryFile = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: prefix + "/lib/keeptrack/yuface")
            .first { $0.hasPrefix("libfacedetection.so") })
        try FileManager.default.removeItem(atPath: prefix + "/lib/keeptrack/yuface/" + faceLibraryFile)
        let faceless = try Self.run(prefix + "/bin/keeptrack", ["reframe", clip, folder.path("faceless.mp4"), "--size", "180x320"])
        XCTAssertEqual(faceless.code, ExitCode.unavailable, faceless.out)
        XCTAssertTrue(faceless.out.contains("libfacedetection.so.v0.0.3") && faceless.out.contains("make setup"), faceless.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("faceless.mp4")), "nothing written")
        let transcoded = try Self.run(prefix + "/bin/keeptrack", ["transcode", clip, folder.path("smaller.mp4"), "--preset", "ultrafast"])
        XCTAssertEqual(transcoded.code, 0, transcoded.out)

        let uninstall = try Self.run(Self.checkout.path + "/scripts/install.sh", ["--uninstall", prefix], in: Self.checkout)
        XCTAssertEqual(uninstall.code, 0, uninstall.out)
        let left = FileManager.default.enumerator(atPath: prefix)?.compactMap { $0 as? String }.filter { name in
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: prefix + "/" + name, isDirectory: &directory) && !directory.boolValue
        } ?? []
        XCTAssertEqual(left, [], "files left after uninstall")
    }
}
