import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Golden text dumps: `keeptrack dump --redact-location` of the real fixtures and of synthetic
/// variants, compared with `Golden/*.txt`. Run with `KEEPTRACK_UPDATE_GOLDEN=1` to rewrite them
/// after an intended change, and review the diff.
final class BoxDumpTests: XCTestCase {
    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let updating = ProcessInfo.processInfo.environment["KEEPTRACK_UPDATE_GOLDEN"] == "1"
    static let syntheticVariants = ["iphone", "mp4", "co64", "five-channel", "lpcm-spatial"]

    func dumpText(_ path: String) throws -> String {
        let boxes = try BoxParser.parseFile(FileByteSource(path: path))
        return BoxDump(boxes: boxes, options: .init(redactLocation: true)).text + "\n"
    }

    func assertGolden(_ text: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = Self.goldenFolder.appendingPathComponent(name)
        if Self.updating {
            try FileManager.default.createDirectory(at: Self.goldenFolder, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            return XCTFail("missing golden file \(name); run with KEEPTRACK_UPDATE_GOLDEN=1 to create it", file: file, line: line)
        }
        if expected == text { return }
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = text.split(separator: "\n", omittingEmptySubsequences: false)
        let index = (0..<min(old.count, new.count)).first { old[$0] != new[$0] } ?? min(old.count, new.count)
        XCTFail("""
            \(name) differs at line \(index + 1) (run with KEEPTRACK_UPDATE_GOLDEN=1 to accept):
              expected: \(index < old.count ? String(old[index]) : "<end>")
              actual:   \(index < new.count ? String(new[index]) : "<end>")
            """, file: file, line: line)
    }

    func testRealFixtureDumpsMatchGolden() throws {
        try assertGolden(dumpText(RealFixtures.require(RealFixtures.iphone)), "real-iphone16pro-spatial-audio.txt")
        try assertGolden(dumpText(RealFixtures.require(RealFixtures.avAssetWriter)), "real-avassetwriter-apac.txt")
    }

    func testSyntheticVariantDumpsMatchGolden() throws {
        let folder = TemporaryFolder()
        for name in Self.syntheticVariants {
            try assertGolden(dumpText(writeVariant(name, in: folder)), "synthetic-\(name).txt")
        }
    }

    /// The real recording holds the recorder's GPS position; no committed golden file may contain it.
    func testLocationIsRedactedInDumpsAndGoldenFiles() throws {
        let path = try RealFixtures.require(RealFixtures.iphone)
        let movie = try Movie.open(path: path)
        let secrets = movie.metadata.filter { $0.key.lowercased().contains("location") }.map(\.value)
        XCTAssertTrue(secrets.contains { $0.hasPrefix("+") }, "expected location.ISO6709 in the fixture's metadata")
        let plain = runCLI(["dump", path])
        let redacted = runCLI(["dump", path, "--redact-location"])
        XCTAssertEqual(redacted.code, 0)
        for secret in secrets {
            XCTAssertTrue(plain.out.contains(secret), "without --redact-location the dump shows \(secret)")
            XCTAssertFalse(redacted.out.contains(secret), "--redact-location leaks \(secret)")
        }
        XCTAssertTrue(redacted.out.contains("value: <redacted>"))
        let golden = try FileManager.default.contentsOfDirectory(at: Self.goldenFolder, includingPropertiesForKeys: nil)
        XCTAssertFalse(golden.isEmpty)
        for url in golden {
            let text = try String(contentsOf: url, encoding: .utf8)
            for secret in secrets { XCTAssertFalse(text.contains(secret), "\(url.lastPathComponent) contains a location value") }
        }
    }

    func testDumpShowsPathsOffsetsAndTypedFields() throws {
        let folder = TemporaryFolder()
        let path = try writeVariant("iphone", in: folder)
        let movie = try Movie.open(path: path)
        let result = runCLI(["dump", path])
        XCTAssertEqual(result.code, 0, result.error)
        let lines = result.out.split(separator: "\n").map(String.init)
        // Every box line carries the offset the parser recorded for that box.
        let stco = try XCTUnwrap(movie.tracks[1].box.find(["mdia", "minf", "stbl", "stco"]))
        XCTAssertTrue(lines.contains { $0.hasSuffix("moov/trak[2]/mdia/minf/stbl/stco  offset \(stco.offset)  size \(stco.size)  32-bit size") }, result.out)
        XCTAssertTrue(lines.contains { $0.contains("mdat  offset") && $0.contains("media data, not read") })
        // Sample entries decode with the prefix view of their track's kind.
        XCTAssertTrue(lines.contains { $0.trimmingCharacters(in: .whitespaces) == "numAudioChannels: 4" }, "apac v2 channels")
        XCTAssertTrue(lines.contains { $0.trimmingCharacters(in: .whitespaces) == "width: 1920" }, "hvc1 width")
        XCTAssertTrue(lines.contains { $0.trimmingCharacters(in: .whitespaces) == "channelConfiguration: 2" }, "esds AudioSpecificConfig")
    }

    func testDepthAndAllEntries() throws {
        let folder = TemporaryFolder()
        let path = try writeVariant("many-samples", in: folder)
        let top = runCLI(["dump", path, "--depth", "1"])
        XCTAssertEqual(top.code, 0, top.error)
        let boxLines = top.out.split(separator: "\n").filter { !$0.hasPrefix(" ") }
        XCTAssertEqual(boxLines.map { String($0.prefix(4)) }, try BoxParser.parseFile(FileByteSource(path: path)).map(\.type.description))
        XCTAssertTrue(top.out.contains("child boxes below depth 1"))
        let short = runCLI(["dump", path])
        let full = runCLI(["dump", path, "--all-entries"])
        XCTAssertTrue(short.out.contains("…"))
        XCTAssertGreaterThan(full.out.count, short.out.count * 2)
        // With every entry shown, the video stsz lists all 7200 sizes.
        let sizesLine = try XCTUnwrap(full.out.split(separator: "\n").first { $0.contains("entrySizes: [7200]") })
        XCTAssertEqual(sizesLine.split(separator: " ").count, 2 + 7200, "entrySizes: [7200] then every size")
    }

    func testHeaderFormsAreNamed() throws {
        var writer = ByteWriter()
        writer.u32(1); writer.fourCC("free"); writer.u64(20); writer.u32(0xDEADBEEF) // 64-bit size
        writer.u32(0); writer.fourCC("mdat"); writer.u32(7) // size 0: runs to the end
        let boxes = try BoxParser.parseFile(MemoryByteSource(writer.bytes))
        XCTAssertEqual(BoxDump(boxes: boxes).lines, [
            "free  offset 0  size 20  64-bit size",
            "mdat  offset 20  size 12  size 0 (to end of file)  media data, not read",
        ])
    }

    func testDumpErrors() throws {
        XCTAssertEqual(runCLI(["dump", "/nonexistent/file.mov"]).code, 66)
        XCTAssertEqual(runCLI(["dump"]).code, 64)
        let folder = TemporaryFolder()
        let path = try writeVariant("iphone", in: folder)
        XCTAssertEqual(runCLI(["dump", path, "--depth", "0"]).code, 64)
        let text = folder.path("notes.txt")
        try Data("just some text\n".utf8).write(to: URL(fileURLWithPath: text))
        let result = runCLI(["dump", text])
        XCTAssertEqual(result.code, 65)
        XCTAssertTrue(result.error.contains("not a QuickTime/MP4 movie"), result.error)
    }
}
