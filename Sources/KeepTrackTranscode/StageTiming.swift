/// The wall-clock seconds one stage of a run took (reframe's and transcode's summaries).
public struct StageTiming: Equatable, Sendable {
    public var stage: String
    public var seconds: Double

    public init(_ stage: String, _ seconds: Double) {
        self.stage = stage
        self.seconds = seconds
    }
}
