import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

final class CompareTests: XCTestCase {
    func testEnabledFlagChangeIsNamedAndExitsOne() throws {
        let folder = TemporaryFolder()
        let good = try writeVariant("iphone", in: folder)
        let echo = try writeVariant("both-enabled", in: folder)
        let result = runCLI(["compare", good, echo])
        XCTAssertEqual(result.code, 1, result.error)
        XCTAssertTrue(result.out.contains("track 3: enabled differs: no in \(good), yes in \(echo)"), result.out)
        XCTAssertTrue(result.out.contains("track 3: boxes differ: tkhd"), result.out)
        // The ordered flag lists side by side show the echo bug.
        XCTAssertTrue(result.out.contains("A: 1 on, 2 on, 3 off"), result.out)
        XCTAssertTrue(result.out.contains("B: 1 on, 2 on, 3 on"), result.out)
        // Samples are the same: no sha256 difference is claimed.
        XCTAssertFalse(result.out.contains("sha256 differs"), result.out)
    }

    func testMissingFallReferenceIsADifference() throws {
        let folder = TemporaryFolder()
        let comparison = try MovieComparison(Movie.open(path: writeVariant("iphone", in: folder)), Movie.open(path: writeVariant("no-fall", in: folder)))
        XCTAssertFalse(comparison.isIdentical)
        XCTAssertTrue(comparison.differences.contains { $0.hasPrefix("track 3: references differs: fall→2 in A, none in B") }, "\(comparison.differences)")
        XCTAssertTrue(comparison.differences.contains { $0.contains("tref (only in A)") }, "\(comparison.differences)")
    }

    /// One flipped byte in one sample changes that track's hash and nothing else.
    func testChangedSampleByteChangesHash() throws {
        let folder = TemporaryFolder()
        let original = try writeVariant("iphone", in: folder)
        let changed = folder.path("changed.mov")
        try FileManager.default.copyItem(atPath: original, toPath: changed)
        let movie = try Movie.open(path: changed)
        let spatial = try XCTUnwrap(movie.tracks.first { $0.format == "apac" })
        let sample = try XCTUnwrap(spatial.sampleTable.samples.first { _ in true })
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: changed))
        try handle.seek(toOffset: sample.offset + 3)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: sample.offset + 3)
        handle.write(Data([byte ^ 0xFF]))
        try handle.close()
        let result = runCLI(["compare", original, changed, "--json"])
        XCTAssertEqual(result.code, 1)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        XCTAssertEqual(json["identical"] as? Bool, false)
        let differences = try XCTUnwrap(json["differences"] as? [String])
        XCTAssertEqual(differences.count, 1, "\(differences)")
        XCTAssertTrue(differences[0].hasPrefix("track \(spatial.id): sha256 differs"), differences[0])
        let tracks = try XCTUnwrap(json["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.count, movie.tracks.count)
        let row = try XCTUnwrap(tracks.first { $0["id"] as? Int == Int(spatial.id) })
        let a = try XCTUnwrap(row["a"] as? [String: String])
        let b = try XCTUnwrap(row["b"] as? [String: String])
        XCTAssertNotEqual(a["sha256"], b["sha256"])
        XCTAssertEqual(a["samples"], b["samples"])
        XCTAssertEqual(a["format"], "apac")
    }

    /// Tracks only in B are listed (and allowed); tracks only in A are differences.
    func testTracksOnlyInOneFile() throws {
        let folder = TemporaryFolder()
        let audioOnly = try Movie.open(path: writeVariant("audio-only", in: folder))
        let full = try Movie.open(path: writeVariant("iphone", in: folder))
        let forward = try MovieComparison(audioOnly, full)
        let onlyInB = forward.rows.filter { $0.a == nil }.map(\.id)
        XCTAssertEqual(Set(onlyInB), Set(full.tracks.map(\.id)).subtracting(audioOnly.tracks.map(\.id)))
        XCTAssertFalse(forward.differences.contains { $0.contains("missing") })
        XCTAssertTrue(forward.text.contains("Track 1 (only in B)"), forward.text)
        let backward = try MovieComparison(full, audioOnly)
        XCTAssertTrue(backward.differences.contains { $0.hasPrefix("track 1 (hvc1) is missing from B") }, "\(backward.differences)")
    }

    /// A caller can add a column (as `--levels` will): it shows in text and JSON and decides identity.
    func testExtraColumn() throws {
        let folder = TemporaryFolder()
        let path = try writeVariant("iphone", in: folder)
        let movie = try Movie.open(path: path)
        let parity = ComparisonColumn(name: "first byte", decisive: true) { track, movie in
            guard let sample = track.sampleTable.samples.first(where: { _ in true }) else { return "none" }
            return String(try movie.source.read(at: sample.offset, count: 1)[0])
        }
        let comparison = try MovieComparison(movie, movie, columns: ComparisonColumn.standard + [parity])
        XCTAssertTrue(comparison.isIdentical, "\(comparison.differences)")
        XCTAssertTrue(comparison.text.contains("  first byte"))
        XCTAssertNotNil(comparison.json["tracks"])
    }
}
