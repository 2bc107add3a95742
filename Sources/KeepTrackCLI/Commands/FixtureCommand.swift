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
            .value("duration", "SECONDS", "Length of the movie (default 2)."),
            .value("frame-rate", "FPS", "Video frames per second (default 30)."),
            .value("video-frame-bytes", "N", "Bytes per video frame; sync frames are 4x (default 1500)."),
            .flag("sparse", "Leave the video payload as holes (sparse files above 4 GiB cost no disk)."),
            .flag("force", "Replace OUT if it exists."),
        ],
        discussion: "Variants: " + FixtureOptions.variantNames.joined(separator: ", ")
            + ".\nThe container is real; payloads are opaque bytes (the movie's metadata says so)."
    ) { invocation, console in
        let name = invocation.positionals[0]
        guard var options = FixtureOptions.variant(name) else {
            throw KeepTrackError.usage("unknown variant '\(name)'; variants: \(FixtureOptions.variantNames.joined(separator: ", "))")
        }
        if let duration = try invocation.number("duration", in: 0.1...86_400) { options.duration = duration }
        if let rate = try invocation.integer("frame-rate", in: 1...240) { options.frameRate = rate }
        if let bytes = try invocation.integer("video-frame-bytes", in: 16...(1 << 28)) { options.videoFrameBytes = bytes }
        if invocation.flag("sparse") { options.sparseVideo = true }
        let path = invocation.positionals[1]
        let output = try OutputFile(destination: path, overwrite: invocation.flag("force"))
        do {
            let summary = try FixtureBuilder(options).makeWriter().write(to: output)
            try output.commit()
            console.print("wrote \(path): variant \(name), \(summary.bytesWritten) bytes")
        } catch {
            output.discard()
            throw error
        }
        return ExitCode.ok
    }
}
