import Foundation
import KeepTrack
import KeepTrackFraming
import KeepTrackTranscode

/// The `--preview` picture: source frames across the clip (each shot's first frame, then evenly spaced
/// ones) with the crop window, the faces and people found, each beside the output frame it becomes, and
/// under them a plot of the crop's position and the subject's over the whole clip with the cuts marked.
///
/// Colours: crop window green, outside it darkened; the subject's face red (pink where it was followed between
/// looks, when that is nearer the frame than a look); other faces yellow; people
/// (bodies) cyan; where the picture moved (the fallback subject) magenta. In the plot (time runs left to
/// right, position along the crop's axis top to bottom): the crop's extent dark green and its centre
/// green, subject red, other faces yellow, people cyan, cuts orange, the frames shown above white ticks.
/// A band above the plot says each shot's layout (follow blue, fit violet, split pink; a legend under the
/// plot). Tiles of fit shots outline the whole picture and show it fitted into the output over its blurred,
/// darkened centre; tiles of split shots outline both windows and show them stacked: both drawn by the
/// renderers the encoder uses (`PreviewRendering`), at the tile's size.
struct ContactSheet {
    static let crop = RGBImage.Colour(0, 255, 0)
    static let cropBand = RGBImage.Colour(0, 72, 0)
    static let subject = RGBImage.Colour(255, 0, 0)
    static let face = RGBImage.Colour(255, 255, 0)
    static let person = RGBImage.Colour(0, 200, 255)
    static let motion = RGBImage.Colour(255, 0, 255)
    /// The subject found by the colours of its clothes between detections (`CropPath.colourSightings`), or its
    /// face followed on the luma grid (`CropPath.followedSightings`).
    static let colourSighting = RGBImage.Colour(255, 150, 150)
    static let cut = RGBImage.Colour(255, 140, 0)
    static let background = RGBImage.Colour(24, 24, 24)
    static let plotBackground = RGBImage.Colour(8, 8, 8)
    static let label = RGBImage.Colour(230, 230, 230)

    /// The layout band's colour for each layout.
    static func colour(for layout: ShotLayout) -> RGBImage.Colour {
        switch layout {
        case .follow: return RGBImage.Colour(40, 110, 230)
        case .fit: return RGBImage.Colour(170, 80, 230)
        case .split: return RGBImage.Colour(255, 110, 170)
        }
    }

    /// Frames a sheet shows.
    static let tiles = 10
    static let margin = 8, gap = 4, labelHeight = 14, plotHeight = 180, widestSheet = 1400, bandHeight = 10

    /// Where one frame is in the sheet: its source picture at (`x`, `y`), `width`×`height` pixels for the
    /// whole display picture, and the output frame beside it at `outputX`. `frame` numbers the shown frames
    /// (as the plan file does) and `time` is when a player shows it (movie time, seconds).
    struct Tile: Equatable {
        var frame: Int
        var time: Double
        var x: Int, y: Int, width: Int, height: Int
        var outputX: Int, outputWidth: Int, outputHeight: Int
    }

    var image: RGBImage
    var tiles: [Tile] = []
    var plot: (x: Int, y: Int, width: Int, height: Int)
    /// The layout band above the plot (one colour per shot's layout), same columns as the plot.
    var band: (x: Int, y: Int, width: Int, height: Int)

    /// Up to `count` of the `captured` frames: the first captured frame of each shot (evenly chosen among
    /// them when there are more shots), then the captured frame nearest to each of `count` evenly spaced
    /// places no chosen frame is near yet, then the captured frames farthest from those chosen.
    static func chooseFrames(shots: [Range<Int>], captured: [Int], frameCount: Int, count: Int) -> [Int] {
        var starts: [Int] = []
        for shot in shots {
            if let first = captured.first(where: { shot.contains($0) }), !starts.contains(first) { starts.append(first) }
        }
        if starts.count > count {
            starts = count <= 1 ? [starts[0]]
                : (0..<count).map { starts[Int((Double($0) * Double(starts.count - 1) / Double(count - 1)).rounded())] }
        }
        var chosen = starts
        var remaining = captured.filter { !chosen.contains($0) }
        func distance(_ frame: Double) -> Double { chosen.map { abs(Double($0) - frame) }.min() ?? .infinity }
        let spacing = Double(max(frameCount, 1)) / Double(max(count, 1))
        for place in (0..<count).map({ (Double($0) + 0.5) * spacing }) where chosen.count < count && !remaining.isEmpty {
            guard distance(place) > spacing / 2 else { continue }
            let nearest = remaining.indices.min { abs(Double(remaining[$0]) - place) < abs(Double(remaining[$1]) - place) }!
            chosen.append(remaining.remove(at: nearest))
        }
        while chosen.count < count, !remaining.isEmpty {
            let farthest = remaining.indices.max { distance(Double(remaining[$0])) < distance(Double(remaining[$1])) }!
            chosen.append(remaining.remove(at: farthest))
        }
        return chosen.sorted()
    }

