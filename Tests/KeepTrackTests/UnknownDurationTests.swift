import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// An all-ones duration in mvhd, tkhd or mdhd (0xFFFFFFFF in version 0, 2^64 - 1 in version 1)
/// means "unknown": inspect reports the duration of the samples, or unknown (`null`) when there
/// are none — never 18,446,744,073,709,552 s.
final class UnknownDurationTests: XCTestCase {
    static func json(_ path: String) throws -> [String: Any] {
        let result = runCLI(["inspect", "--json", path])
        XCTAssertEqual(result.code, 0, result.error)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
    }

    /// eyevinn-mp4ff/init.mp4: a CMAF init segment, tkhd and mdhd version 1 with all-ones durations, no samples.
    func testVersion1AllOnesWithoutSamplesIsUnknown() throws {
        let path = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/eyevinn-mp4ff/init.mp4").path)
        let movie = try Movie.open(path: path)
        let track = try XCTUnwrap(movie.tracks.first)
        XCTAssertEqual(track.header.header.version, 1)
        XCTAssertTrue(track.header.durationIsUnknown)
        XCTAssertTrue(track.mediaHeader.durationIsUnknown)
        XCTAssertNil(track.duration)
        let object = try Self.json(path)
        let tracks = try XCTUnwrap(object["tracks"] as? [[String: Any]])
        XCTAssertTrue(tracks[0]["duration"] is NSNull, "\(tracks[0]["duration"] ?? "absent")")
        XCTAssertEqual(object["duration"] as? Double, 0) // its mvhd says 0, a real value
    }

    /// A synthetic movie with every mvhd, tkhd and mdhd duration set to 0xFFFFFFFF (version 0).
    func testVersion0AllOnesTakesTheDurationOfTheSamples() throws {
        let folder = TemporaryFolder()
        let original = try Movie.open(path: writeVariant("iphone", in: folder))
        var bytes = try MovieBytes(variant: "iphone")
        try bytes.setField("moov/mvhd", at: 16, 0xFFFF_FFFF, width: 4)
        for index in 1...original.tracks.count {
            let trak = "moov/trak" + (index == 1 ? "" : "[\(index)]")
            XCTAssertEqual(try bytes.box(trak + "/tkhd").payload.first, 0)
            try bytes.setField(trak + "/tkhd", at: 20, 0xFFFF_FFFF, width: 4)
            try bytes.setField(trak + "/mdia/mdhd", at: 16, 0xFFFF_FFFF, width: 4)
        }
        let path = try bytes.write(to: folder.path("unknown.mov"))
        let movie = try Movie.open(path: path)
        XCTAssertTrue(movie.header.durationIsUnknown)
        for (track, before) in zip(movie.tracks, original.tracks) {
            XCTAssertTrue(track.header.durationIsUnknown && track.mediaHeader.durationIsUnknown)
            XCTAssertEqual(try XCTUnwrap(track.duration), before.mediaDuration, accuracy: 1e-9, "track \(track.id)")
        }
        let longest = try XCTUnwrap(original.tracks.map(\.mediaDuration).max())
        XCTAssertEqual(try XCTUnwrap(movie.duration), longest, accuracy: 1e-9)

        let object = try Self.json(path)
        let reported = try XCTUnwrap(object["duration"] as? Double)
        XCTAssertEqual(reported, longest, accuracy: 0.001)
        for track in try XCTUnwrap(object["tracks"] as? [[String: Any]]) {
            let seconds = try XCTUnwrap(track["duration"] as? Double)
            XCTAssertLessThan(seconds, 3600, "a duration from all-ones fields")
        }
        let text = runCLI(["inspect", path]).out
        XCTAssertTrue(text.contains(String(format: "%.2f s", longest)), text)
    }

    /// Unknown everywhere and no samples: the text says so instead of printing a number.
    func testNothingKnownPrintsUnknown() throws {
        let path = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/eyevinn-mp4ff/init.mp4").path)
        var bytes = try MovieBytes(bytes: [UInt8](fileBytes(path)))
        try bytes.setField("moov/mvhd", at: 16, 0xFFFF_FFFF, width: 4)
        let folder = TemporaryFolder()
        let edited = try bytes.write(to: folder.path("init-unknown.mp4"))
        XCTAssertNil(try Movie.open(path: edited).duration)
        let text = runCLI(["inspect", edited]).out
        XCTAssertTrue(text.contains("duration unknown"), text)
        XCTAssertTrue(try Self.json(edited)["duration"] is NSNull)
    }
}
