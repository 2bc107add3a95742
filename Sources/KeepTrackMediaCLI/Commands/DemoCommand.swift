import Foundation
import KeepTrack
import KeepTrackCLI

/// `keeptrack demo`: a guided tour on an embedded synthetic iPhone-layout sample.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        summary: "Show the main jobs on embedded samples: inspect, remux, lint, fix and levels on an iPhone-layout movie, then reframe and transcode a rendered scene.",
        arguments: "",
        positionals: 0...0,
        options: [.value(.keep, "DIR", "Write the samples and outputs into DIR and keep them, instead of a temporary folder.")],
        discussion: """
        The iPhone-layout sample's payloads are opaque bytes (the container is real, the media is not; its
        metadata says so); the before/after part encodes a real AAC tone. The scene is a 4 s 1080p clip that
        ffmpeg renders from the test photograph `make setup` fetches (.deps/testdata/astronaut.png); without
        it the reframe and transcode part is skipped, saying so. Each output is compared with its source:
        only the video differs, every audio track is identical, flags and group included.
        """
    ) { invocation, console in
        let folder: URL
        let temporary: Bool
        if let keep = invocation.value(.keep) {
            folder = URL(fileURLWithPath: keep)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            temporary = false
        } else {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("keeptrack-demo-\(getpid())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            temporary = true
        }
        defer { if temporary { try? FileManager.default.removeItem(at: folder) } }
        return try Demo.run(in: folder, console: console)
    }
}
