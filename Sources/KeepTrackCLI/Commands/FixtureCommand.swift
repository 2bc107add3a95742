import Foundation
import KeepTrack
import KeepTrackFixtures

/// `keeptrack fixture VARIANT OUT`: writes a synthetic iPhone-layout movie (tests, benchmarks, fuzz seeds, bug reports).
enum FixtureCommand {
    static let spec = CommandSpec(
        name: "fixture",
        summary: "Write a synthetic iPhone-layout movie (a named variant) for tests and benchmarks.",
        arguments: "VARIANT OUT",
        positionals: 2...2,
        options: [
            .value(.durationSeconds, "SECONDS", "Length of the movie (default 2).", range: 0.1...86_400),
            .value(.frameRate, "FPS", "Video frames per second (default 30).", range: 1...240),
            .value(.videoFrameBytes, "N", "Bytes per video frame; sync frames are 4x (default 1500).", range: 16...(1 << 28)),
            .flag(.sparse, "Leave the video payload as holes (sparse files above 4 GiB cost no disk)."),
            .value(.photo, "PNG", "For scene:NAME: the person's photograph (astronaut.png from scikit-image; make setup fetches it)."),
            .flag(.hevc, "For scene:NAME: HEVC Main10 tagged HLG instead of H.264 SDR."),
            .flag(.force, "Replace OUT if it exists."),
        ],
        discussion: "Variants: " + FixtureOptions.variantNames.joined(separator: ", ")
            + ".\nThe container is real; payloads are opaque bytes (the movie's metadata says so)."
            + "\nscene:NAME (" + ReframeScene.catalogue().map(\.name).joined(separator: ", ") + ") renders a real 1080p clip for reframe"
            + " with ffmpeg: the --photo moving along a scripted path, two AAC tracks (default and not)."
    ) { invocation, console in
        let name = invocation.positionals[0]
        if name.hasPrefix("scene:") { return try writeScene(String(name.dropFirst(6)), invocation, console) }
        guard var options = FixtureOptions.variant(name) else {
            throw KeepTrackError.usage("unknown variant '\(name)'; variants: \(FixtureOptions.variantNames.joined(separator: ", "))")
        }
        if let duration = invocation.value(.durationSeconds) { options.duration = duration }
        if let rate = invocation.value(.frameRate) { options.frameRate = rate }
        if let bytes = invocation.value(.videoFrameBytes) { options.videoFrameBytes = bytes }
        if invocation.flag(.sparse) { options.sparseVideo = true }
        let path = invocation.positionals[1]
        let summary = try OutputFile.write(to: path, overwrite: invocation.flag(.force)) { try FixtureBuilder(options).makeWriter().write(to: $0) }
        console.print("wrote \(path): variant \(name), \(summary.bytesWritten) bytes")
        return ExitCode.ok
    }

    static func writeScene(_ name: String, _ invocation: Invocation, _ console: Console) throws -> Int32 {
        let duration = try invocation.value(.durationSeconds, in: 1...600) ?? 6
        guard let scene = ReframeScene.catalogue(duration: duration).first(where: { $0.name == name }) else {
            throw KeepTrackError.usage("unknown scene '\(name)'; scenes: \(ReframeScene.catalogue().map(\.name).joined(separator: ", "))")
        }
        guard let photo = invocation.value(.photo) else { throw KeepTrackError.usage("scene:\(name) needs --photo PNG") }
        let path = invocation.positionals[1]
        if FileManager.default.fileExists(atPath: path) && !invocation.flag(.force) {
            throw KeepTrackError.outputExists(path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg"] + scene.ffmpegArguments(photo: photo, output: path, codec: invocation.flag(.hevc) ? .hevcHLG : .h264)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw KeepTrackError.io("ffmpeg failed rendering scene \(name) (status \(process.terminationStatus))") }
        console.print("wrote \(path): scene \(name), \(scene.frameCount) frames, cuts at \(scene.cutFrames)")
        return ExitCode.ok
    }
}
