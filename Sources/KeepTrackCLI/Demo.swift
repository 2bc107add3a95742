import Foundation
import KeepTrack
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
        return ExitCode.ok
    }
}
