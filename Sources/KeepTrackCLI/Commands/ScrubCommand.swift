import Foundation
import KeepTrack

/// `keeptrack scrub IN OUT | FILE|DIR... (--in-place | --out-dir DIR)`: removes the place, the faces, the device.
enum ScrubCommand {
    static let spec = CommandSpec(
        name: "scrub",
        summary: "Remove where a movie was taken (every copy), detected-face tracks, or what recorded it; keep everything else.",
        arguments: "IN OUT | FILE|DIR... (--in-place | --out-dir DIR)",
        minimumPositionals: 1,
        options: [
            .flag(.location, "Remove every copy of the location (the default): meta location keys with their accuracy, udta ©xyz/loci, XMP GPS properties, GPS tracks (GoPro gpmd, camm), stale copies in free boxes."),
            .flag(.faces, "Remove timed-metadata tracks of detected faces (mebx detected-face) and the references to them."),
            .flag(.device, "Remove make, model, software, lens and camera serial numbers."),
            .flag(.all, "All of the above."),
            .flag(.inPlace, "Overwrite the items inside each input (box type to free, then payload zeroed; pwrite + fsync): same length, cost independent of size. A track to remove replaces the input with a rewritten movie in one rename."),
            .value(.outDir, "DIR", "Write scrubbed copies under DIR, mirroring the input tree (inputs may be folders); outputs already scrubbed are kept (a rerun resumes)."),
            .flag(.json, "Print the removed items as JSON (one row per file, as --report)."),
            .flag(.force, "Replace outputs (and the --report file) that exist."),
        ] + BatchRun.options,
        discussion: """
        `inspect` lists every item with its box path and byte offset, and how scrub removes it. Metadata items are
        overwritten where they are: the box's type becomes free (one 4-byte write) and then its payload is zeroed;
        copies in free space and XMP properties are overwritten with zeros or spaces. Every other byte of the file
        stays where it was. A GPS or face track can only go by a rewrite (the movie writer: same samples, references
        to the track removed). Owners and creation dates are shown by inspect and kept.
        A kill at any moment of --in-place leaves a readable movie holding each item whole or already free.
        Exit status: 0 done (or nothing to remove), 64 usage, 65 malformed input, 66 missing input, 73 output exists or
        cannot be created, 74 I/O error.
        \(BatchRun.discussion)
        """
    ) { invocation, console in try run(invocation, console) }

    static func run(_ invocation: Invocation, _ console: Console) throws -> Int32 {
        let selection = selection(invocation)
        let inPlace = invocation.flag(.inPlace)
        let outDir = invocation.value(.outDir)
        let force = invocation.flag(.force)
        let pause = FixCommand.pauseBetweenPatches
        if inPlace && outDir != nil { throw KeepTrackCLIError.usage("--in-place and --out-dir exclude each other") }
        let json = invocation.flag(.json)
        let printOutcome: (BatchOutcome, Console) -> Void = { outcome, console in
            if !json { BatchRun.printOutcome(outcome, console) }
        }
        let result: (outcomes: [BatchOutcome], code: Int32)
        if inPlace || outDir != nil {
            result = try BatchRun.run(invocation, console: console, command: "scrub", paths: invocation.positionals, printOutcome: printOutcome) { file in
                let output = outDir.map(file.output(under:))
                if let output, !force, alreadyScrubbed(output, selection: selection) {
                    return BatchOutcome(path: file.path, action: "kept", result: "\(output) exists and holds nothing to remove", exitCode: ExitCode.ok)
                }
                return Scrub.run(input: file.path, output: output, selection: selection, overwrite: force, pauseBetweenPatches: pause).0
            }
        } else {
            guard invocation.positionals.count == 2 else { throw KeepTrackCLIError.usage("'scrub' needs IN OUT, or inputs with --in-place or --out-dir DIR") }
            let output = invocation.positionals[1]
            result = try BatchRun.run(invocation, console: console, command: "scrub", paths: [invocation.positionals[0]], printOutcome: printOutcome) { file in
                Scrub.run(input: file.path, output: output, selection: selection, overwrite: force).0
            }
        }
        if invocation.flag(.json) {
            console.print(JSONValue.array(result.outcomes.map(\.json)).rendered())
        }
        return result.code
    }

    static func selection(_ invocation: Invocation) -> Scrub.Selection {
        if invocation.flag(.all) { return .all }
        var selection: Scrub.Selection = []
        if invocation.flag(.location) { selection.insert(.location) }
        if invocation.flag(.faces) { selection.insert(.faces) }
        if invocation.flag(.device) { selection.insert(.device) }
        return selection.isEmpty ? .location : selection
    }

    /// A rerun of a folder skips outputs a previous run finished (they were committed whole, atomically).
    static func alreadyScrubbed(_ output: String, selection: Scrub.Selection) -> Bool {
        guard FileManager.default.fileExists(atPath: output), let movie = try? Movie.open(path: output),
              let plan = try? Scrub.plan(movie, selection: selection) else { return false }
        return plan.isEmpty
    }
}
