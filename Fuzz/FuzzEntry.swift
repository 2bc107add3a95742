// libFuzzer entry point, compiled together with the KeepTrack library sources into one module
// (see Fuzz/run.sh). What runs on each input is `FuzzTargets.exerciseOne` (Sources/KeepTrack/Support:
// the parser and model, then one planner, edit or the report, chosen from the input; the regression tests
// replay every one with `FuzzTargets.exercise`; an Annex B stream goes to Fuzz/ParameterSetTarget.swift):
// every input must end in a value or a KeepTrackError; a crash, a sanitizer report, a hang, a huge
// allocation or any other error type is a bug.

@_cdecl("LLVMFuzzerTestOneInput")
public func keeptrackFuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let unexpected = ParameterSetTarget.isAnnexB(bytes) ? ParameterSetTarget.exercise(bytes) : FuzzTargets.exerciseOne(bytes)
    if let error = unexpected.first { fatalError("unexpected error type: \(error)") }
    return 0
}