    /// The detections nearest to `frame` within its shot and `window` seconds: the last detection at or
    /// before it, else the first after it.
    static func sample(near frame: Int, in shot: Range<Int>, samples: [DetectionSample], frameTimes: [Double], window: Double = 1) -> DetectionSample? {
        let inShot = samples.filter { shot.contains($0.frameIndex) }
        let found = inShot.last(where: { $0.frameIndex <= frame }) ?? inShot.first(where: { $0.frameIndex > frame })
        guard let found, abs(frameTimes[found.frameIndex] - frameTimes[frame]) <= window else { return nil }
        return found
    }

    init(path: CropPath, samples: [DetectionSample], frameTimes: [Double], captured: [(frame: Int, image: RGBImage)], count: Int = 10) throws {
        let frames = Self.chooseFrames(shots: path.shots, captured: captured.map(\.frame), frameCount: path.offsets.count, count: count)
        let pictures = Dictionary(captured.map { ($0.frame, $0.image) }, uniquingKeysWith: { first, _ in first })
        let pictureWidth = captured.first?.image.width ?? 0, pictureHeight = captured.first?.image.height ?? 0
        let scaleX = Double(pictureWidth) / Double(max(path.sourceWidth, 1))
        let scaleY = Double(pictureHeight) / Double(max(path.sourceHeight, 1))
        let outputWidth = Int((Double(path.cropWidth) * scaleX).rounded())
        let outputHeight = Int((Double(path.cropHeight) * scaleY).rounded())
        let tileWidth = pictureWidth + Self.gap + outputWidth
        let columns = max(1, min(4, frames.count, (Self.widestSheet - Self.margin) / max(tileWidth + Self.margin, 1)))
        let rows = (frames.count + columns - 1) / columns
        let rowHeight = Self.labelHeight + pictureHeight + Self.margin
        let sheetWidth = max(Self.margin + columns * (tileWidth + Self.margin), 320)
        let sheetHeight = Self.margin + rows * rowHeight + Self.bandHeight + Self.gap + Self.plotHeight + Self.gap + Self.labelHeight + Self.margin
        image = RGBImage(width: sheetWidth, height: sheetHeight, fill: Self.background)
        band = (Self.margin, Self.margin + rows * rowHeight, sheetWidth - 2 * Self.margin, Self.bandHeight)
        plot = (Self.margin, band.y + Self.bandHeight + Self.gap, sheetWidth - 2 * Self.margin, Self.plotHeight)

        for (position, frame) in frames.enumerated() {
            guard let picture = pictures[frame] else { continue }
            let x = Self.margin + (position % columns) * (tileWidth + Self.margin)
            let y = Self.margin + (position / columns) * rowHeight + Self.labelHeight
            let time = frameTimes.indices.contains(frame) ? frameTimes[frame] : 0
            let tile = Tile(frame: frame, time: time, x: x, y: y, width: pictureWidth, height: pictureHeight,
                            outputX: x + pictureWidth + Self.gap, outputWidth: outputWidth, outputHeight: outputHeight)
            let shot = path.shots.first(where: { $0.contains(frame) }) ?? frame..<(frame + 1)
            let detections = Self.sample(near: frame, in: shot, samples: samples, frameTimes: frameTimes)
            // The subject where it was nearest this frame (within its shot and 1 s): a look's face, or where its face
            // was followed between looks when that is nearer (drawn pink: the look's box may lie beside it).
            func nearest(_ sightings: [Sighting]) -> Sighting? {
                sightings.filter { shot.contains($0.frameIndex) && abs(frameTimes[$0.frameIndex] - frameTimes[frame]) <= 1 }
                    .min { abs($0.frameIndex - frame) < abs($1.frameIndex - frame) }
            }
            let seen = nearest(path.subjectFaces), followed = nearest(path.followedSightings)
            let followedNearer = followed.map { followed in seen.map { abs(followed.frameIndex - frame) < abs($0.frameIndex - frame) } ?? true } ?? false
            let subjectFace = followedNearer ? followed?.box : seen?.box
            let shown: Shown
            switch path.layout(frame: frame) {
            case .fit: shown = .fit(aspect: (path.cropWidth, path.cropHeight))
            case .split:
                if let windows = path.splitRects(frame: frame) { shown = .split(windows.top, windows.bottom) } else { shown = .crop(path.rect(frame: frame)) }
            case .follow: shown = .crop(path.rect(frame: frame))
            }
            try drawTile(tile, picture: picture, shown: shown, detections: detections, subject: subjectFace, subjectFollowed: followedNearer,
                         scaleX: scaleX, scaleY: scaleY)
            Self.write(String(format: "%d  %.2fs", frame, time), into: &image, x: x, y: y - Self.labelHeight + 2)
            tiles.append(tile)
        }
        drawLayoutBand(path: path)
        drawPlot(path: path, samples: samples, shownFrames: tiles.map(\.frame))
        drawLegend()
    }

