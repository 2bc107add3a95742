// The codec layer's parameter-set parser (Sources/KeepTrackCodec/VideoParameterSets.swift, compiled
// into the harness by Fuzz/run.sh): it turns an encoder's Annex B output into the avcC/hvcC record
// when reframe muxes what libx264/libx265 wrote. The harness sends it every input that starts with a
// start code (seeds: Fuzz/seeds/annexb.h264, annexb.hevc); movies go to FuzzTargets.exerciseOne.

enum ParameterSetTarget {
    static func isAnnexB(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0, 0, 1]) || bytes.starts(with: [0, 0, 0, 1]) }

    /// Units split, length-prefixed, and read as both codecs' parameter sets; errors other than a
    /// KeepTrackError are returned (a trap ends the run by itself).
    static func exercise(_ bytes: [UInt8]) -> [any Error] {
        _ = VideoParameterSets.lengthPrefixed(annexB: bytes)
        return [FuzzTargets.attempt { _ = try VideoParameterSets.avcConfiguration(annexB: bytes) },
                FuzzTargets.attempt { _ = try VideoParameterSets.hevcConfiguration(annexB: bytes) }].compactMap { $0 }
    }
}
