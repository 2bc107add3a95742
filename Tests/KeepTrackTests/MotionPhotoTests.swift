import Foundation
import XCTest
@testable import KeepTrack

/// Motion photos built the way phones store them, from a real picture (ffmpeg's JPEG, ffmpeg 9's
/// HEIF/AVIF still) and a real movie: `inspect` finds the embedded movie (layout, offset, size, its
/// tracks), `extract-movie` writes it byte for byte and ffprobe reads it; commands that need a movie
/// name `extract-movie`.
final class MotionPhotoTests: XCTestCase {
    struct Built {
        var path: String
        var movieOffset: Int
        var movie: Data
        var layout: MotionPhoto.Layout
    }

    static func jpeg(in folder: TemporaryFolder) throws -> Data {
        let path = folder.path("picture.jpg")
        guard let result = runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", path]) else {
            throw unavailable("ffmpeg is not installed")
        }
        XCTAssertEqual(result.code, 0, result.out)
        return try fileBytes(path)
    }

    /// A HEIF still (AV1 in the HEIF boxes: ftyp, meta, mdat), as ffmpeg 9 writes AVIF.
    static func heif(in folder: TemporaryFolder) throws -> Data {
        let path = folder.path("picture.avif")
        let result = try XCTUnwrap(runTool(try NewerFFmpeg.require(), ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "1",
                                                                        "-c:v", "libaom-av1", "-still-picture", "1", path]))
        XCTAssertEqual(result.code, 0, result.out)
        return try fileBytes(path)
    }

    static func movie(in folder: TemporaryFolder) throws -> Data {
        let path = folder.path("clip.mp4")
        guard let result = runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=48000",
                                               "-t", "1", "-c:v", "libx264", "-c:a", "aac", "-movflags", "+faststart", path]) else {
            throw unavailable("ffmpeg is not installed")
        }
        XCTAssertEqual(result.code, 0, result.out)
        return try fileBytes(path)
    }

    /// The JPEG with an APP1 XMP segment right after its SOI marker.
    static func withXMP(_ jpeg: Data, _ xmp: String) -> Data {
        let payload = Data("http://ns.adobe.com/xap/1.0/\u{0}".utf8) + Data(xmp.utf8)
        let length = payload.count + 2
        return jpeg.prefix(2) + Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]) + payload + jpeg.dropFirst(2)
    }

    static func xmp(_ properties: String, directory: String = "") -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
          xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
          \(properties)>\(directory)</rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    /// Google's layouts (version 1 MicroVideo, Container directory), Samsung's JPEG marker and Samsung's HEIC mpvd box.
    static func build(in folder: TemporaryFolder) throws -> [Built] {
        let jpeg = try jpeg(in: folder)
        let clip = try movie(in: folder)
        let iphone = try fileBytes(try RealFixtures.require(RealFixtures.iphone))
        var built: [Built] = []
        func save(_ name: String, _ bytes: Data, movie: Data, layout: MotionPhoto.Layout) throws {
            let path = folder.path(name)
            try bytes.write(to: URL(fileURLWithPath: path))
            let offset = try XCTUnwrap(bytes.range(of: movie)?.lowerBound)
            built.append(Built(path: path, movieOffset: offset, movie: movie, layout: layout))
        }
        let microVideo = withXMP(jpeg, xmp(#"GCamera:MicroVideo="1" GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="\#(clip.count)""#))
        try save("MVIMG_micro.jpg", microVideo + clip, movie: clip, layout: .googleMicroVideo)
        let directory = """
        <Container:Directory><rdf:Seq>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="\(iphone.count)" Item:Padding="0"/></rdf:li>
        </rdf:Seq></Container:Directory>
        """
        let container = withXMP(jpeg, xmp(#"GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="-1""#, directory: directory))
        try save("PXL_container.MP.jpg", container + iphone, movie: iphone, layout: .googleContainer)
        // Samsung's trailer field: 2 zero bytes, a little-endian marker and name length, the name, the data; then its SEF index.
        let field = Data([0, 0, 0x30, 0x0A, 16, 0, 0, 0]) + Data("MotionPhoto_Data".utf8)
        let index = Data("SEFH".utf8) + Data([0x6B, 0, 0, 0, 1, 0, 0, 0]) + Data("SEFT".utf8)
        try save("samsung.jpg", jpeg + field + clip + index, movie: clip, layout: .samsungMarker)
        let heif = try heif(in: folder)
        let size = UInt32(iphone.count + 8)
        let mpvd = Data([UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]) + Data("mpvd".utf8) + iphone
        try save("samsung.heic", heif + mpvd, movie: iphone, layout: .samsungHEIC)
        return built
    }

    func testInspectShowsTheEmbeddedMovieAndExtractMovieWritesItByteForByte() throws {
        let folder = TemporaryFolder()
        for photo in try Self.build(in: folder) {
            let name = (photo.path as NSString).lastPathComponent
            let inspect = runCLI(["inspect", "--json", photo.path])
            XCTAssertEqual(inspect.code, 0, "\(name): \(inspect.error)")
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(inspect.out.utf8)) as? [String: Any], name)
            let found = try XCTUnwrap(json["motionPhoto"] as? [String: Any], name)
            XCTAssertEqual(found["layout"] as? String, photo.layout.rawValue, name)
            XCTAssertEqual(found["offset"] as? Int, photo.movieOffset, name)
            XCTAssertEqual(found["size"] as? Int, photo.movie.count, name)
            let tracks = try XCTUnwrap((found["movie"] as? [String: Any])?["tracks"] as? [[String: Any]], name)

            let output = folder.path(name + ".mov")
            let extract = runCLI(["extract-movie", photo.path, output])
            XCTAssertEqual(extract.code, 0, "\(name): \(extract.error)")
            XCTAssertEqual(try fileBytes(output), photo.movie, "\(name): the extracted movie is the embedded bytes")
            let probed = try FFprobe.probe(output, packets: false)
            XCTAssertEqual(probed.streams.count, tracks.count, "\(name): ffprobe reads every track inspect showed")
            XCTAssertGreaterThan(probed.duration ?? 0, 0.5, name)

            let text = runCLI(["inspect", photo.path])
            XCTAssertTrue(text.out.contains("motion photo") && text.out.contains("at byte \(photo.movieOffset)") && text.out.contains("extract-movie"), text.out)
            // Commands that need a movie say where it is and what reads it.
            let remux = runCLI(["remux", photo.path, folder.path("remuxed.mov")])
            XCTAssertEqual(remux.code, 65, name)
            XCTAssertTrue(remux.error.contains("extract-movie") && remux.error.contains("at byte \(photo.movieOffset)"), "\(name): \(remux.error)")
        }
    }

    /// A plain picture is not a motion photo: extract-movie and inspect refuse it (65), nothing written;
    /// an XMP length pointing at something that is not a box is not believed.
    func testPlainPictureAndLyingLengthAreRefused() throws {
        let folder = TemporaryFolder()
        let jpeg = try Self.jpeg(in: folder)
        let plain = folder.path("plain.jpg")
        try jpeg.write(to: URL(fileURLWithPath: plain))
        let lying = folder.path("lying.jpg")
        try (Self.withXMP(jpeg, Self.xmp(#"GCamera:MicroVideoOffset="5000""#)) + Data(repeating: 0x41, count: 6000)).write(to: URL(fileURLWithPath: lying))
        let huge = folder.path("huge.jpg")
        try Self.withXMP(jpeg, Self.xmp(#"GCamera:MicroVideoOffset="99999999999""#)).write(to: URL(fileURLWithPath: huge))
        for path in [plain, lying, huge] {
            XCTAssertNil(MotionPhoto.find(in: try FileByteSource(path: path)), path)
            let result = runCLI(["extract-movie", path, folder.path("out.mp4")])
            XCTAssertEqual(result.code, 65, result.error)
            XCTAssertTrue(result.error.contains("not a motion photo"), result.error)
            XCTAssertEqual(runCLI(["inspect", path]).code, 65)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.mp4")))
    }
}
