import Foundation
import KeepTrack

/// `keeptrack fix IN [OUT] [--in-place]`: one enabled track per alternate group, no dangling references, right entry counts.
enum FixCommand {
    /// Test hook of the command, not the library, and only in debug builds (what the tests run; a release
    /// build, what `make install` installs, ignores it): milliseconds to sleep between the tkhd patches of
    /// `--in-place`, so a crash-safety test can kill the process between tracks.
    static let pauseBetweenPatchesVariable = "KEEPTRACK_TEST_PAUSE_BETWEEN_PATCHES_MS"

    static var pauseBetweenPatches: UInt32 {
        #if DEBUG
        ProcessInfo.processInfo.environment[pauseBetweenPatchesVariable].flatMap(UInt32.init) ?? 0
        #else
        0
        #endif
    }

    static let spec = CommandSpec(
        name: "fix",
        summary: "Make each alternate group play exactly one track, drop references to missing tracks, set wrong entry counts.",
        arguments: "IN [OUT] | FILE|DIR... (--in-place | --out-dir DIR)",
        minimumPositionals: 1,
        options: [
            .flag(.inPlace, "Patch only the tkhd flag bytes (and stale fragment offsets, wrong entry counts) of each input (pwrite + fsync); refuse fixes that need a rewrite."),
            .value(.outDir, "DIR", "Write fixed copies under DIR, mirroring the input tree (inputs may be folders)."),
            .flag(.force, "Replace outputs (and the --report file) that exist."),
        ] + BatchRun.options,
        discussion: """
        The track that stays enabled: the source's choice when exactly one is enabled; otherwise the track the others
        name as their fallback (tref/fall: the stereo, most compatible one); otherwise the lowest track id.
        IN alone (no OUT, --in-place or --out-dir) only reports what would change. A file that is already right
        gets "nothing to fix" and nothing is written. A new file is written through the remux writer: every sample
        and box as in the source, only the tkhd flag bytes (and removed references) differ.
        --in-place costs the same for any file size; it exits 65 and writes nothing when a reference must be removed.
        Fragments a tool moved without updating them (lint fragment-offsets-stale, fragment-index-stale: ffmpeg's
        +global_sidx, mutagen, AtomicParsley) get their tfhd base data offsets and mfra/tfra entries rewritten.
        An stsd or dref whose entry count is not the entries it holds (lint entry-count-wrong) gets the right count.
        \(BatchRun.discussion)
        """
    ) { invocation, console in
        let inPlace = invocation.flag(.inPlace)
        let outDir = invocation.value(.outDir)
        let force = invocation.flag(.force)
        if inPlace && outDir != nil { throw KeepTrackCLIError.usage("--in-place and --out-dir exclude each other") }
        let pause = pauseBetweenPatches
        if inPlace || outDir != nil {
            return try BatchRun.run(invocation, console: console, command: "fix", paths: invocation.positionals) { file in
                GroupOperations.fix(input: file.path, output: outDir.map(file.output(under:)), inPlace: inPlace, overwrite: force,
                                    pauseBetweenPatches: pause)
            }.code
        }
        guard invocation.positionals.count <= 2 else { throw KeepTrackCLIError.usage("several inputs need --in-place or --out-dir DIR") }
        if isDirectory(invocation.positionals[0]) { throw KeepTrackCLIError.usage("a folder needs --in-place or --out-dir DIR") }
        let output = invocation.positionals.count == 2 ? invocation.positionals[1] : nil
        return try BatchRun.run(invocation, console: console, command: "fix", paths: [invocation.positionals[0]]) { file in
            GroupOperations.fix(input: file.path, output: output, inPlace: false, overwrite: force)
        }.code
    }

    static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}
