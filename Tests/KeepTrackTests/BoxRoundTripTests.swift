import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Decode→encode byte equality: the box tree and every typed view reproduce their input exactly.
final class BoxRoundTripTests: XCTestCase {
    func assertRoundTrip(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let source = try FileByteSource(path: path)
        let boxes = try BoxParser.parseFile(source)
        var offset: UInt64 = 0
        for box in boxes {
            XCTAssertEqual(box.offset, offset, "\(path): \(box.type) offset", file: file, line: line)
            if case .external = box.content {
                offset += box.size
                continue
            }
            let original = try source.read(at: box.offset, count: Int(box.size))
            let written = try box.serialized(source: source)
            XCTAssertEqual(written.count, original.count, "\(path): \(box.type) size", file: file, line: line)
            XCTAssertTrue(written == original, "\(path): \(box.type) bytes differ after serialization", file: file, line: line)
            try assertViewsRoundTrip(box, parents: [], path: path, file: file, line: line)
            offset += box.size
        }
        XCTAssertEqual(offset, source.size)
    }

    /// Every box with a registered typed view decodes and re-encodes to its exact payload.
    func assertViewsRoundTrip(_ box: Box, parents: [FourCC], path: String, file: StaticString, line: UInt) throws {
        if case .bytes(let payload) = box.content,
           let view = BoxRegistry.view(for: box.type, parent: parents.last, grandparent: parents.dropLast().last) {
            let decoded = try view.init(decoding: payload, baseOffset: box.payloadOffset, path: box.type.description)
            XCTAssertTrue(try decoded.encoded() == payload, "\(path): \((parents + [box.type]).map(\.description).joined(separator: "/")) view \(view) does not round-trip", file: file, line: line)
        }
        for child in box.children { try assertViewsRoundTrip(child, parents: parents + [box.type], path: path, file: file, line: line) }
    }

    func testRealFixturesRoundTrip() throws {
        for path in RealFixtures.all { try assertRoundTrip(RealFixtures.require(path)) }
    }

    func testSyntheticVariantsRoundTrip() throws {
        let folder = TemporaryFolder()
        for name in FixtureOptions.variantNames {
            try assertRoundTrip(writeVariant(name, in: folder))
        }
    }

    func testSampleEntryPrefixesRoundTrip() throws {
        let movie = try Movie.open(path: RealFixtures.require(RealFixtures.iphone))
        for track in movie.tracks {
            guard let entry = track.sampleEntries.first, entry.isContainer else { continue }
            if let audio = track.audioEntry { XCTAssertEqual(try audio.encoded(), entry.payload, "track \(track.id)") }
            if let video = track.visualEntry { XCTAssertEqual(try video.encoded(), entry.payload, "track \(track.id)") }
        }
    }

    func testLargeHeaderFormIsKept() throws {
        // A `free` box written with a 64-bit size stays 64-bit.
        var writer = ByteWriter()
        writer.u32(1); writer.fourCC("free"); writer.u64(20); writer.u32(0xDEADBEEF)
        let boxes = try BoxParser.parseBoxes(writer.bytes)
        XCTAssertEqual(boxes.count, 1)
        XCTAssertEqual(boxes[0].headerForm, .large)
        XCTAssertEqual(try boxes[0].serialized(), writer.bytes)
    }
}
