/// Between two detections the planner knows nothing of when the subject moved, and the taut string spreads
/// the move over the whole gap: a person who stood still and then stepped away was left early (the crop cut
/// them off while they still stood) and reached late. The analysis sees every analysed frame, though: where
/// nothing in the picture changed between a detection and a frame, whoever it found is there on that frame.
public struct StillPictures: Equatable, Sendable {
    /// Detection frame → the last frame after it up to which the picture had not changed.
    public var after: [Int: Int] = [:]
    /// Detection frame → the first frame before it from which the picture did not change until it.
    public var before: [Int: Int] = [:]

    public init(after: [Int: Int] = [:], before: [Int: Int] = [:]) {
        self.after = after
        self.before = before
    }
}

extension DetectionSample {
    /// `samples` and, for each one with findings that `still` names, copies of them on the ends of its still
    /// stretches, marked `held` (not where another sample is).
    public static func holding(_ samples: [DetectionSample], still: StillPictures) -> [DetectionSample] {
        guard !still.after.isEmpty || !still.before.isEmpty else { return samples }
        var taken = Set(samples.map(\.frameIndex))
        var result = samples
        for sample in samples where !(sample.faces.isEmpty && sample.people.isEmpty) {
            for frame in [still.before[sample.frameIndex], still.after[sample.frameIndex]] {
                guard let frame, frame != sample.frameIndex, taken.insert(frame).inserted else { continue }
                var copy = DetectionSample(frameIndex: frame, faces: sample.faces, people: sample.people)
                copy.held = true
                result.append(copy)
            }
        }
        return result.sorted { $0.frameIndex < $1.frameIndex }
    }
}
