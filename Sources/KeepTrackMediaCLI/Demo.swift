import Foundation
import KeepTrack
import KeepTrackCLI
import KeepTrackCodec
import KeepTrackFixtures

/// The guided tour behind `keeptrack demo` (and `make demo`).
enum Demo {
    static func run(in folder: URL, console: Console) throws -> Int32 {
        let sample = folder.appendingPathComponent("iphone-layout.mov").path
        try FixtureBuilder().write(to: sample)
        console.print("== A synthetic movie with the iPhone 16 layout: \(sample)")
        console.print("   (container real, payloads opaque bytes)")
        console.print()
        let movie = try Movie.open(path: sample)
        console.print(InspectReport(movie: movie, name: "iphone-layout.mov").text)
        console.print()
        console.print("What to notice:")
        let audio = movie.tracks.filter { $0.kind == .audio }
        console.print("  • \(audio.count) audio tracks carry the same sound: " + audio.map { "track \($0.id) \($0.format?.description ?? "?") (\($0.audio?.channels.map { "\($0) ch" } ?? "? ch"))" }.joined(separator: " and ") + ".")
        for group in movie.alternateGroups {
            let playing = group.tracks.filter(\.isEnabled).map { String($0.id) }
            console.print("  • They share alternate group \(group.id); only the enabled one plays: track \(playing.joined(separator: ", ")).")
        }
        if let spatial = movie.tracks.first(where: \.isSpatialAudio), let fallback = spatial.referencedIDs("fall").first {
            console.print("  • Track \(spatial.id) is spatial audio; players without an APAC decoder fall back to track \(fallback) (tref/fall).")
        }
        console.print("  • `ffmpeg -c copy` without -map keeps only the first audio track: the spatial one is lost silently.")
        console.print("  • Writers that enable every track make players mix both: an echo.")
        console.print()
        try passthrough(sample, in: folder, console: console)
        console.print()
        try beforeAfter(in: folder, console: console)
        console.print()
        try changeTheVideo(in: folder, console: console)
        return ExitCode.ok
    }

    /// The jobs people come for: the video changed (cropped vertical, re-encoded), every audio track kept,
    /// each followed by `compare` showing the audio tracks identical, flags and groups included.
    static func changeTheVideo(in folder: URL, console: Console) throws {
        console.print("== Change the video, keep everything else")
        guard let photo = testPhotograph() else {
            console.print("   (skipped: the scene needs the test photograph .deps/testdata/astronaut.png, fetched by `make setup`)")
            return
        }
        let scene = folder.appendingPathComponent("scene.mov").path
        console.print("   A 4 s 1080p scene rendered with ffmpeg: a person (a public-domain photograph) resting, walking")
        console.print("   across and resting, with two AAC tracks in one alternate group (stereo on, a second one off).")
        console.print()
        guard show(["fixture", "scene:rest-walk-rest", scene, "--photo", photo, "--duration", "4"], console: console, in: folder) == ExitCode.ok else {
            console.print("   (the rest skipped: ffmpeg could not render the scene)")
            return
        }
        console.print()
        console.print("-- reframe: horizontal to vertical 9:16, following the person; the contact sheet is vertical.png")
        let vertical = folder.appendingPathComponent("vertical.mov").path
        _ = show(["reframe", scene, vertical, "--preview", folder.appendingPathComponent("vertical.png").path], console: console, in: folder)
        console.print()
        _ = show(["compare", scene, vertical], console: console, in: folder)
        try sayWhatDiffers(scene, vertical, console: console)
        console.print()
        console.print("-- transcode: the video re-encoded smaller, every other track byte for byte")
        let smaller = folder.appendingPathComponent("smaller.mov").path
        _ = show(["transcode", scene, smaller, "--crf", "30", "--preset", "veryfast"], console: console, in: folder)
        console.print()
        _ = show(["compare", scene, smaller], console: console, in: folder)
        try sayWhatDiffers(scene, smaller, console: console)
    }

    /// What the comparison found, in one line: the tracks that differ and the audio tracks that do not.
    static func sayWhatDiffers(_ a: String, _ b: String, console: Console) throws {
        let source = try Movie.open(path: a)
        let comparison = try MovieComparison(source, Movie.open(path: b))
        let differing = Set(comparison.rows.map(\.id).filter { id in
            comparison.differences.contains { $0.hasPrefix("track \(id):") || $0.hasPrefix("track \(id),") }
        })
        let audio = source.tracks.filter { $0.kind == .audio }
        let keptAudio = audio.filter { !differing.contains($0.id) }.map { String($0.id) }
        let changed = source.tracks.filter { differing.contains($0.id) }.map { "\($0.id) (\($0.kind.rawValue))" }
        console.print("   Tracks that differ: \(changed.isEmpty ? "none" : changed.joined(separator: ", ")); audio tracks identical, flags and "
            + "group included: \(keptAudio.count) of \(audio.count)\(keptAudio.isEmpty ? "" : " (" + keptAudio.joined(separator: ", ") + ")").")
    }

