/// The `split` layout: two people stacked in the output, each half a window following its own person.
///
/// The output (W×H) is cut into two halves of W×`half` with a divider of `divider` rows between them (at least
/// 2, about H/270, even; the halves are even too). Each half shows a window of the source of the same aspect,
/// `window` pixels: as wide as the follow crop, so a person appears as large as when followed. The upper half
/// follows the person further left (along the crop's axis: further up for a vertical axis), the lower half
/// the other one. Each window's path along the axis is planned by the same camera path planner as a followed
/// crop (rest centring, central band, speed and acceleration limits, dead-band quantisation: no jitter); across
/// the axis each window stays still for the whole shot, the person's median face a third of the way down
/// (a horizontal axis) or centred (a vertical one).
public struct SplitGeometry: Equatable, Sendable {
    public var output: SplitSize
    /// Rows of each half in the output (even).
    public var half: Int
    /// Rows of the divider between the halves (even, at least 2).
    public var divider: Int
    /// Each window's size in source pixels (even).
    public var window: SplitSize

    /// The geometry for a follow crop of `crop` scaled into `output`.
    public init(crop: SplitSize, output: SplitSize) {
        self.output = output
        let wanted = max(2, output.height / 270 / 2 * 2)
        half = max(2, (output.height - wanted) / 2 / 2 * 2)
        divider = output.height - 2 * half
        let height = Double(crop.width) * Double(half) / Double(max(output.width, 1))
        window = SplitSize(width: crop.width, height: max(2, min(crop.height, Int((height / 2).rounded()) * 2)))
    }

    /// The first output row of the lower half.
    public var lowerHalfRow: Int { half + divider }
}

/// The size of a split window or of the output it is scaled into.
public typealias SplitSize = PixelSize

/// The top-left corner of a split window, in display pixels (even).
public struct WindowCorner: Equatable, Hashable, Sendable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

/// The two windows of one frame of a split shot: top-left corners in display pixels (even).
public struct SplitWindows: Equatable, Sendable {
    /// The window shown in the upper half.
    public var top: WindowCorner
    /// The window shown in the lower half.
    public var bottom: WindowCorner

    public init(top: WindowCorner, bottom: WindowCorner) {
        self.top = top
        self.bottom = bottom
    }
}

/// The two window rectangles of one frame of a split shot, in source (display) pixels.
public struct SplitRects: Equatable, Sendable {
    public var top: FrameRect
    public var bottom: FrameRect

    public init(top: FrameRect, bottom: FrameRect) {
        self.top = top
        self.bottom = bottom
    }
}

extension CropPath {
    /// The split windows of frame `index`, or nil when its shot is not split.
    public func split(frame index: Int) -> SplitWindows? {
        index >= 0 && index < splitWindows.count ? splitWindows[index] : nil
    }

    /// One split window's own path (the upper one, or the lower one) as a crop path of the window's size
    /// whose shots are the split shots only, with the faces it followed as its subject's: for
    /// `PathStatistics` and `FramingStatistics`. Nil when no shot is split.
    public func splitWindowPath(lower: Bool) -> CropPath? {
        let shotsSplit = shots.indices.filter { layout(shot: $0) == .split }.map { shots[$0] }
        guard !shotsSplit.isEmpty, splitWindows.count == offsets.count else { return nil }
        let horizontal = axis == .horizontal
        let offsets = splitWindows.map { windows -> Int in
            guard let windows else { return 0 }
            let corner = lower ? windows.bottom : windows.top
            return horizontal ? corner.x : corner.y
        }
        let faces = splitFaces.count == 2 ? splitFaces[lower ? 1 : 0] : []
        return CropPath(axis: axis, sourceWidth: sourceWidth, sourceHeight: sourceHeight, cropWidth: splitSize.width,
                        cropHeight: splitSize.height, offsets: offsets, shots: shotsSplit, subjectTracks: shotsSplit.map { _ in nil },
                        subjectFaces: faces)
    }

