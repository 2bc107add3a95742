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
        return ExitCode.ok
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