    /// The photograph the scenes use: beside the checkout's build (`make demo`), or in the current folder's `.deps`.
    static func testPhotograph() -> String? {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let candidates = [
            executable.deletingLastPathComponent().appendingPathComponent("../../.deps/testdata/astronaut.png").standardized.path,
            executable.deletingLastPathComponent().appendingPathComponent("../../../.deps/testdata/astronaut.png").standardized.path,
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".deps/testdata/astronaut.png").path,
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Runs a command as a user would type it, inside `folder` so the output shows short names.
    static func show(_ arguments: [String], console: Console, in folder: URL) -> Int32 {
        let relative = arguments.map { $0.hasPrefix(folder.path + "/") ? String($0.dropFirst(folder.path.count + 1)) : $0 }
        console.print("   $ keeptrack " + relative.joined(separator: " "))
        let previous = FileManager.default.currentDirectoryPath
        // Short names only inside the demo folder: were it not entered, they would name files in the caller's folder.
        let entered = FileManager.default.changeCurrentDirectoryPath(folder.path)
        defer { if entered { _ = FileManager.default.changeCurrentDirectoryPath(previous) } }
        let capture = Console.capturing()
        let code = MediaCommandLine.run(entered ? relative : arguments, console: capture.console)
        let output = capture.output
        let text = output.out + output.error
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
            console.print(line.isEmpty ? "" : "   " + line)
        }
        console.print("   (exit \(code))")
        return code
    }

    /// The main job: a lossless passthrough, proven by compare.
    static func passthrough(_ sample: String, in folder: URL, console: Console) throws {
        console.print("== Passthrough: every track, sample and flag kept")
        let output = folder.appendingPathComponent("passthrough.mov").path
        _ = show(["remux", sample, output], console: console, in: folder)
        console.print()
        _ = show(["compare", sample, output], console: console, in: folder)
    }

    /// Real AAC audio, both tracks of the group enabled (the bug), then fixed, measured by levels.
    static func beforeAfter(in folder: URL, console: Console) throws {
        console.print("== Before/after: what a player hears")
        let seconds = 3.0
        let encoded = try AudioEncoder.encode(TestSignal.sine(frequency: 440, dBFS: -20, seconds: seconds), channels: 2, sampleRate: 48000)
        var options = FixtureOptions()
        options.duration = seconds
        options.enabled = .both
        options.stereoAudio = FixtureAudio(packets: encoded.packets, audioSpecificConfig: encoded.extradata,
                                           primingFrames: encoded.primingFrames, presentedFrames: encoded.inputFrames)
        // FFmpeg cannot decode APAC, so the group's second track carries the same sound as AAC: what a
        // player with both tracks enabled mixes.
        options.alternateIsStereoCopy = true
        let broken = try FixtureBuilder(options).write(to: folder.appendingPathComponent("both-enabled.mov").path)
        let fixed = folder.appendingPathComponent("fixed.mov").path
        console.print("   A 440 Hz tone at −20 dBFS encoded with libavcodec's AAC encoder into both tracks of alternate")
        console.print("   group 1 (\(encoded.packets.count) packets, \(encoded.primingFrames) frames of priming skipped by the edit list).")
        console.print("   Broken: both tracks enabled, as some writers leave them.")
        console.print()
        _ = show(["lint", broken], console: console, in: folder)
        console.print()
        _ = show(["fix", broken, fixed], console: console, in: folder)
        console.print()
        _ = show(["lint", fixed], console: console, in: folder)
        console.print()
        let before = try LevelsAnalyzer.measure(Movie.open(path: broken), name: "both-enabled.mov")
        let after = try LevelsAnalyzer.measure(Movie.open(path: fixed), name: "fixed.mov")
        console.print(before.text)
        console.print()
        console.print(after.text)
        console.print()
        _ = show(["compare", "--levels", fixed, broken], console: console, in: folder)
        let comparison = LevelsComparison(rows: [LevelsComparison.Row(a: after, b: before)])
        if let difference = comparison.rows[0].differenceDB {
            console.print()
            console.print("   Both enabled plays \(String(format: "%+.1f", difference)) dB louder: the two copies add up (a coherent sum is +6 dB;")
            console.print("   with the real stereo + spatial pair it is an echo). The fixed file plays one track, at the recorded level.")
        }
    }
}
