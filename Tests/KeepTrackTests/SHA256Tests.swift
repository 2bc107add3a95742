import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

final class SHA256Tests: XCTestCase {
    /// FIPS 180-4 / NIST example vectors.
    func testKnownVectors() {
        let vectors: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
             "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        ]
        for (message, digest) in vectors {
            XCTAssertEqual(SHA256.hex(SHA256.hash(Array(message.utf8))), digest, message)
        }
        var million = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { million.update(chunk) }
        XCTAssertEqual(million.hexDigest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Padding edge cases: every length around one and two blocks, fed whole and in uneven pieces.
    func testPiecewiseUpdatesMatchOneShot() {
        let data = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 300] {
            let whole = SHA256.hash(Array(data.prefix(length)))
            var pieces = SHA256()
            var start = 0
            var step = 1
            while start < length {
                let end = min(length, start + step)
                pieces.update(Array(data[start..<end]))
                start = end
                step = step * 3 % 71 + 1
            }
            XCTAssertEqual(pieces.finalize(), whole, "length \(length)")
        }
    }

    /// Against coreutils on a real file of a few MiB.
    func testMatchesSha256sumOnAFile() throws {
        let folder = TemporaryFolder()
        var options = FixtureOptions()
        options.videoFrameBytes = 40_000
        let path = try FixtureBuilder(options).write(to: folder.path("movie.mov"))
        let tool = try XCTUnwrap(runTool("sha256sum", [path]), "sha256sum not installed")
        let expected = String(tool.out.prefix(64))
        let source = try FileByteSource(path: path)
        var hasher = SHA256()
        var offset: UInt64 = 0
        while offset < source.size {
            let count = Int(min(source.size - offset, 1_000_003))
            hasher.update(try source.read(at: offset, count: count))
            offset += UInt64(count)
        }
        XCTAssertGreaterThan(source.size, 2_000_000)
        XCTAssertEqual(hasher.hexDigest(), expected)
    }
}
