// libFuzzer entry point, compiled together with the KeepTrack library sources into one module
// (see Fuzz/run.sh). Every input must end in a value or a KeepTrackError: a crash, a sanitizer
// report, a hang or a huge allocation is a bug.

@_cdecl("LLVMFuzzerTestOneInput")
public func keeptrackFuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzTargets.exercise(bytes)
    return 0
}

enum FuzzTargets {
    /// Parser, track model, inspect report, and the remux planner on one input.
    static func exercise(_ bytes: [UInt8]) {
        let source = MemoryByteSource(bytes)
        do {
            let movie = try Movie(source: source)
            let report = InspectReport(movie: movie, name: "fuzz")
            _ = report.json.rendered()
            _ = report.text
            for track in movie.tracks {
                _ = track.audio
                _ = track.video
                _ = track.codecName
                var count = 0
                for sample in track.sampleTable.samples {
                    count += Int(sample.size & 1)
                }
                _ = count
            }
            let writer = MovieWriter(passingThrough: movie)
            let plan = ChunkPlan(tracks: writer.tracks, chunkDuration: writer.options.chunkDuration)
            _ = try writer.makeLayout(plan: plan, prefixSize: 0).moov.serialized()
        } catch is KeepTrackError {
            // Expected for malformed input.
        } catch {
            fatalError("unexpected error type: \(error)")
        }
    }
}
