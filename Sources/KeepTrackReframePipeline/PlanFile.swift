import Foundation
import KeepTrack
import KeepTrackFraming
import KeepTrackTranscode

/// The camera path as a JSON file a person can read and edit (`--plan-out`): the crop size, the cuts and,
/// for every frame, its time and the crop's top-left corner in display pixels; in a `split` shot also the
/// top-left corners of its two windows (`top`, `bottom`; their size is `split`).
enum PlanFile {
    static let version = 1

    static func json(path: CropPath, frameTimes: [Double], sourceWidth: Int, sourceHeight: Int) -> JSONValue {
        let frames: [JSONValue] = path.offsets.indices.map { index in
            let rect = path.rect(frame: index)
            var fields: [(String, JSONValue)] = [("time", .double((frameTimes[index] * 1_000_000).rounded() / 1_000_000)),
                                                 ("x", .int(Int64(rect.x))), ("y", .int(Int64(rect.y)))]
            if let windows = path.split(frame: index) {
                fields.append(("top", .object([("x", .int(Int64(windows.top.x))), ("y", .int(Int64(windows.top.y)))])))
                fields.append(("bottom", .object([("x", .int(Int64(windows.bottom.x))), ("y", .int(Int64(windows.bottom.y)))])))
            }
            return .object(fields)
        }
        let split: [(String, JSONValue)] = path.splitWindows.contains { $0 != nil }
            ? [("split", .object([("width", .int(Int64(path.splitSize.width))), ("height", .int(Int64(path.splitSize.height)))]))] : []
        return .object([
            ("keeptrackPlan", .int(Int64(version))),
            ("source", .object([("width", .int(Int64(sourceWidth))), ("height", .int(Int64(sourceHeight)))])),
            ("crop", .object([("width", .int(Int64(path.cropWidth))), ("height", .int(Int64(path.cropHeight)))])),
            ("axis", .string(path.axis.rawValue)),
        ] + split + [
            ("cuts", .array(path.shots.dropFirst().map { .int(Int64($0.lowerBound)) })),
            ("layouts", .array(path.shots.indices.map { .string(path.layout(shot: $0).rawValue) })),
            ("frames", .array(frames)),
        ])
    }

    static func write(_ value: JSONValue, to destination: String, overwrite: Bool, inputs: [String]) throws {
        try OutputFile.write(to: destination, overwrite: overwrite, inputs: inputs) { file in
            try file.write(Array((value.rendered() + "\n").utf8))
        }
    }
}

