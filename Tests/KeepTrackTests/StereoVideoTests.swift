import Foundation
import XCTest
@testable import KeepTrack

/// Spatial (stereoscopic) video, as iPhone 15 Pro and later and Vision Pro record it: MV-HEVC with both
/// eyes in one track (`hvcC` + `lhvC`) and the camera facts in `vexu` and `hfov`. Two such files from other
/// projects' test data (`wild/`): inspect must say what they are, and reframe, which decodes only the
/// base view, must say that its output is flat.
final class StereoVideoTests: XCTestCase {
    static let spatial = "eyevinn-mp4ff/stereo_spatial.mp4"
    static let water = "androidx-media/water_180_mvhevc_5frames.mov"

    /// The payload of the first box of `type` found by scanning the file's bytes for its four-character
    /// code after a plausible 32-bit size: a reader that shares nothing with keeptrack's box layer.
    static func scannedPayload(_ type: String, in bytes: [UInt8]) -> [UInt8]? {
        let code = Array(type.utf8)
        guard bytes.count >= 8 else { return nil }
        for start in 4..<(bytes.count - 4) where Array(bytes[start..<start + 4]) == code {
            let size = bytes[(start - 4)..<start].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, start - 4 + size <= bytes.count else { continue }
            return Array(bytes[(start + 4)..<(start - 4 + size)])
        }
        return nil
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int { bytes.reduce(0) { $0 << 8 | Int($1) } }

    func testInspectSaysBothSpatialFilesAreStereoWithTheirCameraFacts() throws {
        for name in [Self.spatial, Self.water] {
            let path = try AudioFactsTests.wild(name)
            let bytes = [UInt8](try fileBytes(path))
            // What the bytes say, read without keeptrack: stri's view bits, blin's micrometres, hfov's millidegrees.
            let stri = try XCTUnwrap(Self.scannedPayload("stri", in: bytes), name)
            let blin = try XCTUnwrap(Self.scannedPayload("blin", in: bytes), name)
            let hfov = try XCTUnwrap(Self.scannedPayload("hfov", in: bytes), name)
            XCTAssertNotNil(Self.scannedPayload("lhvC", in: bytes), name)
            let views = stri[4]
            let baseline = Double(Self.bigEndian(blin[4..<8])) / 1000, fieldOfView = Double(Self.bigEndian(hfov[0..<4])) / 1000
            XCTAssertEqual(views, 3, "\(name): both eyes")

            let movie = try Movie.open(path: path)
            let stereo = try XCTUnwrap(movie.tracks.first?.video?.stereo, name)
            XCTAssertTrue(stereo.hasLeftEye && stereo.hasRightEye, name)
            XCTAssertFalse(stereo.eyeViewsReversed, name)
            XCTAssertTrue(stereo.multiviewHEVC, name)
            XCTAssertEqual(stereo.baselineMillimetres, baseline, name)
            XCTAssertEqual(stereo.fieldOfViewDegrees, fieldOfView, name)
            XCTAssertNil(stereo.projection, "\(name): rectilinear")

            let text = runCLI(["inspect", path])
            XCTAssertEqual(text.code, 0, text.error)
            XCTAssertTrue(text.out.contains("stereo MV-HEVC (left+right eyes"), text.out)
            XCTAssertTrue(text.out.contains(String(format: "%g mm baseline", baseline)), text.out)
            let json = runCLI(["inspect", "--json", path])
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
            let video = try XCTUnwrap(((object["tracks"] as? [[String: Any]])?.first?["video"]) as? [String: Any])
            let reported = try XCTUnwrap(video["stereo"] as? [String: Any], json.out)
            XCTAssertEqual(reported["leftEye"] as? Bool, true)
            XCTAssertEqual(reported["rightEye"] as? Bool, true)
            XCTAssertEqual(reported["multiviewHEVC"] as? Bool, true)
            XCTAssertEqual(reported["fieldOfViewDegrees"] as? Double, fieldOfView)
        }
        // Only stereo_spatial.mp4 names a hero eye (hero = 1: left).
        let spatialBytes = [UInt8](try fileBytes(try AudioFactsTests.wild(Self.spatial)))
        XCTAssertEqual(Self.scannedPayload("hero", in: spatialBytes)?[4], 1)
        XCTAssertEqual(try Movie.open(path: try AudioFactsTests.wild(Self.spatial)).tracks.first?.video?.stereo?.heroEye, "left")
        XCTAssertNil(try Movie.open(path: try AudioFactsTests.wild(Self.water)).tracks.first?.video?.stereo?.heroEye)
    }

    func testFlatVideoIsNotStereo() throws {
        for path in [try RealFixtures.require(RealFixtures.iphone), try AudioFactsTests.wild("androidx-media/h265_with_metadata_track.mp4"),
                     try AudioFactsTests.wild("eyevinn-mp4ff/prog_8s.mp4")] {
            let movie = try Movie.open(path: path)
            let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video }?.video, path)
            XCTAssertNil(video.stereo, path)
        }
    }

    /// reframe decodes MV-HEVC's base view only (FFmpeg 5.1): the output is one flat H.264 view, and the
    /// summary says so. ffprobe confirms what the output holds.
    func testReframeOfSpatialVideoSaysItsOutputIsFlat() throws {
        let folder = TemporaryFolder()
        let output = folder.path("vertical.mp4")
        let result = runCLI(["reframe", try AudioFactsTests.wild(Self.water), output, "--preset", "ultrafast", "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.error.contains("only its base view (one eye) is decoded and reframed; the output is 2D"), result.error)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        XCTAssertTrue((summary["notes"] as? [String] ?? []).contains { $0.contains("stereo MV-HEVC") }, result.out)
        let probed = try FFprobe.probe(output)
        XCTAssertEqual(probed.streams.count, 1)
        XCTAssertEqual(probed.streams.first?.codecName, "h264")
        XCTAssertEqual(probed.streams.first?.packets.count, 5)
        XCTAssertNil(try Movie.open(path: output).tracks.first?.video?.stereo, "the output claims no second view")
    }

    /// Every byte of the stereo boxes set to 0x00 and to 0xFF in turn: the file opens or is refused as
    /// malformed, and inspect describes what is left; never a crash or another error.
    func testDamagedStereoBoxesAreDescribedOrRefusedNeverACrash() throws {
        let original = [UInt8](try fileBytes(try AudioFactsTests.wild(Self.spatial)))
        let vexu = try XCTUnwrap(Self.scannedPayload("vexu", in: original))
        let start = try XCTUnwrap((4..<original.count).first { Array(original[$0..<$0 + 4]) == Array("vexu".utf8) }) - 4
        let end = start + 8 + vexu.count + 12  // vexu, then hfov
        var opened = 0, refused = 0
        for offset in start..<end {
            for value: UInt8 in [0x00, 0xFF] where original[offset] != value {
                var bytes = original
                bytes[offset] = value
                do {
                    let movie = try Movie(source: MemoryByteSource(bytes))
                    _ = InspectReport(movie: movie, name: "damaged").json.rendered()
                    _ = InspectReport(movie: movie, name: "damaged").text
                    opened += 1
                } catch KeepTrackError.malformed {
                    refused += 1
                }
            }
        }
        XCTAssertGreaterThan(opened, 0)
        print("stereo boxes damaged byte by byte: \(opened) opened, \(refused) refused as malformed")
    }
}
