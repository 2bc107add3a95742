import Foundation
import XCTest
import KeepTrack
import KeepTrackFraming
@testable import KeepTrackReframePipeline

/// `reframe --preview FILE.png`: the contact sheet, read back by ffmpeg (an independent PNG decoder).
final class ReframePreviewTests: XCTestCase {
    static let green: [UInt8] = [0, 255, 0]

    /// The PNG as ffprobe describes it and as ffmpeg decodes it to packed RGB.
    static func decoded(_ png: String) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                      "stream=codec_name,width,height", "-of", "csv=p=0", png]))
        XCTAssertEqual(probe.code, 0, probe.out)
        let fields = probe.out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        XCTAssertEqual(fields.first, "png", probe.out)
        let width = try XCTUnwrap(Int(fields.count == 3 ? fields[1] : "")), height = try XCTUnwrap(Int(fields.count == 3 ? fields[2] : ""))
        let rgb = try XCTUnwrap(runToolData("ffmpeg", ["-v", "error", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
        XCTAssertEqual(rgb.count, width * height * 3)
        return (width, height, [UInt8](rgb))
    }

    static func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// Checks the sheet `png` against the crop positions `xs` (one per frame, 202 px wide crops of a 640 px
    /// picture): both edges of the crop window drawn green at every tile where the plan puts them, nothing
    /// green just outside or inside them, the output frame beside it equal to the picture inside the crop, and
    /// the crop's centre line in every column of the plot. Returns the crop positions the tiles show.
    @discardableResult
    func checkSheet(_ png: String, _ summary: [String: Any], xs: [Int], file: StaticString = #filePath, line: UInt = #line) throws -> Set<Int> {
        let preview = try XCTUnwrap(summary["preview"] as? [String: Any], file: file, line: line)
        let sheet = try Self.decoded(png)
        XCTAssertEqual(sheet.width, preview["width"] as? Int, file: file, line: line)
        XCTAssertEqual(sheet.height, preview["height"] as? Int, file: file, line: line)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(sheet.rgb[(y * sheet.width + x) * 3..<(y * sheet.width + x) * 3 + 3]) }
        let tiles = try XCTUnwrap(preview["frames"] as? [[String: Any]], file: file, line: line)
        XCTAssertEqual(tiles.count, 10, file: file, line: line)
        XCTAssertEqual(tiles.first?["frame"] as? Int, 0, "the shot's first frame", file: file, line: line)
        var shown = Set<Int>()
        for tile in tiles {
            let frame = try XCTUnwrap(tile["frame"] as? Int), x0 = try XCTUnwrap(tile["x"] as? Int), y0 = try XCTUnwrap(tile["y"] as? Int)
            let width = try XCTUnwrap(tile["width"] as? Int), height = try XCTUnwrap(tile["height"] as? Int)
            let cropX = xs[frame]
            shown.insert(cropX)
            let left = x0 + Int((Double(cropX) * Double(width) / 640).rounded())
            let right = x0 + Int((Double(cropX + 202) * Double(width) / 640).rounded()) - 1
            for y in [y0 + 5, y0 + height / 2, y0 + height - 5] {
                XCTAssertEqual(pixel(left, y), Self.green, "frame \(frame): crop's left edge at plan x \(cropX)", file: file, line: line)
                XCTAssertEqual(pixel(right, y), Self.green, "frame \(frame): crop's right edge", file: file, line: line)
                XCTAssertNotEqual(pixel(left + 4, y), Self.green, "frame \(frame): a 2-pixel outline", file: file, line: line)
                if left - 3 >= x0 { XCTAssertNotEqual(pixel(left - 3, y), Self.green, "frame \(frame): nothing left of it", file: file, line: line) }
            }
            // The output frame beside it is the picture inside the crop (undarkened: the same pixels).
            let outputX = try XCTUnwrap(tile["outputX"] as? Int)
            for (dx, dy) in [(10, 10), (40, height / 2), (60, height - 12)] {
                XCTAssertEqual(pixel(outputX + dx, y0 + dy), pixel(left + dx, y0 + dy), "frame \(frame) output at +\(dx),+\(dy)",
                               file: file, line: line)
            }
            // Outside the crop the picture is darkened, not blacked out (testsrc2 has no black there).
            let outside = cropX > 40 ? x0 + 5 : right + 10
            XCTAssertNotEqual(pixel(outside, y0 + height / 2), [0, 0, 0], "frame \(frame): darkened picture outside", file: file, line: line)
        }
        let plot = try XCTUnwrap(preview["plot"] as? [String: Any], file: file, line: line)
        let plotX = try XCTUnwrap(plot["x"] as? Int), plotY = try XCTUnwrap(plot["y"] as? Int)
        let plotWidth = try XCTUnwrap(plot["width"] as? Int), plotHeight = try XCTUnwrap(plot["height"] as? Int)
        for x in stride(from: plotX, to: plotX + plotWidth, by: 37) {
            XCTAssertTrue((plotY..<plotY + plotHeight).contains { pixel(x, $0) == Self.green }, "plot column \(x): crop centre",
                          file: file, line: line)
        }
        return shown
    }

    func testPlanOnlyPreviewDrawsThePlannedCropAndEncodesNothing() throws {
        let folder = TemporaryFolder()
        let source = try ReframePlanTests.clip(in: folder)  // 640x360, 60 frames: crop 202x360
        let sheet = folder.path("sheet.png"), planFile = folder.path("plan.json")
        let run = runCLI(["reframe", source, "--plan-only", "--plan-out", planFile, "--preview", sheet, "--json"])
        XCTAssertEqual(run.code, 0, run.error)
        let summary = try Self.json(run.out)
        // No encode: no encoder opened, no frame encoded, no video written.
        XCTAssertEqual(summary["encodedFrames"] as? Int, 0)
        XCTAssertNil(summary["video"])
        XCTAssertNil((summary["timings"] as? [String: Any])?["encode"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted(), ["plan.json", "sheet.png", "source.mp4"])
        var plan = try ReframePlanTests.plan(planFile)
        try checkSheet(sheet, summary, xs: try ReframePlanTests.xs(plan))

        // An edited plan (the crop sweeping left to right) drawn without encoding: the crop is where it says.
        var frames = try XCTUnwrap(plan["frames"] as? [[String: Any]])
        let sweep = frames.indices.map { min(438, $0 * 8) }
        for index in frames.indices { frames[index]["x"] = sweep[index] }
        plan["frames"] = frames
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: folder.path("edited.json")))
        let edited = runCLI(["reframe", source, "--plan-only", "--plan", folder.path("edited.json"), "--preview", folder.path("edited.png"), "--json"])
        XCTAssertEqual(edited.code, 0, edited.error)
        let editedSummary = try Self.json(edited.out)
        XCTAssertEqual(editedSummary["encodedFrames"] as? Int, 0)
        let shown = try checkSheet(folder.path("edited.png"), editedSummary, xs: sweep)
        XCTAssertGreaterThan(shown.count, 5, "the tiles show the crop at many places: \(shown.sorted())")
    }

    func testPreviewBesideAnEncodeRespectsForce() throws {
        let folder = TemporaryFolder()
        let source = try ReframePlanTests.clip(in: folder)
        let sheet = folder.path("sheet.png"), movie = folder.path("out.mp4")
        let run = runCLI(["reframe", source, movie, "--preview", sheet, "--preset", "ultrafast", "--json"])
        XCTAssertEqual(run.code, 0, run.error)
        XCTAssertEqual(try Self.json(run.out)["encodedFrames"] as? Int, 60)
        let first = try Self.decoded(sheet)
        XCTAssertGreaterThan(first.width, 400)
        XCTAssertEqual(try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                         "stream=nb_read_frames", "-of", "csv=p=0", movie])).out
                            .trimmingCharacters(in: .whitespacesAndNewlines), "60")

        // An existing preview is kept without --force, and refused before any work (no movie written).
        let other = folder.path("other.mp4")
        let refused = runCLI(["reframe", source, other, "--preview", sheet, "--preset", "ultrafast"])
        XCTAssertEqual(refused.code, 73, refused.error)
        XCTAssertTrue(refused.error.contains("sheet.png"), refused.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: other))
        XCTAssertEqual(try Self.decoded(sheet).rgb, first.rgb)
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: sheet))
        let forced = runCLI(["reframe", source, "--plan-only", "--preview", sheet, "--force"])
        XCTAssertEqual(forced.code, 0, forced.error)
        XCTAssertEqual(try Self.decoded(sheet).rgb, first.rgb, "the same plan, the same sheet, replacing the old file")
    }

    /// Real footage of two people (`two_people_apart.mp4`): the sheet with detections against the sheet of
    /// the same plan drawn without detecting (`--plan`): they differ only by boxes in the detection colours,
    /// the subject's face in red and the other person's face in yellow, and by pink where the subject's face was
    /// followed between detections (`subject.framesFollowed`): in the plot, and boxed on tiles nearer such a
    /// position than a look.
    func testTheDetectedFacesAreDrawnOnRealFootage() throws {
        let source = try PersonDetectorTests.footage("two_people_apart.mp4")
        let folder = TemporaryFolder()
        let detected = runCLI(["reframe", source, "--plan-only", "--plan-out", folder.path("plan.json"), "--preview", folder.path("a.png"), "--json"])
        XCTAssertEqual(detected.code, 0, detected.error)
        let plain = runCLI(["reframe", source, "--plan-only", "--plan", folder.path("plan.json"), "--preview", folder.path("b.png"), "--json"])
        XCTAssertEqual(plain.code, 0, plain.error)
        XCTAssertEqual(try Self.json(plain.out)["subject"].map { ($0 as? [String: Any])?["analysedFrames"] as? Int }, 0, "nothing detected")
        let a = try Self.decoded(folder.path("a.png")), b = try Self.decoded(folder.path("b.png"))
        XCTAssertEqual(a.width, b.width)
        XCTAssertEqual(a.height, b.height)
        let colours: [[UInt8]] = [[255, 0, 0], [255, 255, 0], [0, 200, 255], [255, 0, 255], [255, 150, 150]]
        var counts = [Int](repeating: 0, count: colours.count), other = 0, pinkOnTiles = 0
        let tiles = try XCTUnwrap(((try Self.json(detected.out)["preview"] as? [String: Any])?["frames"] as? [[String: Any]])?.compactMap { tile -> (x: Int, y: Int, width: Int, height: Int)? in
            guard let x = tile["x"] as? Int, let y = tile["y"] as? Int, let width = tile["width"] as? Int, let height = tile["height"] as? Int else { return nil }
            return (x, y, width, height)
        })
        for index in stride(from: 0, to: min(a.rgb.count, b.rgb.count), by: 3) where a.rgb[index..<index + 3] != b.rgb[index..<index + 3] {
            if let colour = colours.firstIndex(of: Array(a.rgb[index..<index + 3])) { counts[colour] += 1 } else { other += 1 }
            let pixel = index / 3, x = pixel % a.width, y = pixel / a.width
            if Array(a.rgb[index..<index + 3]) == colours[4], tiles.contains(where: { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height }) {
                pinkOnTiles += 1
            }
        }
        XCTAssertEqual(other, 0, "only detection boxes differ")
        XCTAssertGreaterThan(counts[0], 200, "the subject's face in red: \(counts)")
        XCTAssertGreaterThan(counts[1], 100, "the other face in yellow: \(counts)")
        let followed = try XCTUnwrap((try Self.json(detected.out)["subject"] as? [String: Any])?["framesFollowed"] as? Int)
        XCTAssertGreaterThan(followed, 0)
        XCTAssertGreaterThan(counts[4], 0, "the \(followed) followed positions in pink: \(counts)")
        XCTAssertGreaterThan(pinkOnTiles, 100, "a tile nearer a followed position than a look boxes the face there in pink")
    }

    /// A plan edited into three shots shown follow, fit and split: the band above the plot has each shot's
    /// layout colour over the shot's columns (legend: follow blue, fit violet, split pink); the fit tile
    /// outlines the whole picture and the split tile both windows; the plot's band covers the whole length
    /// in the fit shot and both windows' extents in the split one.
    /// A 640x360 clip (60 frames: crop 202x360, split windows 202x178) and its plan edited into three shots
    /// shown follow (0-19), fit (20-39) and split (40-59: windows at (20, 10) and (400, 170)).
    static func threeShotPlan(in folder: TemporaryFolder) throws -> (source: String, plan: String) {
        let source = try ReframePlanTests.clip(in: folder)
        let written = runCLI(["reframe", source, "--plan-only", "--plan-out", folder.path("plan.json")])
        XCTAssertEqual(written.code, 0, written.error)
        var plan = try ReframePlanTests.plan(folder.path("plan.json"))
        plan["cuts"] = [20, 40]
        plan["layouts"] = ["follow", "fit", "split"]
        plan["split"] = ["width": 202, "height": 178]
        var frames = try XCTUnwrap(plan["frames"] as? [[String: Any]])
        for index in 40..<60 {
            frames[index]["top"] = ["x": 20, "y": 10]
            frames[index]["bottom"] = ["x": 400, "y": 170]
        }
        plan["frames"] = frames
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: folder.path("edited.json")))
        return (source, folder.path("edited.json"))
    }

    func testTheLayoutBandShowsEachShotsLayout() throws {
        let folder = TemporaryFolder()
        let (source, edited) = try Self.threeShotPlan(in: folder)
        let sheetFile = folder.path("sheet.png")
        let run = runCLI(["reframe", source, "--plan-only", "--plan", edited, "--preview", sheetFile, "--json"])
        XCTAssertEqual(run.code, 0, run.error)
        let summary = try Self.json(run.out)
        XCTAssertEqual((summary["layout"] as? [String: Any])?["shots"] as? [String], ["follow", "fit", "split"])
        let preview = try XCTUnwrap(summary["preview"] as? [String: Any])
        let sheet = try Self.decoded(sheetFile)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(sheet.rgb[(y * sheet.width + x) * 3..<(y * sheet.width + x) * 3 + 3]) }
        let colours: [String: [UInt8]] = ["follow": [40, 110, 230], "fit": [170, 80, 230], "split": [255, 110, 170]]
        let band = try XCTUnwrap(preview["layoutBand"] as? [String: Int])
        let bandX = try XCTUnwrap(band["x"]), bandY = try XCTUnwrap(band["y"]), bandWidth = try XCTUnwrap(band["width"])
        func column(_ frame: Int) -> Int { bandX + Int((Double(frame) * Double(bandWidth - 1) / 59).rounded()) }
        for (shot, name) in [(0..<20, "follow"), (20..<40, "fit"), (40..<60, "split")] {
            for frame in [shot.lowerBound + 1, (shot.lowerBound + shot.upperBound) / 2, shot.upperBound - 2] {
                for y in [bandY + 1, bandY + band["height"]! - 2] {
                    XCTAssertEqual(pixel(column(frame), y), colours[name], "frame \(frame) of the \(name) shot")
                }
            }
        }
        // The legend under the plot has the three swatches.
        let plot = try XCTUnwrap(preview["plot"] as? [String: Int])
        let legendRow = plot["y"]! + plot["height"]! + 4 + 5
        let legend = Set((0..<sheet.width).map { pixel($0, legendRow) })
        XCTAssertTrue(colours.values.allSatisfy { legend.contains($0) }, "legend swatches")
        // Tiles: fit outlines the whole picture; split both windows (and nothing at the follow crop's place).
        for tile in try XCTUnwrap(preview["frames"] as? [[String: Any]]) {
            let frame = try XCTUnwrap(tile["frame"] as? Int), x0 = try XCTUnwrap(tile["x"] as? Int), y0 = try XCTUnwrap(tile["y"] as? Int)
            let width = try XCTUnwrap(tile["width"] as? Int), height = try XCTUnwrap(tile["height"] as? Int)
            func at(_ x: Int) -> Int { x0 + Int((Double(x) * Double(width) / 640).rounded()) }
            func row(_ y: Int) -> Int { y0 + Int((Double(y) * Double(height) / 360).rounded()) }
            switch frame {
            case 20..<40:
                XCTAssertEqual(pixel(x0, y0 + height / 2), Self.green, "frame \(frame): fit outlines the whole picture")
                XCTAssertEqual(pixel(x0 + width - 1, y0 + height / 2), Self.green, "frame \(frame)")
            case 40..<60:
                XCTAssertEqual(pixel(at(20), row(10 + 89)), Self.green, "frame \(frame): the upper window's left edge")
                XCTAssertEqual(pixel(at(400), row(170 + 89)), Self.green, "frame \(frame): the lower window's left edge")
                XCTAssertNotEqual(pixel(at(20), row(300)), Self.green, "frame \(frame): nothing outlined below the upper window")
            default:
                XCTAssertNotEqual(pixel(x0, y0 + height / 2), Self.green, "frame \(frame): a followed shot outlines only its crop")
            }
        }
        // The plot: in the fit shot the crop's band spans the whole height; in the split shot, both windows.
        let cropBand: [UInt8] = [0, 72, 0]
        let plotX = plot["x"]!, plotY = plot["y"]!, plotWidth = plot["width"]!, plotHeight = plot["height"]!
        func plotColumn(_ frame: Int) -> Int { plotX + Int((Double(frame) * Double(plotWidth - 1) / 59).rounded()) }
        XCTAssertEqual(pixel(plotColumn(30), plotY + 8), cropBand, "fit: the whole picture (under the ticks of the frames shown)")
        XCTAssertEqual(pixel(plotColumn(30), plotY + plotHeight - 3), cropBand)
        XCTAssertNotEqual(pixel(plotColumn(10), plotY + 8), cropBand, "follow: only the crop")
        func plotRow(_ x: Double) -> Int { plotY + Int((x / 640 * Double(plotHeight - 1)).rounded()) }
        XCTAssertEqual(pixel(plotColumn(50) + 1, plotRow(60)), cropBand, "split: the upper window (x 20-222)")
        XCTAssertEqual(pixel(plotColumn(50) + 1, plotRow(560)), cropBand, "split: the lower window (x 400-602)")
        XCTAssertNotEqual(pixel(plotColumn(50) + 1, plotRow(310)), cropBand, "split: nothing between the windows")
    }

    /// The fit and split tiles show what the encoder outputs: each tile's output frame against ffmpeg's decode
    /// of the rendered movie at that frame, scaled to the tile (PSNR), for a plan edited into follow, fit and
    /// split shots; in the fit tiles the rows above and below the sharp picture are the blurred, darkened
    /// background the movie has (not a sharp copy of the picture).
    func testFitAndSplitTilesShowWhatTheEncoderOutputs() throws {
        let folder = TemporaryFolder()
        let (source, edited) = try Self.threeShotPlan(in: folder)  // testsrc2: sharp patterns a blur changes
        let sheetFile = folder.path("sheet.png"), movie = folder.path("out.mp4")
        let run = runCLI(["reframe", source, movie, "--plan", edited, "--preview", sheetFile, "--preset", "ultrafast",
                          "--crf", "12", "--json"])
        XCTAssertEqual(run.code, 0, run.error)
        let preview = try XCTUnwrap(try Self.json(run.out)["preview"] as? [String: Any])
        let sheet = try Self.decoded(sheetFile)
        func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
            let error = zip(a, b).reduce(0.0) { $0 + (Double($1.0) - Double($1.1)) * (Double($1.0) - Double($1.1)) } / Double(max(a.count, 1))
            return error == 0 ? 99 : 10 * log10(255 * 255 / error)
        }
        var checked: Set<String> = []
        for tile in try XCTUnwrap(preview["frames"] as? [[String: Any]]) {
            let frame = try XCTUnwrap(tile["frame"] as? Int), x0 = try XCTUnwrap(tile["outputX"] as? Int), y0 = try XCTUnwrap(tile["y"] as? Int)
            let width = try XCTUnwrap(tile["outputWidth"] as? Int), height = try XCTUnwrap(tile["outputHeight"] as? Int)
            guard frame >= 20 else { continue }
            let layout = frame < 40 ? "fit" : "split"
            // The movie's frame as ffmpeg decodes it, scaled (area average) to the tile's size (even, as rendered).
            let w = width / 2 * 2, h = height / 2 * 2
            let reference = [UInt8](try XCTUnwrap(runToolData("ffmpeg", ["-v", "error", "-i", movie, "-vf", "select=eq(n\\,\(frame)),scale=\(w):\(h):flags=area",
                                                                        "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])))
            XCTAssertEqual(reference.count, w * h * 3)
            func rows(_ range: Range<Int>, of pixels: (Int, Int) -> [UInt8]) -> [UInt8] {
                range.flatMap { y in (0..<w).flatMap { x in pixels(x, y) } }
            }
            func ours(_ x: Int, _ y: Int) -> [UInt8] { let at = ((y0 + y) * sheet.width + x0 + x) * 3; return Array(sheet.rgb[at..<at + 3]) }
            func theirs(_ x: Int, _ y: Int) -> [UInt8] { let at = (y * w + x) * 3; return Array(reference[at..<at + 3]) }
            let whole = psnr(rows(0..<h, of: ours), rows(0..<h, of: theirs))
            print("\(layout) tile of frame \(frame) (\(w)x\(h)) against the movie's frame: PSNR \(whole) dB")
            XCTAssertGreaterThan(whole, layout == "fit" ? 35 : 24, "frame \(frame): the \(layout) tile is not what the encoder output")
            if layout == "fit" {
                // Above the sharp picture: the blurred background (a sharp copy would differ much more).
                let band = FitRenderer.foreground(source: (640, 360), output: (w, h))
                let background = psnr(rows(0..<band.y, of: ours), rows(0..<band.y, of: theirs))
                print("  background rows 0..<\(band.y): PSNR \(background) dB")
                XCTAssertGreaterThan(band.y, 10)
                XCTAssertGreaterThan(background, 35, "frame \(frame): the fit tile's background is not the blurred one")
            }
            checked.insert(layout)
        }
        XCTAssertEqual(checked, ["fit", "split"])
    }

    func testEachShotStartsATileAndTheRestAreSpreadOut() {
        let shots = [0..<50, 50..<120, 120..<200]
        let captured = [0, 10, 20, 52, 60, 100, 120, 150, 190]
        XCTAssertEqual(ContactSheet.chooseFrames(shots: shots, captured: captured, frameCount: 200, count: 5), [0, 52, 120, 150, 190])
        XCTAssertEqual(ContactSheet.chooseFrames(shots: shots, captured: captured, frameCount: 200, count: 2), [0, 120], "more shots than tiles: spread")
        XCTAssertEqual(ContactSheet.chooseFrames(shots: shots, captured: captured, frameCount: 200, count: 20), captured, "never more than captured")
    }

    func testDrawing() throws {
        var image = RGBImage(width: 20, height: 10, fill: RGBImage.Colour(10, 10, 10))
        image.strokeRect(x: 2, y: 1, width: 8, height: 6, ContactSheet.crop, thickness: 2)
        XCTAssertEqual(image.pixel(x: 2, y: 3), ContactSheet.crop)
        XCTAssertEqual(image.pixel(x: 3, y: 3), ContactSheet.crop)
        XCTAssertEqual(image.pixel(x: 4, y: 3), RGBImage.Colour(10, 10, 10))
        XCTAssertEqual(image.pixel(x: 9, y: 6), ContactSheet.crop)
        XCTAssertEqual(image.pixel(x: 10, y: 6), RGBImage.Colour(10, 10, 10))
        image.line(0, 9, 19, 0, ContactSheet.cut)
        XCTAssertEqual(image.pixel(x: 0, y: 9), ContactSheet.cut)
        XCTAssertEqual(image.pixel(x: 19, y: 0), ContactSheet.cut)
        XCTAssertEqual((0..<20).filter { x in (0..<10).contains { image.pixel(x: x, y: $0) == ContactSheet.cut } }.count, 20, "no gaps")
        image.darken(x: 0, y: 0, width: 1, height: 1, factor: 0.5)
        XCTAssertEqual(image.pixel(x: 0, y: 0), RGBImage.Colour(5, 5, 5))
        // libavcodec's PNG, decoded by ffmpeg, is the same picture.
        let folder = TemporaryFolder()
        let file = folder.path("t.png")
        try Data(try image.pngData()).write(to: URL(fileURLWithPath: file))
        let decoded = try Self.decoded(file)
        XCTAssertEqual(decoded.width, 20)
        XCTAssertEqual(decoded.height, 10)
        XCTAssertEqual(decoded.rgb, image.pixels)
    }
}
