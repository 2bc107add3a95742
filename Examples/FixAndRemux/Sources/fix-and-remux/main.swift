import Foundation
import KeepTrack

// fix-and-remux IN OUT: list the tracks and alternate groups of IN, then write OUT with exactly one
// enabled track per group (what `keeptrack fix IN OUT` does), every sample and box passed through.
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: fix-and-remux IN OUT\n".utf8))
    exit(64)
}
do {
    let movie = try Movie.open(path: arguments[1])
    for track in movie.tracks {
        print("track \(track.id): \(track.kind.rawValue) \(track.codecName ?? "?"), enabled \(track.isEnabled), group \(track.alternateGroup)")
    }
    for group in movie.alternateGroups {
        print("group \(group.id): tracks \(group.tracks.map(\.id)), enabled \(group.tracks.filter(\.isEnabled).map(\.id))")
    }
    let edit = try GroupFix.edit(movie, plan: GroupFix.plan(movie))
    edit.changes.forEach { print("change: \($0)") }
    try MovieOutput.write(edit.writer(), to: arguments[2], inputs: [arguments[1]], overwrite: false)
    print("wrote \(arguments[2])")
} catch let error as KeepTrackError {
    FileHandle.standardError.write(Data("\(error.description)\n".utf8))
    exit(error.exitCode)
}