    /// What a tile's output frame shows: a crop, the whole picture fitted into the output's aspect, or two windows stacked.
    enum Shown {
        case crop(FrameRect)
        case fit(aspect: (width: Int, height: Int))
        case split(FrameRect, FrameRect)
    }

    private mutating func drawTile(_ tile: Tile, picture: RGBImage, shown: Shown, detections: DetectionSample?, subject: FrameRect?, subjectFollowed: Bool = false,
                                   scaleX: Double, scaleY: Double) throws {
        func scaled(_ rect: FrameRect) -> (x: Int, y: Int, width: Int, height: Int) {
            let left = Int((rect.x * scaleX).rounded()), top = Int((rect.y * scaleY).rounded())
            let right = Int(((rect.x + rect.width) * scaleX).rounded()), bottom = Int(((rect.y + rect.height) * scaleY).rounded())
            return (left, top, max(1, right - left), max(1, bottom - top))
        }
        // The output frame beside the picture, framed in grey.
        image.strokeRect(x: tile.outputX - 1, y: tile.y - 1, width: tile.outputWidth + 2, height: tile.outputHeight + 2,
                         RGBImage.Colour(96, 96, 96), thickness: 1)
        var source = picture
        var windows: [(x: Int, y: Int, width: Int, height: Int)] = []
        let output = (x: tile.outputX, y: tile.y, width: tile.outputWidth, height: tile.outputHeight)
        // Fit and split tiles are rendered at the crop's size (the output's aspect; the encoder's blur and
        // divider at that size) and shown smaller.
        let renderSize = SplitSize(width: Int((Double(tile.outputWidth) / scaleX).rounded()), height: Int((Double(tile.outputHeight) / scaleY).rounded()))
        switch shown {
        case .crop(let crop):
            // The crop of the same picture; the picture darkened outside it.
            let window = scaled(crop)
            windows = [window]
            image.draw(picture, fromX: window.x, fromY: window.y, width: tile.outputWidth, height: tile.outputHeight, atX: tile.outputX, y: tile.y)
            source.darken(x: 0, y: 0, width: window.x, height: picture.height, factor: 0.45)
            source.darken(x: window.x + window.width, y: 0, width: picture.width, height: picture.height, factor: 0.45)
            source.darken(x: window.x, y: 0, width: window.width, height: window.y, factor: 0.45)
            source.darken(x: window.x, y: window.y + window.height, width: window.width, height: picture.height, factor: 0.45)
        case .fit:
            // The whole picture is shown: as the fit renderer draws it (sharp across the middle of the output,
            // over a blurred, darkened copy of its centre).
            windows = [(0, 0, picture.width, picture.height)]
            image.fillRect(x: output.x, y: output.y, width: output.width, height: output.height, RGBImage.Colour(0, 0, 0))
            image.draw(try PreviewRendering.fit(picture, output: renderSize, width: output.width, height: output.height), atX: output.x, y: output.y)
        case .split(let top, let bottom):
            // Both windows, as the split renderer stacks them in the output's halves with a black divider; the
            // picture darkened outside them.
            windows = [scaled(top), scaled(bottom)]
            source.darken(x: 0, y: 0, width: picture.width, height: picture.height, factor: 0.45)
            for window in windows {
                source.draw(picture, fromX: window.x, fromY: window.y, width: window.width, height: window.height, atX: window.x, y: window.y)
            }
            func inPicture(_ rect: FrameRect) -> FrameRect {
                FrameRect(x: rect.x * scaleX, y: rect.y * scaleY, width: rect.width * scaleX, height: rect.height * scaleY)
            }
            image.fillRect(x: output.x, y: output.y, width: output.width, height: output.height, RGBImage.Colour(0, 0, 0))
            image.draw(try PreviewRendering.split(picture, crop: SplitSize(width: tile.outputWidth, height: tile.outputHeight),
                                                  top: inPicture(top), bottom: inPicture(bottom), output: renderSize,
                                                  width: output.width, height: output.height),
                       atX: output.x, y: output.y)
        }
        if let detections {
            for person in detections.people {
                let box = scaled(person.box)
                source.strokeRect(x: box.x, y: box.y, width: box.width, height: box.height, Self.person, thickness: 1)
            }
            if detections.faces.isEmpty, detections.people.isEmpty, let moved = detections.motion {
                let box = scaled(moved)
                source.strokeRect(x: box.x, y: box.y, width: box.width, height: box.height, Self.motion, thickness: 1)
            }
            for face in detections.faces {
                let box = scaled(face.box)
                source.strokeRect(x: box.x, y: box.y, width: box.width, height: box.height, Self.face, thickness: 1)
            }
        }
        if let subject {
            let box = scaled(subject)
            source.strokeRect(x: box.x, y: box.y, width: box.width, height: box.height, subjectFollowed ? Self.colourSighting : Self.subject, thickness: 2)
        }
        for window in windows {
            source.strokeRect(x: window.x, y: window.y, width: window.width, height: window.height, Self.crop, thickness: 2)
        }
        image.draw(source, atX: tile.x, y: tile.y)
    }

