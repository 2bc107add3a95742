import Foundation
import KeepTrack
import KeepTrackReframe

/// The camera path as a JSON file a person can read and edit (`--plan-out`): the crop size, the cuts and,
/// for every frame, its time and the crop's top-left corner in display pixels.
enum PlanFile {
    static let version = 1

    static func json(path: CropPath, frameTimes: [Double], sourceWidth: Int, sourceHeight: Int) -> JSONValue {
        let frames: [JSONValue] = path.offsets.indices.map { index in
            let rect = path.rect(frame: index)
            return .object([("time", .double((frameTimes[index] * 1_000_000).rounded() / 1_000_000)),
                            ("x", .int(Int64(rect.x))), ("y", .int(Int64(rect.y)))])
        }
        return .object([
            ("keeptrackPlan", .int(Int64(version))),
            ("source", .object([("width", .int(Int64(sourceWidth))), ("height", .int(Int64(sourceHeight)))])),
            ("crop", .object([("width", .int(Int64(path.cropWidth))), ("height", .int(Int64(path.cropHeight)))])),
            ("axis", .string(path.axis.rawValue)),
            ("cuts", .array(path.shots.dropFirst().map { .int(Int64($0.lowerBound)) })),
            ("frames", .array(frames)),
        ])
    }

    static func write(_ value: JSONValue, to destination: String, overwrite: Bool, inputs: [String]) throws {
        try OutputFile.write(to: destination, overwrite: overwrite, inputs: inputs) { file in
            try file.write(Array((value.rendered() + "\n").utf8))
        }
    }
}
