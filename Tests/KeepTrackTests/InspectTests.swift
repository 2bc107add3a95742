import XCTest
@testable import KeepTrack
import KeepTrackFixtures

final class InspectTests: XCTestCase {
    func testRealIPhoneFixture() throws {
        let movie = try Movie.open(path: RealFixtures.require(RealFixtures.iphone))
        XCTAssertEqual(movie.tracks.count, 9)
        XCTAssertTrue(movie.isQuickTime)
        XCTAssertFalse(movie.isFastStart)
        let video = try XCTUnwrap(movie.track(id: 1))
        XCTAssertEqual(video.format, "hvc1")
        XCTAssertEqual(video.video?.rotation, 90)
        XCTAssertEqual(video.video?.displayWidth, 1080)
        XCTAssertEqual(video.video?.displayHeight, 1920)
        XCTAssertEqual(video.video?.hdr, "HLG")
        XCTAssertEqual(video.video?.dolbyVision, "8.4")
        let stereo = try XCTUnwrap(movie.track(id: 2))
        XCTAssertEqual(stereo.format, "mp4a")
        XCTAssertEqual(stereo.audio?.channels, 2)
        XCTAssertEqual(stereo.audio?.sampleRate, 48000)
        XCTAssertTrue(stereo.isEnabled)
        XCTAssertEqual(stereo.alternateGroup, 1)
        let spatial = try XCTUnwrap(movie.track(id: 3))
        XCTAssertEqual(spatial.format, "apac")
        XCTAssertEqual(spatial.audio?.channels, 4)
        XCTAssertEqual(spatial.audio?.sampleRate, 48000)
        XCTAssertEqual(spatial.audio?.spatial, true)
        XCTAssertFalse(spatial.isEnabled)
        XCTAssertEqual(spatial.alternateGroup, 1)
        XCTAssertEqual(spatial.referencedIDs("fall"), [2])
        for id in UInt32(4)...9 {
            XCTAssertEqual(movie.track(id: id)?.format, "mebx")
            XCTAssertEqual(movie.track(id: id)?.kind, .metadata)
        }
        XCTAssertEqual(movie.track(id: 4)?.timedMetadataKeys, ["com.apple.quicktime.video-orientation"])
        XCTAssertTrue(movie.track(id: 6)?.timedMetadataKeys.contains { $0.contains("detected-face") } == true)
        XCTAssertEqual(video.metadata.first { $0.key == "camera.lens_model" }?.value, "iPhone 16 Pro back camera 6.765mm f/1.78")
        let metadata = Dictionary(movie.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(metadata["make"], "Apple")
        XCTAssertEqual(metadata["model"], "iPhone 16 Pro")
    }

    func testAVAssetWriterAPACChannelsAreUnknownNotTwo() throws {
        let movie = try Movie.open(path: RealFixtures.require(RealFixtures.avAssetWriter))
        XCTAssertEqual(movie.tracks.count, 1)
        let track = movie.tracks[0]
        XCTAssertEqual(track.format, "apac")
        XCTAssertEqual(track.audio?.sampleRate, 48000)
        XCTAssertNil(track.audio?.channels, "the ISO channelcount 2 is a placeholder")
        XCTAssertFalse(movie.isQuickTime)
        XCTAssertTrue(movie.isFastStart)
    }

    func testJSONKeysOnRealFixture() throws {
        let result = runCLI(["inspect", "--json", try RealFixtures.require(RealFixtures.iphone)])
        XCTAssertEqual(result.code, 0, result.error)
        for key in ["\"container\": \"quicktime\"", "\"fastStart\": false", "\"alternateGroups\"", "\"fall\": [", "\"spatial\": true",
                    "\"dolbyVision\": \"8.4\"", "\"make\": \"Apple\"", "\"model\": \"iPhone 16 Pro\""] {
            XCTAssertTrue(result.out.contains(key), "missing \(key)")
        }
        // Valid JSON with 9 tracks.
        let object = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any]
        XCTAssertEqual((object?["tracks"] as? [Any])?.count, 9)
        let groups = object?["alternateGroups"] as? [[String: Any]]
        XCTAssertEqual(groups?.first?["tracks"] as? [Int], [2, 3])
        XCTAssertEqual(groups?.first?["enabled"] as? [Int], [2])
    }

    func testSyntheticVariantsMatchTheirOptions() throws {
        let folder = TemporaryFolder()
        let spatialFirst = try Movie.open(path: writeVariant("spatial-first", in: folder))
        XCTAssertEqual(spatialFirst.tracks.filter { $0.kind == .audio }.map(\.id), [3, 2], "stored order: spatial first")
        let five = try Movie.open(path: writeVariant("five-channel", in: folder))
        XCTAssertEqual(five.track(id: 3)?.audio?.channels, 5)
        let both = try Movie.open(path: writeVariant("both-enabled", in: folder))
        XCTAssertEqual(both.alternateGroups.first?.tracks.filter(\.isEnabled).count, 2)
        let none = try Movie.open(path: writeVariant("none-enabled", in: folder))
        XCTAssertEqual(none.alternateGroups.first?.tracks.filter(\.isEnabled).count, 0)
        let noFall = try Movie.open(path: writeVariant("no-fall", in: folder))
        XCTAssertEqual(noFall.track(id: 3)?.referencedIDs("fall"), [])
        let mp4 = try Movie.open(path: writeVariant("mp4", in: folder))
        XCTAssertFalse(mp4.isQuickTime)
        XCTAssertNil(mp4.track(id: 3)?.audio?.channels, "mp4 APAC channelcount is a placeholder")
        let co64 = try Movie.open(path: writeVariant("co64", in: folder))
        XCTAssertTrue(co64.tracks.allSatisfy(\.sampleTable.usesLargeOffsets))
        let moovFirst = try Movie.open(path: writeVariant("moov-first", in: folder))
        XCTAssertTrue(moovFirst.isFastStart)
        let lpcm = try Movie.open(path: writeVariant("lpcm-spatial", in: folder))
        XCTAssertEqual(lpcm.track(id: 3)?.audio?.channels, 4)
        XCTAssertEqual(lpcm.track(id: 3)?.isSpatialAudio, true)
    }

    func testSeveralFilesWorstExitCode() throws {
        let folder = TemporaryFolder()
        let good = try writeVariant("iphone", in: folder)
        let text = folder.path("notes.txt")
        try Data("just some text, not a movie\n".utf8).write(to: URL(fileURLWithPath: text))
        let result = runCLI(["inspect", good, text, folder.path("missing.mov")])
        XCTAssertEqual(result.code, 66)
        XCTAssertTrue(result.out.contains("5 tracks"))
        XCTAssertTrue(result.error.contains("notes.txt"))
    }
}
