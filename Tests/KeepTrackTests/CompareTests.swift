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
        // Samples are the same: no sample data difference is claimed.
        XCTAssertFalse(result.out.contains("sample data differs"), result.out)
        XCTAssertTrue(result.out.contains("sample data") && result.out.contains("identical"), result.out)
    }

    func testMissingFallReferenceIsADifference() throws {
        let folder = TemporaryFolder()
        let comparison = try MovieComparison(Movie.open(path: writeVariant("iphone", in: folder)), Movie.open(path: writeVariant("no-fall", in: folder)))
        XCTAssertFalse(comparison.isIdentical)
        XCTAssertTrue(comparison.differences.contains { $0.hasPrefix("track 3: references differs: fall→2 in A, none in B") }, "\(comparison.differences)")
        XCTAssertTrue(comparison.differences.contains { $0.contains("tref (only in A)") }, "\(comparison.differences)")
    }

    /// One flipped byte in one sample is found in that track, at that sample and byte, and nothing
    /// else differs; `--digest sha256` shows the two hashes differing as well.
    func testChangedSampleByteIsFound() throws {
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
        XCTAssertEqual(differences, ["track \(spatial.id): sample data differs from sample 1 on (byte \(sample.offset + 3) of \(original), "
                                     + "byte \(sample.offset + 3) of \(changed))"])
        let tracks = try XCTUnwrap(json["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.count, movie.tracks.count)
        for track in tracks {
            let data = try XCTUnwrap(track["sampleData"] as? [String: Any])
            XCTAssertEqual(data["result"] as? String, track["id"] as? Int == Int(spatial.id) ? "different" : "identical", "\(track)")
        }
        let row = try XCTUnwrap(tracks.first { $0["id"] as? Int == Int(spatial.id) })
        let data = try XCTUnwrap(row["sampleData"] as? [String: Any])
        XCTAssertEqual(data["sample"] as? Int, 1)
        XCTAssertEqual(data["offsetB"] as? Int, Int(sample.offset) + 3)
        let a = try XCTUnwrap(row["a"] as? [String: String])
        let b = try XCTUnwrap(row["b"] as? [String: String])
        XCTAssertNil(a["sha256"], "no digest unless asked")
        XCTAssertEqual(a["samples"], b["samples"])
        XCTAssertEqual(a["format"], "apac")
        // With the digest: the hashes (computed independently here) differ; still one difference.
        let digest = runCLI(["compare", original, changed, "--json", "--digest", "sha256"])
        XCTAssertEqual(digest.code, 1)
        let digestJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(digest.out.utf8)) as? [String: Any])
        XCTAssertEqual((digestJSON["differences"] as? [String])?.count, 1)
        let digestRow = try XCTUnwrap((digestJSON["tracks"] as? [[String: Any]])?.first { $0["id"] as? Int == Int(spatial.id) })
        let hashA = try XCTUnwrap((digestRow["a"] as? [String: String])?["sha256"])
        let hashB = try XCTUnwrap((digestRow["b"] as? [String: String])?["sha256"])
        XCTAssertEqual(hashA, try Self.samplesSHA256(spatial, in: original))
        XCTAssertEqual(hashB, try Self.samplesSHA256(spatial, in: changed))
        XCTAssertNotEqual(hashA, hashB)
        XCTAssertEqual(runCLI(["compare", original, changed, "--digest", "md5"]).code, 64)
    }

    /// SHA-256 of a track's samples in decode order by sha256sum (an independent implementation).
    static func samplesSHA256(_ track: Track, in path: String) throws -> String {
        let bytes = try fileBytes(path)
        var joined = Data()
        for sample in track.sampleTable.samples { joined += bytes[Int(sample.offset)..<Int(sample.offset) + Int(sample.size)] }
        let folder = TemporaryFolder()
        let file = folder.path("samples")
        try joined.write(to: URL(fileURLWithPath: file))
        return try RemuxProcessTests.sha256sum(file)
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
