import KeepTrack

/// `keeptrack flatten-stereo IN OUT`: stereo MV-HEVC video as plain 2D HEVC, without re-encoding.
enum FlattenStereoCommand {
    static let spec = CommandSpec(
        name: "flatten-stereo",
        summary: "Keep only the base view of stereo (MV-HEVC spatial) video: plain 2D HEVC, not re-encoded.",
        arguments: "IN OUT | FILE|DIR... --out-dir DIR",
        minimumPositionals: 1,
        options: [
            .value(.outDir, "DIR", "Write results under DIR, mirroring the input tree (inputs may be folders)."),
            .flag(.force, "Replace outputs (and the --report file) that exist."),
        ] + BatchRun.options,
        discussion: """
        iPhone 15 Pro and later and Vision Pro record spatial video as MV-HEVC: both eyes in one HEVC track, the
        second as a layer many players and editors mishandle. Every sample keeps only its NAL units of layer 0
        (the base view, the left eye unless the file's stri says the views are reversed), byte for byte, and the
        sample entry loses lhvC and vexu/eyes (hfov and a vexu/proj projection, true of the one view, stay);
        times, sync samples, edit lists and every other track and box pass through. The output is what every
        HEVC decoder already shows of the source (ffmpeg decodes the same frames from both).
        Exit 65 (nothing written) for a sample whose NAL lengths run past it or that holds no base-layer unit,
        and for an lhvC whose NAL length size differs from hvcC's. HEVC whose samples still carry a second view
        with no lhvC left to describe it (what ffmpeg -c copy makes of spatial video; lint:
        stereo-layer-undescribed) is flattened the same way. A file without stereo video is reported and
        nothing is written for it.
        \(BatchRun.discussion)
        """
    ) { invocation, console in
        let force = invocation.flag(.force)
        if let outDir = invocation.value(.outDir) {
            return try BatchRun.run(invocation, console: console, command: "flatten-stereo", paths: invocation.positionals) { file in
                StereoFlatten.flatten(input: file.path, output: file.output(under: outDir), overwrite: force)
            }.code
        }
        guard invocation.positionals.count == 2 else { throw KeepTrackCLIError.usage("'flatten-stereo' needs IN OUT, or inputs with --out-dir DIR") }
        let output = invocation.positionals[1]
        return try BatchRun.run(invocation, console: console, command: "flatten-stereo", paths: [invocation.positionals[0]]) { file in
            StereoFlatten.flatten(input: file.path, output: output, overwrite: force)
        }.code
    }
}
