import XCTest
import KeepTrackFraming

/// Which frames an edit list shows, and when (`ShownFrames`), on frame times written by hand: 10 frames of
/// 100 media units (timescale 1000: 0.1 s each), presentation times 100...1000 as a stream whose B-frames
/// delay the first picture by 100 units.
final class ShownFramesTests: XCTestCase {
    let times: [Int64] = (1...10).map { Int64($0) * 100 }

    func testWithoutAnEditListEveryFrameIsShownAtItsMediaTime() {
        let shown = ShownFrames(presentationTimes: times.reversed(), timescale: 1000)
        XCTAssertEqual(shown.shown, Array(0..<10))
        XCTAssertEqual(shown.times.first, 0.1)
        XCTAssertEqual(shown.hiddenCount, 0)
        XCTAssertEqual(shown.position(ofFrame: 4), 4)
    }

    /// `ffmpeg -ss` on a frame: the frames before it hidden, the first shown at 0; the hidden ones take the first
    /// shown frame's crop.
    func testAnEditStartingOnAFrameHidesTheFramesBeforeIt() throws {
        let shown = try XCTUnwrap(ShownFrames(presentationTimes: times, timescale: 1000,
                                              edits: [.init(mediaStart: 400, mediaDuration: nil, movieStart: 0)]))
        XCTAssertEqual(shown.shown, Array(3..<10))
        XCTAssertEqual(shown.times.first, 0)
        XCTAssertEqual(shown.times.last ?? 0, 0.6, accuracy: 1e-9)
        XCTAssertEqual(shown.hiddenCount, 3)
        XCTAssertNil(shown.position(ofFrame: 2))
        XCTAssertEqual(shown.position(ofFrame: 3), 0)
        XCTAssertEqual((0..<10).map(shown.standIn(forFrame:)), [0, 0, 0, 0, 1, 2, 3, 4, 5, 6])
    }

    /// An edit starting inside a frame: that frame is on screen from the edit's start (movie time 0), the next
    /// one at its own time after the start.
    func testAnEditStartingInsideAFrameShowsThatFrameFromItsStart() throws {
        let shown = try XCTUnwrap(ShownFrames(presentationTimes: times, timescale: 1000,
                                              edits: [.init(mediaStart: 430, mediaDuration: nil, movieStart: 0)]))
        XCTAssertEqual(shown.shown.first, 3)
        XCTAssertEqual(Array(shown.times.prefix(2)), [0, 0.07])
    }

    /// An empty edit first delays everything; an edit ending before the last frame hides those after its end
    /// (a frame starting before the end is shown); they take the last shown frame's crop.
    func testAnEmptyEditDelaysAndAnEarlyEndHidesTheRest() throws {
        let shown = try XCTUnwrap(ShownFrames(presentationTimes: times, timescale: 1000,
                                              edits: [.init(mediaStart: 300, mediaDuration: 450, movieStart: 0.5)]))
        XCTAssertEqual(shown.shown, [2, 3, 4, 5, 6])
        XCTAssertEqual(shown.times.first, 0.5)
        XCTAssertEqual(shown.times.last ?? 0, 0.9, accuracy: 1e-9)
        XCTAssertEqual((0..<10).map(shown.standIn(forFrame:)), [0, 0, 0, 1, 2, 3, 4, 4, 4, 4])
    }

    /// Two edits with a gap in the media: the frames in the gap are hidden and hold the crop of the frame before.
    func testAGapBetweenEditsHidesTheFramesInIt() throws {
        let shown = try XCTUnwrap(ShownFrames(presentationTimes: times, timescale: 1000, edits: [
            .init(mediaStart: 100, mediaDuration: 300, movieStart: 0), .init(mediaStart: 700, mediaDuration: nil, movieStart: 0.3),
        ]))
        XCTAssertEqual(shown.shown, [0, 1, 2, 6, 7, 8, 9])
        XCTAssertEqual(shown.times.map { ($0 * 10).rounded() / 10 }, [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
        XCTAssertEqual(shown.standIn(forFrame: 4), 2)
    }

    /// Edits going back in the media (a frame shown twice) are not a plan of one pass.
    func testEditsGoingBackAreRefused() {
        XCTAssertNil(ShownFrames(presentationTimes: times, timescale: 1000, edits: [
            .init(mediaStart: 500, mediaDuration: 200, movieStart: 0), .init(mediaStart: 100, mediaDuration: 200, movieStart: 0.2),
        ]))
    }
}
