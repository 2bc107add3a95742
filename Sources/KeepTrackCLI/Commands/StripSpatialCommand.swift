import KeepTrack

/// `keeptrack strip-spatial IN OUT`: removes spatial audio tracks, keeps their stereo fallback enabled.
enum StripSpatialCommand {
    static let spec = CommandSpec(
        name: "strip-spatial",
        summary: "Remove spatial audio (APAC, spatial LPCM) tracks; their stereo fallback stays and plays.",
        arguments: "IN OUT | FILE|DIR... --out-dir DIR",
        minimumPositionals: 1,
        options: [
            .flag(.allowSilence, "Remove a spatial track even when it has no fallback (its group may be left silent)."),
            .value(.outDir, "DIR", "Write results under DIR, mirroring the input tree (inputs may be folders)."),
            .flag(.force, "Replace outputs (and the --report file) that exist."),
        ] + BatchRun.options,
        discussion: """
        Spatial tracks are found by format (apac; LPCM with 4+ channels that names a fallback), never by position.
        The fallback (tref/fall target) becomes enabled; its alternate group becomes 0 when it is left alone;
        references to removed tracks go away; every other box and sample passes through unchanged.
        Exit 65 (nothing written) for a spatial track without a fallback, unless --allow-silence.
        A file without spatial audio is reported and nothing is written for it.
        \(BatchRun.discussion)
        """
    ) { invocation, console in
        let allowSilence = invocation.flag(.allowSilence)
        let force = invocation.flag(.force)
        if let outDir = invocation.value(.outDir) {
            return try BatchRun.run(invocation, console: console, command: "strip-spatial", paths: invocation.positionals) { file in
                GroupOperations.stripSpatial(input: file.path, output: file.output(under: outDir), allowSilence: allowSilence, overwrite: force)
            }.code
        }
        guard invocation.positionals.count == 2 else { throw KeepTrackCLIError.usage("'strip-spatial' needs IN OUT, or inputs with --out-dir DIR") }
        let output = invocation.positionals[1]
        return try BatchRun.run(invocation, console: console, command: "strip-spatial", paths: [invocation.positionals[0]]) { file in
            GroupOperations.stripSpatial(input: file.path, output: output, allowSilence: allowSilence, overwrite: force)
        }.code
    }
}