    /// One column per plot column, in the colour of the layout of the frame under it.
    private mutating func drawLayoutBand(path: CropPath) {
        let frameCount = path.offsets.count
        guard frameCount > 0, band.width > 1 else { return }
        for x in 0..<band.width {
            let frame = min(frameCount - 1, Int((Double(x) * Double(frameCount - 1) / Double(band.width - 1)).rounded()))
            image.fillRect(x: band.x + x, y: band.y, width: 1, height: band.height, Self.colour(for: path.layout(frame: frame)))
        }
    }

    /// Under the plot: a swatch and the name of each layout.
    private mutating func drawLegend() {
        var x = plot.x
        let y = plot.y + plot.height + Self.gap
        for layout in ShotLayout.allCases {
            image.fillRect(x: x, y: y, width: 10, height: 10, Self.colour(for: layout))
            Self.write(layout.rawValue, into: &image, x: x + 14, y: y)
            x += 14 + 8 * layout.rawValue.count + 16
        }
    }

    private mutating func drawPlot(path: CropPath, samples: [DetectionSample], shownFrames: [Int]) {
        let (plotX, plotY, width, height) = plot
        image.fillRect(x: plotX, y: plotY, width: width, height: height, Self.plotBackground)
        let frameCount = path.offsets.count
        guard frameCount > 0, width > 1, height > 1 else { return }
        let horizontal = path.axis == .horizontal
        let length = Double(horizontal ? path.sourceWidth : path.sourceHeight)
        let extent = Double(horizontal ? path.cropWidth : path.cropHeight)
        func column(_ frame: Int) -> Int { plotX + Int((Double(frame) * Double(width - 1) / Double(max(1, frameCount - 1))).rounded()) }
        func row(_ position: Double) -> Int { plotY + Int((max(0, min(length, position)) / max(length, 1) * Double(height - 1)).rounded()) }
        func centre(_ box: FrameRect) -> Double { horizontal ? box.midX : box.midY }
        // Each run of followed columns gets its own centre line; a fit column shows the whole length, a split
        // column both windows' extents and centres.
        var centreLines: [[(x: Int, y: Int)]] = [[]]
        var windowCentres: [(x: Int, y: Int)] = []
        for x in 0..<width {
            let frame = min(frameCount - 1, Int((Double(x) * Double(frameCount - 1) / Double(width - 1)).rounded()))
            var extents: [(start: Double, length: Double)] = [(Double(path.offsets[frame]), extent)]
            switch path.layout(frame: frame) {
            case .fit: extents = [(0, length)]
            case .split:
                if let windows = path.splitRects(frame: frame) { extents = [windows.top, windows.bottom].map { ($0.span(along: path.axis).start, $0.span(along: path.axis).length) } }
            case .follow: break
            }
            for (start, size) in extents {
                let top = row(start), bottom = row(start + size)
                image.fillRect(x: plotX + x, y: top, width: 1, height: bottom - top + 1, Self.cropBand)
            }
            if path.layout(frame: frame) == .follow {
                centreLines[centreLines.count - 1].append((plotX + x, row(extents[0].start + extent / 2)))
            } else {
                if !(centreLines.last?.isEmpty ?? true) { centreLines.append([]) }
                if path.layout(frame: frame) == .split, extents.count == 2 {
                    windowCentres += extents.map { (plotX + x, row($0.start + $0.length / 2)) }
                }
            }
        }
        for shot in path.shots.dropFirst() {
            image.fillRect(x: column(shot.lowerBound), y: plotY, width: 1, height: height, Self.cut)
        }
        for frame in shownFrames { image.fillRect(x: column(frame), y: plotY, width: 1, height: 5, Self.label) }
        for sample in samples {
            for face in sample.faces { image.fillRect(x: column(sample.frameIndex), y: row(centre(face.box)), width: 2, height: 2, Self.face) }
            for person in sample.people {
                image.fillRect(x: column(sample.frameIndex), y: row(centre(person.box)), width: 2, height: 2, Self.person)
            }
        }
        for line in centreLines where !line.isEmpty { image.polyline(line, Self.crop) }
        for point in windowCentres { image.set(x: point.x, y: point.y, Self.crop) }
        for sighting in path.colourSightings + path.followedSightings {
            image.fillRect(x: column(sighting.frameIndex), y: row(centre(sighting.box)), width: 2, height: 2, Self.colourSighting)
        }
        for face in path.subjectFaces {
            image.fillRect(x: column(face.frameIndex) - 1, y: row(centre(face.box)) - 1, width: 3, height: 3, Self.subject)
        }
    }