extension PlanFile {
    /// Reads a plan (`--plan`) written by `--plan-out` and perhaps edited, for a movie whose display picture is
    /// `sourceWidth`×`sourceHeight`, cropped to `crop`, with `frameCount` frames. Every field is checked;
    /// a plan that does not fit is refused (65) with the field that is wrong. Odd positions are rounded
    /// down to even (4:2:0 chroma).
    /// Frames of split shots need `top` and `bottom` windows of `splitWindow`'s size (the plan's `split`).
    /// `frameCount` counts the frames the edit list shows (`hiddenFrames` more are hidden): a plan has one entry per shown frame.
    static func read(_ file: String, sourceWidth: Int, sourceHeight: Int, crop: PixelSize, frameCount: Int, hiddenFrames: Int = 0,
                     splitWindow: SplitSize) throws -> CropPath {
        func bad(_ reason: String) -> KeepTrackError { .unsupported("the plan \(file) does not fit this movie: \(reason)") }
        guard FileManager.default.fileExists(atPath: file) else { throw KeepTrackError.missingInput("\(file): no such plan file") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: file)
        // About 40 bytes a frame; 64 MiB is over a million frames.
        guard let size = attributes?[.size] as? Int, size <= 64 << 20 else { throw bad("larger than 64 MiB") }
        guard let data = FileManager.default.contents(atPath: file) else { throw KeepTrackError.missingInput("\(file): cannot be read") }
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
            throw KeepTrackError.unsupported("the plan \(file) is not JSON: \(error.localizedDescription)")
        }
        guard let root = parsed as? [String: Any] else { throw bad("the top level is not an object") }
        guard (root["keeptrackPlan"] as? NSNumber)?.intValue == version else { throw bad("\"keeptrackPlan\" is not \(version)") }
        func integer(_ value: Any?, _ name: String) throws -> Int {
            guard let number = value as? NSNumber, String(cString: number.objCType) != "c",
                  number.doubleValue == number.doubleValue.rounded(), abs(number.doubleValue) < 1e9 else {
                throw bad("\(name) is not an integer")
            }
            return number.intValue
        }
        let cropObject = root["crop"] as? [String: Any]
        let width = try integer(cropObject?["width"], "crop.width"), height = try integer(cropObject?["height"], "crop.height")
        guard width == crop.width, height == crop.height else {
            throw bad("crop is \(width)x\(height); this movie's crop is \(crop.width)x\(crop.height) (plan and render with the same aspect ratio)")
        }
        guard let axisName = root["axis"] as? String, let axis = CropAxis(rawValue: axisName) else {
            throw bad("\"axis\" is not \"horizontal\" or \"vertical\"")
        }
        guard let frames = root["frames"] as? [Any] else { throw bad("\"frames\" is not an array") }
        guard frames.count == frameCount else {
            throw bad("it has \(frames.count) frames; the video " + (hiddenFrames > 0 ? "shows \(frameCount) (its edit list hides \(hiddenFrames) more)" : "has \(frameCount)"))
        }
        let limitX = sourceWidth - crop.width, limitY = sourceHeight - crop.height
        var offsets: [Int] = []
        offsets.reserveCapacity(frames.count)
        for (index, entry) in frames.enumerated() {
            guard let frame = entry as? [String: Any] else { throw bad("frames[\(index)] is not an object") }
            let x = try integer(frame["x"], "frames[\(index)].x"), y = try integer(frame["y"], "frames[\(index)].y")
            guard (0...max(0, limitX)).contains(x) else { throw bad("frames[\(index)].x is \(x); the crop fits at 0...\(limitX)") }
            guard (0...max(0, limitY)).contains(y) else { throw bad("frames[\(index)].y is \(y); the crop fits at 0...\(limitY)") }
            guard axis == .horizontal ? y == 0 || limitY == 0 : x == 0 || limitX == 0 else {
                throw bad("frames[\(index)] moves across the \(axis.rawValue) axis (\(axis == .horizontal ? "y" : "x") must be 0)")
            }
            offsets.append((axis == .horizontal ? x : y) / 2 * 2)
        }
        guard let cutList = root["cuts"] as? [Any] else { throw bad("\"cuts\" is not an array") }
        var starts = [0]
        for (index, entry) in cutList.enumerated() {
            let cut = try integer(entry, "cuts[\(index)]")
            guard cut > starts.last!, cut < frameCount else {
                throw bad("cuts[\(index)] is \(cut); cuts are increasing frame numbers in 1..<\(frameCount)")
            }
            starts.append(cut)
        }
        let shots = zip(starts, starts.dropFirst() + [frameCount]).map { $0..<$1 }
        var path = CropPath(axis: axis, sourceWidth: sourceWidth, sourceHeight: sourceHeight, cropWidth: crop.width, cropHeight: crop.height,
                            offsets: offsets, shots: shots)
        // One layout per shot; a plan without "layouts" (written before layouts existed) follows throughout.
        if let layoutList = root["layouts"] {
            let names = ShotLayout.allCases.map(\.rawValue)
            guard let entries = layoutList as? [Any] else { throw bad("\"layouts\" is not an array") }
            guard entries.count == shots.count else {
                throw bad("\"layouts\" has \(entries.count) entries; the plan has \(shots.count) shot(s) (one more than its cuts)")
            }
            path.layouts = try entries.enumerated().map { index, entry in
                guard let name = entry as? String, let layout = ShotLayout(rawValue: name) else {
                    throw bad("layouts[\(index)] is not one of \(names.map { "\"\($0)\"" }.joined(separator: ", "))")
                }
                return layout
            }
        }
        if path.layouts.contains(.split) {
            try readSplitWindows(into: &path, root: root, frames: frames, window: splitWindow, bad: bad, integer: integer)
        }
        return path
    }

    /// The windows of every frame of the split shots: inside the picture, even (odd ones rounded down).
    private static func readSplitWindows(into path: inout CropPath, root: [String: Any], frames: [Any], window: SplitSize,
                                         bad: (String) -> KeepTrackError, integer: (Any?, String) throws -> Int) throws {
        let size = root["split"] as? [String: Any]
        guard size != nil else { throw bad("\"split\" (the windows' size) is missing; a shot's layout is split") }
        let width = try integer(size?["width"], "split.width"), height = try integer(size?["height"], "split.height")
        guard width == window.width, height == window.height else {
            throw bad("split is \(width)x\(height); this movie's split windows are \(window.width)x\(window.height) (plan and render with the same aspect ratio and output size)")
        }
        let limitX = path.sourceWidth - width, limitY = path.sourceHeight - height
        path.splitSize = window
        path.splitWindows = [SplitWindows?](repeating: nil, count: frames.count)
        for (shotIndex, shot) in path.shots.enumerated() where path.layout(shot: shotIndex) == .split {
            for index in shot {
                let frame = frames[index] as? [String: Any] ?? [:]
                var corners: [WindowCorner] = []
                for name in ["top", "bottom"] {
                    guard let corner = frame[name] as? [String: Any] else {
                        throw bad("frames[\(index)].\(name) is missing or not an object (layouts[\(shotIndex)] is split)")
                    }
                    let x = try integer(corner["x"], "frames[\(index)].\(name).x"), y = try integer(corner["y"], "frames[\(index)].\(name).y")
                    guard (0...max(0, limitX)).contains(x) else { throw bad("frames[\(index)].\(name).x is \(x); the window fits at 0...\(limitX)") }
                    guard (0...max(0, limitY)).contains(y) else { throw bad("frames[\(index)].\(name).y is \(y); the window fits at 0...\(limitY)") }
                    corners.append(WindowCorner(x: x / 2 * 2, y: y / 2 * 2))
                }
                path.splitWindows[index] = SplitWindows(top: corners[0], bottom: corners[1])
            }
        }
    }
}
