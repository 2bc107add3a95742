import Foundation
import XCTest
@testable import KeepTrack
@testable import KeepTrackTranscode

/// `keeptrack transcode --stereo`: both views of a stereo MV-HEVC movie (the two wild spatial videos, one of them
/// muxed with two AAC tracks in an alternate group) packed into one picture. The pictures are checked against
/// FFmpeg 9's own decode of each view (PSNR, on Debian's ffmpeg 5.1 decode of our output), the metadata with
/// ffprobe's side data, every other track with ffprobe's packet hashes, `keeptrack compare` and `lint`.
final class StereoTranscodeTests: XCTestCase {
    /// Encoded as transcode encodes by default (H.264, crf 20, medium): each half is within this of its view.
    static let sameViewPSNR = 38.0

    private func transcode(_ arguments: [String]) -> (code: Int32, out: String, error: String) {
        runCLI(["transcode"] + arguments)
    }

    /// The water movie's MV-HEVC video with two AAC tracks beside it, muxed by FFmpeg 9 (which keeps lhvC, vexu and
    /// hfov): its muxer puts them in alternate group 1, the first enabled, the second not (as an iPhone's two tracks).
    private func waterWithAudio(in folder: TemporaryFolder) throws -> String {
        let ffmpeg9 = try NewerFFmpeg.require()
        let water = try AudioFactsTests.wild(StereoVideoTests.water), path = folder.path("water-audio.mov")
        let made = runTool(ffmpeg9, ["-v", "error", "-nostdin", "-i", water, "-f", "lavfi", "-i", "sine=d=0.3", "-f", "lavfi", "-i", "sine=f=880:d=0.3",
                                     "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "copy", "-c:a", "aac", "-disposition:a:1", "0", path])
        XCTAssertEqual(made?.code, 0)
        let movie = try Movie.open(path: path)
        XCTAssertEqual(movie.tracks.first { $0.kind == .video }?.video?.stereo?.multiviewHEVC, true, "the muxed source is still MV-HEVC")
        XCTAssertEqual(movie.tracks.filter { $0.kind == .audio }.map(\.isEnabled), [true, false])
        return path
    }

    /// View `index` of `source` as FFmpeg 9 decodes it, raw yuv420p in `folder`, with its size.
    private func view(_ index: Int, of source: String, in folder: TemporaryFolder) throws -> (path: String, width: Int, height: Int) {
        let ffmpeg9 = try NewerFFmpeg.require()
        let path = folder.path("view\(index)-\((source as NSString).lastPathComponent).yuv")
        let made = runTool(ffmpeg9, ["-v", "error", "-nostdin", "-i", source, "-filter_complex", "[0:v:vidx:\(index)]null[out]", "-map", "[out]",
                                     "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", path])
        XCTAssertEqual(made?.code, 0)
        let entry = try XCTUnwrap(Movie.open(path: source).tracks.first { $0.kind == .video }?.visualEntry)
        return (path, Int(entry.width), Int(entry.height))
    }

    /// PSNR (dB, over every sample of every frame) of the `crop` (w:h:x:y) of `output`'s picture, decoded by Debian's
    /// ffmpeg 5.1 into raw frames, against a raw view: frame n against frame n, and as many frames in both.
    private func psnr(_ output: String, crop: String, against view: (path: String, width: Int, height: Int)) throws -> Double {
        let ours = try XCTUnwrap(runToolData("ffmpeg", ["-v", "error", "-nostdin", "-i", output, "-vf", "crop=\(crop)", "-fps_mode", "passthrough",
                                                        "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"]), "ffmpeg decodes \(output)")
        let reference = try fileBytes(view.path)
        XCTAssertEqual(ours.count, reference.count, "as many frames of the same size as the view")
        var squares = 0.0
        ours.withUnsafeBytes { a in
            reference.withUnsafeBytes { b in
                for index in 0..<min(a.count, b.count) {
                    let difference = Double(a[index]) - Double(b[index])
                    squares += difference * difference
                }
            }
        }
        let meanSquare = squares / Double(max(1, min(ours.count, reference.count)))
        return meanSquare == 0 ? .infinity : 10 * log10(255 * 255 / meanSquare)
    }

    /// ffprobe's side data of the first video stream, each as its fields.
    private func sideData(_ path: String) throws -> [[String: Any]] {
        let result = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-of", "json", "-show_streams", path]))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let stream = try XCTUnwrap((json["streams"] as? [[String: Any]])?.first)
        return stream["side_data_list"] as? [[String: Any]] ?? []
    }

    private func stereoSideData(_ path: String) throws -> String? {
        try sideData(path).first { $0["side_data_type"] as? String == "Stereo 3D" }?["type"] as? String
    }

    /// A copy of the water movie whose `vexu/proj/prji` says half-equirectangular (`hequ`, a 180° film) instead of
    /// rectilinear: the same four bytes changed, found by a scan that shares nothing with keeptrack's parser.
    private func halfEquirectangularWater(in folder: TemporaryFolder) throws -> String {
        var bytes = [UInt8](try fileBytes(try AudioFactsTests.wild(StereoVideoTests.water)))
        let prji = Array("prji".utf8)
        let at = try XCTUnwrap((0..<bytes.count - 16).first { Array(bytes[$0..<$0 + 4]) == prji })
        XCTAssertEqual(Array(bytes[at + 8..<at + 12]), Array("rect".utf8))
        bytes.replaceSubrange(at + 8..<at + 12, with: Array("hequ".utf8))
        let path = folder.path("water-180.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The left half of the side-by-side output is view 0 and the right half view 1 (PSNR ≥ 38 dB against FFmpeg 9's
    /// decode of each view); the same comparison with the eyes swapped fails (the views differ: the check can tell
    /// them apart); every frame at the source's time, both AAC tracks byte for byte with their flags and group,
    /// ffprobe reads "side by side", compare shows only the video changed, lint is clean.
    func testSideBySideHalvesAreTheTwoViewsAndEveryOtherTrackPassesThrough() throws {
        let folder = TemporaryFolder()
        let sources = [try waterWithAudio(in: folder), try AudioFactsTests.wild(StereoVideoTests.spatial)]
        for source in sources {
            let name = (source as NSString).lastPathComponent
            let output = folder.path("sbs-" + name)
            let result = transcode([source, output, "--stereo", "sbs", "--json"])
            XCTAssertEqual(result.code, 0, result.error)
            try assertOnlyVideoChanged(source, output)
            let left = try view(0, of: source, in: folder), right = try view(1, of: source, in: folder)
            let (width, height) = (left.width, left.height)
            let written = try XCTUnwrap(Movie.open(path: output).tracks.first { $0.kind == .video }?.visualEntry)
            XCTAssertEqual([Int(written.width), Int(written.height)], [2 * width, height], name)
            let leftHalf = "\(width):\(height):0:0", rightHalf = "\(width):\(height):\(width):0"
            let same = (try psnr(output, crop: leftHalf, against: left), try psnr(output, crop: rightHalf, against: right))
            XCTAssertGreaterThanOrEqual(same.0, Self.sameViewPSNR, "\(name): left half vs view 0")
            XCTAssertGreaterThanOrEqual(same.1, Self.sameViewPSNR, "\(name): right half vs view 1")
            let swapped = (try psnr(output, crop: leftHalf, against: right), try psnr(output, crop: rightHalf, against: left))
            XCTAssertLessThan(swapped.0, Self.sameViewPSNR, "\(name): a swapped-eye output must fail the comparison")
            XCTAssertLessThan(swapped.1, Self.sameViewPSNR, "\(name): a swapped-eye output must fail the comparison")
            XCTAssertEqual(try stereoSideData(output), "side by side", name)
            XCTAssertNil(try sideData(output).first { $0["side_data_type"] as? String == "Spherical Mapping" }, "\(name): rectilinear, no sv3d")
            let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
            let dropped = (summary["dropped"] as? [[String: Any]] ?? []).compactMap { $0["item"] as? String }
            XCTAssertTrue(dropped.contains("sample entry box lhvC") && dropped.contains("sample entry box vexu"), "\(name): \(dropped)")
            let entry = try XCTUnwrap(Movie.open(path: output).tracks.first { $0.kind == .video }?.sampleEntries.first)
            XCTAssertEqual(entry.first("hfov")?.payload, try Movie.open(path: source).tracks.first { $0.kind == .video }?.sampleEntries.first?.first("hfov")?.payload,
                           "\(name): the field of view carried as it was")
        }
    }

    /// Over-under puts view 0 on top (ffprobe: "top and bottom"); --half keeps one view's size; left and right are
    /// one view each, flat (no stereo side data), on the small spatial movie.
    func testOverUnderHalfAndOneEyeOutputs() throws {
        let folder = TemporaryFolder()
        let source = try AudioFactsTests.wild(StereoVideoTests.spatial)
        let left = try view(0, of: source, in: folder), right = try view(1, of: source, in: folder)
        let (width, height) = (left.width, left.height)

        let ou = folder.path("ou.mp4")
        XCTAssertEqual(transcode([source, ou, "--stereo", "ou"]).code, 0)
        XCTAssertEqual(try stereoSideData(ou), "top and bottom")
        XCTAssertGreaterThanOrEqual(try psnr(ou, crop: "\(width):\(height):0:0", against: left), Self.sameViewPSNR, "top is view 0")
        XCTAssertGreaterThanOrEqual(try psnr(ou, crop: "\(width):\(height):0:\(height)", against: right), Self.sameViewPSNR, "bottom is view 1")
        try assertOnlyVideoChanged(source, ou)

        let half = folder.path("sbs-half.mp4")
        XCTAssertEqual(transcode([source, half, "--stereo", "sbs", "--half"]).code, 0)
        let halfStream = try XCTUnwrap(FFprobe.probe(half, packets: false).streams.first { $0.codecType == "video" })
        XCTAssertEqual([halfStream.width, halfStream.height], [width, height], "half side by side keeps one view's size")
        XCTAssertEqual(try stereoSideData(half), "side by side")

        for (eye, reference) in [("left", left), ("right", right)] {
            let output = folder.path("\(eye).mp4")
            XCTAssertEqual(transcode([source, output, "--stereo", eye]).code, 0)
            XCTAssertGreaterThanOrEqual(try psnr(output, crop: "\(width):\(height):0:0", against: reference), Self.sameViewPSNR, eye)
            XCTAssertNil(try stereoSideData(output), "\(eye): one eye is flat")
            try assertOnlyVideoChanged(source, output)
        }
        XCTAssertLessThan(try psnr(folder.path("left.mp4"), crop: "\(width):\(height):0:0", against: right), Self.sameViewPSNR, "the eyes are told apart")
    }

    /// A 180° source (vexu's projection half-equirectangular) gets Google's sv3d: ffprobe reads a tiled
    /// equirectangular mapping whose side bounds leave out a quarter of the 360° width each, beside "side by side".
    func testHalfEquirectangularSourceGetsItsProjection() throws {
        let folder = TemporaryFolder()
        let source = try halfEquirectangularWater(in: folder)
        let output = folder.path("sbs-180.mov")
        let result = transcode([source, output, "--stereo", "sbs", "--half", "--preset", "ultrafast"])
        XCTAssertEqual(result.code, 0, result.error)
        let mapping = try XCTUnwrap(try sideData(output).first { $0["side_data_type"] as? String == "Spherical Mapping" })
        XCTAssertEqual(mapping["projection"] as? String, "tiled equirectangular")
        let width = try XCTUnwrap(FFprobe.probe(output, packets: false).streams.first { $0.codecType == "video" }?.width)
        let bounds = ["bound_left", "bound_right", "bound_top", "bound_bottom"].map { (mapping[$0] as? Int) ?? -1 }
        // ffprobe gives the bounds in pixels of the whole sphere's width: the half left out is as wide as the half shown.
        XCTAssertEqual(Double(bounds[0] + bounds[1]), Double(width), accuracy: 2, "\(mapping): 180° of 360° left out")
        XCTAssertEqual(Double(bounds[0]), Double(bounds[1]), accuracy: 2, "\(mapping): centred")
        XCTAssertEqual(bounds[2...], [0, 0])
        XCTAssertEqual(try stereoSideData(output), "side by side")
        try assertOnlyVideoChanged(source, output)
    }

    /// Refusals write nothing: a flat source (65, "one view"), a stereo source whose second view FFmpeg 9 cannot
    /// decode (its lhvC emptied: 65 naming FFmpeg 9's complaint), FFmpeg 9 not found (69, naming make setup), and
    /// --half without a two-eye arrangement (64).
    /// A frame-packed 180° picture whose `st3d` and `sv3d` FFmpeg's own muxer wrote (a remux of our side by side with
    /// `-strict unofficial`): inspect says what it is, a transcode that scales it keeps both boxes (ffprobe's side data
    /// on the output: still side by side, still 180° of the sphere), and reframe refuses to crop across the eyes.
    func testFramePackingAndProjectionOfAnotherMuxerAreShownKeptAndNotCropped() throws {
        let folder = TemporaryFolder()
        let ours = folder.path("sbs-180.mov"), theirs = folder.path("ffmpeg-sbs-180.mp4")
        let packed = transcode([try halfEquirectangularWater(in: folder), ours, "--stereo", "sbs", "--half", "--max-size", "1280x720", "--preset", "ultrafast"])
        XCTAssertEqual(packed.code, 0, packed.error)
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-nostdin", "-i", ours, "-map", "0:v", "-c", "copy", "-strict", "unofficial", theirs])?.code, 0)
        let written = try XCTUnwrap(runToolData("ffprobe", ["-v", "error", "-show_entries", "format_tags=encoder", "-of", "csv=p=0", theirs]))
        XCTAssertTrue(String(decoding: written, as: UTF8.self).hasPrefix("Lavf"), "FFmpeg's muxer wrote the file")
        XCTAssertEqual(try stereoSideData(theirs), "side by side")

        let shown = runCLI(["inspect", theirs])
        XCTAssertTrue(shown.out.contains("side by side, equirectangular 180°×180°"), shown.out)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(runCLI(["inspect", theirs, "--json"]).out.utf8)) as? [String: Any])
        let video = try XCTUnwrap(((json["tracks"] as? [[String: Any]])?.first)?["video"] as? [String: Any])
        let layout = try XCTUnwrap(video["layout"] as? [String: Any])
        XCTAssertEqual(layout["framePacking"] as? String, "side by side")
        XCTAssertEqual(layout["projection"] as? String, "equirectangular")
        XCTAssertEqual(try XCTUnwrap(layout["coverageAcrossDegrees"] as? Double), 180, accuracy: 0.5)
        XCTAssertEqual(try XCTUnwrap(layout["coverageUpDegrees"] as? Double), 180, accuracy: 0.5)

        let smaller = folder.path("smaller.mp4")
        let result = transcode([theirs, smaller, "--video", "hevc", "--max-size", "640x360", "--preset", "ultrafast", "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertFalse(result.out.contains("\"st3d\"") || result.out.contains("\"sv3d\""), "nothing said dropped: \(result.out)")
        XCTAssertEqual(try stereoSideData(smaller), "side by side")
        let mapping = try XCTUnwrap(try sideData(smaller).first { $0["side_data_type"] as? String == "Spherical Mapping" })
        XCTAssertEqual(mapping["projection"] as? String, "tiled equirectangular")
        let width = try XCTUnwrap(FFprobe.probe(smaller, packets: false).streams.first { $0.codecType == "video" }?.width)
        XCTAssertEqual(width, 322)
        let bounds = ["bound_left", "bound_right"].map { (mapping[$0] as? Int) ?? -1 }
        XCTAssertEqual(Double(bounds[0] + bounds[1]), Double(width), accuracy: 2, "\(mapping): still 180° of 360°")

        let repacked = transcode([theirs, folder.path("ou.mp4"), "--stereo", "ou"])
        XCTAssertEqual(repacked.code, 65, repacked.error)
        XCTAssertTrue(repacked.error.contains("already one picture with both eyes in it (st3d: side by side)"), repacked.error)

        let cropped = folder.path("vertical.mp4")
        let reframe = runCLI(["reframe", theirs, cropped, "--size", "180x320"])
        XCTAssertEqual(reframe.code, 65, reframe.error)
        XCTAssertTrue(reframe.error.contains("side by side") && reframe.error.contains("both eyes"), reframe.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cropped))
    }

    /// Spherical Video V1 (an RDF/XML `uuid` box in the `trak`, as older 360° cameras write it), put into a movie
    /// ffmpeg wrote by a byte scan that shares nothing with keeptrack's parser: ffmpeg 5.1 reads it as over-under and
    /// equirectangular; inspect says so, transcode keeps it (ffprobe on the output), reframe refuses to crop it.
    func testSphericalVideoV1IsShownKeptAndNotCropped() throws {
        let folder = TemporaryFolder()
        let plain = folder.path("plain.mp4"), spherical = folder.path("spherical-v1.mp4")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=640x640:r=25:d=1", "-c:v", "libx264",
                                          "-pix_fmt", "yuv420p", plain])?.code, 0)
        var bytes = [UInt8](try fileBytes(plain))
        func u32(_ at: Int) -> Int { Int(bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
        func put(_ value: Int, at: Int) { for index in 0..<4 { bytes[at + index] = UInt8((value >> (24 - 8 * index)) & 0xff) } }
        var moov = 0
        while moov < bytes.count, String(decoding: bytes[moov + 4..<moov + 8], as: UTF8.self) != "moov" { moov += u32(moov) }
        XCTAssertEqual(moov + u32(moov), bytes.count, "ffmpeg writes moov last: nothing after it moves")
        var trak = moov + 8
        while String(decoding: bytes[trak + 4..<trak + 8], as: UTF8.self) != "trak" { trak += u32(trak) }
        let xml = Array(("<?xml version=\"1.0\"?><rdf:SphericalVideo xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" "
            + "xmlns:GSpherical=\"http://ns.google.com/videos/1.0/spherical/\"><GSpherical:Spherical>true</GSpherical:Spherical>"
            + "<GSpherical:Stitched>true</GSpherical:Stitched><GSpherical:StitchingSoftware>test</GSpherical:StitchingSoftware>"
            + "<GSpherical:ProjectionType>equirectangular</GSpherical:ProjectionType><GSpherical:StereoMode>top-bottom</GSpherical:StereoMode>"
            + "</rdf:SphericalVideo>").utf8)
        let uuid: [UInt8] = [0xff, 0xcc, 0x82, 0x63, 0xf8, 0x55, 0x4a, 0x93, 0x88, 0x14, 0x58, 0x7a, 0x02, 0x52, 0x1f, 0xdd]
        let box = [0, 0, 0, 0] + Array("uuid".utf8) + uuid + xml
        let trakSize = u32(trak), moovSize = u32(moov)
        bytes.insert(contentsOf: box, at: trak + trakSize)
        put(box.count, at: trak + trakSize)
        put(trakSize + box.count, at: trak)
        put(moovSize + box.count, at: moov)
        try Data(bytes).write(to: URL(fileURLWithPath: spherical))
        XCTAssertEqual(try stereoSideData(spherical), "top and bottom", "ffmpeg reads the crafted box")

        let shown = runCLI(["inspect", spherical])
        XCTAssertTrue(shown.out.contains("over-under, equirectangular, Spherical Video V1"), shown.out)
        let smaller = folder.path("smaller.mp4")
        let result = transcode([spherical, smaller, "--video", "hevc", "--max-size", "320x320", "--preset", "ultrafast"])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertEqual(try stereoSideData(smaller), "top and bottom")
        XCTAssertEqual(try sideData(smaller).first { $0["side_data_type"] as? String == "Spherical Mapping" }?["projection"] as? String, "equirectangular")
        let reframe = runCLI(["reframe", spherical, folder.path("vertical.mp4"), "--size", "180x320"])
        XCTAssertEqual(reframe.code, 65, reframe.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("vertical.mp4")))
    }

    /// `st3d` modes and `sv3d` projections as Google's spatial media specification gives them; a truncated `sv3d`
    /// leaves its projection out instead of failing.
    func testPictureLayoutReadsEveryModeAndProjection() {
        func entry(_ boxes: [Box]) -> Box { Box(type: "avc1", prefix: [UInt8](repeating: 0, count: 78), children: boxes) }
        func flat(_ type: FourCC, _ payload: [UInt8]) -> [UInt8] { (try? Box(type: type, bytes: payload).serialized()) ?? [] }
        let modes: [UInt8: String?] = [0: nil, 1: "over-under", 2: "side by side", 3: "custom stereo", 4: "side by side, right eye first"]
        for (mode, words) in modes {
            XCTAssertEqual(PictureLayout(sampleEntry: entry([Box(type: "st3d", bytes: [0, 0, 0, 0, mode])]))?.framePacking, words)
        }
        let pose = flat("prhd", [UInt8](repeating: 0, count: 16))
        let cube = flat("cbmp", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16])
        let cubeMap = PictureLayout(sampleEntry: entry([Box(type: "sv3d", bytes: flat("proj", pose + cube))]))
        XCTAssertEqual(cubeMap?.projection, "cube map")
        XCTAssertEqual(cubeMap?.cubeMapPadding, 16)
        XCTAssertEqual(cubeMap?.framePacking, nil)
        let sphere = PictureLayout(sampleEntry: entry([Box(type: "sv3d", bytes: flat("proj", pose + flat("equi", [UInt8](repeating: 0, count: 20))))]))
        XCTAssertEqual(sphere?.summary, "equirectangular 360°×180°")
        let truncated = PictureLayout(sampleEntry: entry([Box(type: "sv3d", bytes: Array(flat("proj", pose + cube).dropLast(6)))]))
        XCTAssertNotNil(truncated)
        XCTAssertNil(truncated?.projection)
        XCTAssertNil(PictureLayout(sampleEntry: entry([])))
    }

    func testRefusalsNameTheReasonAndWriteNothing() throws {
        let folder = TemporaryFolder()
        let flat = try AudioFactsTests.wild("androidx-media/h265_with_metadata_track.mp4")
        let flatOut = folder.path("flat.mp4")
        let refused = transcode([flat, flatOut, "--stereo", "sbs"])
        XCTAssertEqual(refused.code, 65)
        XCTAssertTrue(refused.error.contains("has one view"), refused.error)

        var bytes = [UInt8](try fileBytes(try AudioFactsTests.wild(StereoVideoTests.water)))
        let lhvC = Array("lhvC".utf8)
        let at = try XCTUnwrap((4..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == lhvC })
        let size = Int(bytes[at - 4]) << 24 | Int(bytes[at - 3]) << 16 | Int(bytes[at - 2]) << 8 | Int(bytes[at - 1])
        bytes.replaceSubrange(at + 4..<at - 4 + size, with: [UInt8](repeating: 0, count: size - 8))
        let broken = folder.path("no-second-layer.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: broken))
        let brokenOut = folder.path("broken-sbs.mov")
        let undecodable = transcode([broken, brokenOut, "--stereo", "sbs", "--preset", "ultrafast"])
        XCTAssertEqual(undecodable.code, 65, undecodable.error)
        XCTAssertTrue(undecodable.error.contains("the two views cannot be decoded") && undecodable.error.contains("FFmpeg 9"), undecodable.error)

        let water = try AudioFactsTests.wild(StereoVideoTests.water)
        setenv(MultiviewFFmpeg.environmentKey, folder.path("no-ffmpeg9-here"), 1)
        let missing = transcode([water, folder.path("missing.mov"), "--stereo", "sbs"])
        unsetenv(MultiviewFFmpeg.environmentKey)
        XCTAssertEqual(missing.code, 69)
        XCTAssertTrue(missing.error.contains("make setup"), missing.error)

        XCTAssertEqual(transcode([water, folder.path("usage.mov"), "--stereo", "left", "--half"]).code, 64)
        XCTAssertEqual(transcode([water, folder.path("usage.mov"), "--stereo", "sbs", "--flatten-stereo"]).code, 64)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        XCTAssertEqual(left, ["no-second-layer.mov"], "nothing written, no temporary left behind")
    }
}
