import CFFmpeg
import KeepTrack
import KeepTrackTranscode

/// Small display-orientation RGB pictures of the frames a `--preview` contact sheet may show, taken while
/// the analysis decodes (no second decode): the first analysed frame at or after each of `2 × tiles`
/// evenly spaced places, and every likely cut (a large picture difference; at most `maximumCuts`), so
/// that the frame each shot starts with is at hand once the plan knows the shots.
final class PreviewCapture {
    /// Longest side of a captured picture.
    static let longestSide = 400
    static let maximumCuts = 48

    let tiles: Int
    let orientation: DisplayOrientation
    private let grid: [Int]
    private var nextGrid = 0
    private var cuts = 0
    private var scaler: DetectionScaler?
    /// Captured pictures by increasing frame index.
    private(set) var pictures: [(frame: Int, image: RGBImage)] = []
    /// Likely cuts not captured (beyond `maximumCuts`).
    private(set) var uncapturedCuts = 0

    init(tiles: Int, frameCount: Int, orientation: DisplayOrientation) {
        self.tiles = max(1, tiles)
        self.orientation = orientation
        let places = 2 * self.tiles
        grid = (0..<places).map { Int(Double($0) * Double(max(frameCount, 1)) / Double(places)) }
    }

    /// Looks at an analysed frame (presentation index `index`, increasing from call to call).
    func offer(_ frame: UnsafePointer<AVFrame>, index: Int, likelyCut: Bool) throws {
        var wanted = pictures.isEmpty
        while nextGrid < grid.count, grid[nextGrid] <= index {
            nextGrid += 1
            wanted = true
        }
        if likelyCut {
            if cuts < Self.maximumCuts {
                cuts += 1
                wanted = true
            } else {
                uncapturedCuts += 1
            }
        }
        guard wanted else { return }
        if scaler == nil {
            scaler = try DetectionScaler(orientation: orientation, longestSide: Self.longestSide, pixelFormat: frame.pointee.format)
        }
        let picture = scaler!.picture(frame)
        pictures.append((index, RGBImage(packed: picture.bgr, width: picture.width, height: picture.height,
                                         rowStride: picture.rowStride, bgr: true)))
    }
}
