import XCTest
@testable import KeepTrack
import KeepTrackReframePipeline

final class ReframeTracksTests: XCTestCase {
    func testIPhoneRecordingKeepsAudioAndNonGeometryMetadataDropsFacesAndOrientation() throws {
        let movie = try Movie.open(path: try RealFixtures.require(RealFixtures.iphone))
        let plan = try ReframeTracks(movie: movie)
        XCTAssertEqual(plan.video.id, 1)
        XCTAssertEqual(Set(plan.dropped.map(\.track.id)), [4, 6], plan.dropped.map(\.reason).joined(separator: "; "))
        XCTAssertTrue(plan.dropped.contains { $0.reason.contains("detected-face") })
        XCTAssertEqual(plan.passedThrough.map(\.id), [2, 3, 5, 7, 8, 9])
        XCTAssertTrue(plan.otherVideo.isEmpty)
    }

    func testMovieWithoutVideoIsRefused() throws {
        let folder = TemporaryFolder()
        let path = try writeVariant("audio-only", in: folder)
        XCTAssertThrowsError(try ReframeTracks(movie: Movie.open(path: path))) { error in
            XCTAssertTrue("\(error)".contains("none is video"))
        }
    }
}