    /// The two window rectangles of frame `index` (source pixels), when its shot is split.
    public func splitRects(frame index: Int) -> SplitRects? {
        guard let windows = split(frame: index) else { return nil }
        let width = Double(splitSize.width), height = Double(splitSize.height)
        return SplitRects(top: FrameRect(x: Double(windows.top.x), y: Double(windows.top.y), width: width, height: height),
                          bottom: FrameRect(x: Double(windows.bottom.x), y: Double(windows.bottom.y), width: width, height: height))
    }
}

extension CameraPathPlanner {
    /// The windows of the split shots of `decisions` (each with its `pair`) over `frameTimes`, added to `path`.
    /// Each analysed frame's faces are given to the nearer of the two people (their median positions along
    /// the axis), their own track's face first; each person's path is planned as a followed crop of the
    /// window's size over the split shots only.
    func addSplitWindows(to path: inout CropPath, decisions: [SubjectChoice.Shot], samples: [DetectionSample],
                         tracks: [FaceTrack], frameTimes: [Double], cuts: [Int], window: SplitSize) {
        let splitShots = decisions.filter { $0.layout == .split && $0.pair.count == 2 }
        guard !splitShots.isEmpty else { return }
        let byID = Dictionary(tracks.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var perPerson: [[DetectionSample]] = [[], []]
        var across: [(shot: Range<Int>, positions: [Int])] = []
        let horizontal = axis == .horizontal
        func along(_ box: FrameRect) -> Double { horizontal ? box.midX : box.midY }
        for decision in splitShots {
            let pair = decision.pair.map { byID[$0] }
            let medians = pair.map { track -> Double in
                let values = (track?.points ?? []).map { along($0.detection.box) }.sorted()
                return values.isEmpty ? 0 : values[values.count / 2]
            }
            var acrossValues: [[Double]] = [[], []]
            for sample in samples where decision.frames.contains(sample.frameIndex) {
                for person in 0..<2 {
                    let own = pair[person]?.points.first { $0.frameIndex == sample.frameIndex }?.detection
                    let nearest = sample.faces.filter { face in
                        abs(along(face.box) - medians[person]) < abs(along(face.box) - medians[1 - person])
                    }.min { abs(along($0.box) - medians[person]) < abs(along($1.box) - medians[person]) }
                    guard let face = own ?? nearest else { continue }
                    perPerson[person].append(DetectionSample(frameIndex: sample.frameIndex, faces: [face]))
                    acrossValues[person].append(horizontal ? face.box.midY : face.box.midX)
                }
            }
            across.append((decision.frames, acrossValues.map { values in
                let sorted = values.sorted()
                let centre = sorted.isEmpty ? Double(horizontal ? sourceHeight : sourceWidth) / 2 : sorted[sorted.count / 2]
                let length = Double(horizontal ? window.height : window.width)
                let limit = (horizontal ? sourceHeight - window.height : sourceWidth - window.width) / 2 * 2
                let start = centre - length * (horizontal ? settings.verticalTarget : 0.5)
                return min(max(Int((start / 2).rounded()) * 2, 0), max(0, limit))
            }))
        }
        var windowSettings = settings
        windowSettings.verticalTarget = 0.5
        let planner = CameraPathPlanner(sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                        cropWidth: horizontal ? window.width : sourceWidth,
                                        cropHeight: horizontal ? sourceHeight : window.height, settings: windowSettings)
        let paths = perPerson.map { planner.plan(frameTimes: frameTimes, samples: $0, cuts: cuts).offsets }
        path.splitSize = window
        path.splitFaces = perPerson.map { samples in samples.flatMap { sample in sample.faces.map { Sighting(frameIndex: sample.frameIndex, box: $0.box) } } }
        path.splitWindows = [SplitWindows?](repeating: nil, count: path.offsets.count)
        for (shot, positions) in across {
            for frame in shot {
                let top = horizontal ? WindowCorner(x: paths[0][frame], y: positions[0]) : WindowCorner(x: positions[0], y: paths[0][frame])
                let bottom = horizontal ? WindowCorner(x: paths[1][frame], y: positions[1]) : WindowCorner(x: positions[1], y: paths[1][frame])
                path.splitWindows[frame] = SplitWindows(top: top, bottom: bottom)
            }
        }
    }
}