    /// The sheet's geometry for `--json`: where each frame is, and the plot.
    var json: JSONValue {
        .object([
            ("width", .int(Int64(image.width))), ("height", .int(Int64(image.height))),
            ("frames", .array(tiles.map { tile in
                .object([("frame", .int(Int64(tile.frame))), ("time", .double((tile.time * 1_000_000).rounded() / 1_000_000)),
                         ("x", .int(Int64(tile.x))), ("y", .int(Int64(tile.y))),
                         ("width", .int(Int64(tile.width))), ("height", .int(Int64(tile.height))),
                         ("outputX", .int(Int64(tile.outputX))), ("outputWidth", .int(Int64(tile.outputWidth))),
                         ("outputHeight", .int(Int64(tile.outputHeight)))])
            })),
            ("plot", .object([("x", .int(Int64(plot.x))), ("y", .int(Int64(plot.y))),
                              ("width", .int(Int64(plot.width))), ("height", .int(Int64(plot.height)))])),
            ("layoutBand", .object([("x", .int(Int64(band.x))), ("y", .int(Int64(band.y))),
                                    ("width", .int(Int64(band.width))), ("height", .int(Int64(band.height)))])),
        ])
    }

    func write(to destination: String, overwrite: Bool, inputs: [String]) throws {
        let bytes = try image.pngData()
        try OutputFile.write(to: destination, overwrite: overwrite, inputs: inputs) { file in try file.write(bytes) }
    }

    // MARK: labels

    /// 3×5 glyphs (rows top to bottom, 3 bits each, high bit left) for the labels: digits, '.', 's', and the
    /// letters of the layouts' names.
    static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 7, 1, 7], "4": [5, 5, 7, 1, 1],
        "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 1, 1, 1], "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7],
        ".": [0, 0, 0, 0, 2], "s": [0, 3, 6, 3, 6],
        // The layouts' names in the legend.
        "f": [3, 4, 6, 4, 4], "o": [0, 7, 5, 5, 7], "l": [6, 2, 2, 2, 7], "w": [0, 5, 5, 7, 5], "i": [2, 0, 2, 2, 2],
        "t": [2, 7, 2, 2, 3], "p": [0, 7, 5, 7, 4],
    ]

    /// `text` in 2× glyphs (8 pixels a character) with its top-left corner at (`x`, `y`).
    static func write(_ text: String, into image: inout RGBImage, x: Int, y: Int) {
        var left = x
        for character in text {
            if let rows = glyphs[character] {
                for (row, bits) in rows.enumerated() {
                    for bit in 0..<3 where bits & (4 >> bit) != 0 {
                        image.fillRect(x: left + bit * 2, y: y + row * 2, width: 2, height: 2, label)
                    }
                }
            }
            left += 8
        }
    }
}
