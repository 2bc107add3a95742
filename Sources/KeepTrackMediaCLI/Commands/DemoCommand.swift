import Foundation
import KeepTrack
import KeepTrackCLI

/// `keeptrack demo`: a guided tour on an embedded synthetic iPhone-layout sample.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        summary: "Write a synthetic iPhone-layout sample to a temporary folder and show what keeptrack sees.",
        arguments: "",
        positionals: 0...0,
        options: [.value(.keep, "DIR", "Write the sample into DIR and keep it, instead of a temporary folder.")],
        discussion: "The sample's payloads are opaque bytes (the container is real, the media is not); its metadata says so."
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
