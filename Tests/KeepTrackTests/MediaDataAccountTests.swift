import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Every byte of every mdat is held by a sample or reported: inspect (text and JSON), lint and the
/// writing commands say how many bytes no sample references, and padding does not cry wolf.
final class MediaDataAccountTests: XCTestCase {
    /// Payload (offset, size) of every top-level mdat, from this test's own walk of the box headers.
    static func mdats(_ path: String) throws -> [(offset: UInt64, payload: UInt64)] {
        let data = try fileBytes(path)
        func u(_ at: Int, _ width: Int) -> UInt64 { data[at..<at + width].reduce(0) { $0 << 8 | UInt64($1) } }
        var result: [(UInt64, UInt64)] = [], at = 0
        while at + 8 <= data.count {
            var size = u(at, 4), header: UInt64 = 8
            if size == 1 { size = u(at + 8, 8); header = 16 } else if size == 0 { size = UInt64(data.count - at) }
            if String(decoding: data[at + 4..<at + 8], as: UTF8.self) == "mdat" { result.append((UInt64(at), size - header)) }
            at += Int(size)
        }
        return result
    }

    /// The fixture (moov after mdat) with `extra` bytes appended inside its mdat, which no sample references.
    static func movie(withUnreferenced extra: [UInt8], in folder: TemporaryFolder, name: String,
                      options: FixtureOptions = FixtureOptions()) throws -> String {
        let fixture = try FixtureBuilder(options).write(to: folder.path("fixture-" + name))
        var data = try fileBytes(fixture)
        let mdat = try XCTUnwrap(mdats(fixture).first)
        let end = Int(mdat.offset + 8 + mdat.payload)
        data.insert(contentsOf: extra, at: end)
        let size = UInt32(mdat.payload + 8 + UInt64(extra.count))
        data.replaceSubrange(Int(mdat.offset)..<Int(mdat.offset) + 4, with: [UInt8(size >> 24), UInt8(size >> 16 & 255), UInt8(size >> 8 & 255), UInt8(size & 255)])
        let path = folder.path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    func testUnreferencedBytesAreReportedAndPaddingIsNot() throws {
        let folder = TemporaryFolder()
        let cases: [(name: String, extra: [UInt8], warns: Bool)] = [
            ("padding.mov", [UInt8](repeating: 0, count: 8), false),
            ("stray.mov", [1, 2, 3, 4, 5, 6, 7, 8], true),
            ("zeros.mov", [UInt8](repeating: 0, count: 5000), true),
        ]
        for item in cases {
            let input = try Self.movie(withUnreferenced: item.extra, in: folder, name: item.name)
            let mdat = try XCTUnwrap(Self.mdats(input).first)
            let count = item.extra.count.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
            let sentence = "mdat at \(mdat.offset): \(count) of"
            // inspect text and JSON.
            let text = runCLI(["inspect", input])
            XCTAssertEqual(text.code, 0)
            XCTAssertTrue(text.out.contains(sentence) && text.out.contains("bytes not referenced by any sample"), "\(item.name): \(text.out)")
            XCTAssertEqual(text.out.contains("warning unreferenced-media-data"), item.warns, "\(item.name): \(text.out)")
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(runCLI(["inspect", "--json", input]).out.utf8)) as? [String: Any])
            let mediaData = try XCTUnwrap(json["mediaData"] as? [String: Any])
            XCTAssertEqual(mediaData["unreferencedBytes"] as? Int, item.extra.count)
            let entry = try XCTUnwrap((mediaData["mdats"] as? [[String: Any]])?.first)
            XCTAssertEqual(entry["mdatOffset"] as? Int, Int(mdat.offset))
            XCTAssertEqual(entry["firstUnreferencedByte"] as? Int, Int(mdat.offset + 8 + mdat.payload) - item.extra.count)
            XCTAssertEqual(entry["warning"] as? Bool, item.warns)
            let warnings = (json["warnings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
            XCTAssertEqual(warnings.contains("unreferenced-media-data"), item.warns, item.name)
            // lint: a warning, exit 0.
            let lint = runCLI(["lint", input])
            XCTAssertEqual(lint.code, 0, lint.out)
            XCTAssertEqual(lint.out.contains("warning unreferenced-media-data: \(sentence)"), item.warns, "\(item.name): \(lint.out)")
            // Every writing command says it leaves them out (only when more than padding).
            for arguments in [["remux"], ["strip-spatial"], ["select"], ["extract", "--track", "2"]] {
                let output = folder.path("\(arguments[0])-\(item.name)")
                let result = runCLI(Array(arguments.prefix(1)) + [input, output] + arguments.dropFirst())
                XCTAssertEqual(result.code, 0, "\(arguments) \(item.name): \(result.error)")
                XCTAssertEqual(result.error.contains("note: \(sentence)") && result.error.contains("not carried into the output"), item.warns,
                               "\(arguments) \(item.name): \(result.error)")
            }
        }
    }

    /// `fix IN OUT` reports the note too, in text and in the --report JSON.
    func testFixNotesUnreferencedBytesInItsReport() throws {
        let folder = TemporaryFolder()
        var options = FixtureOptions()
        options.enabled = .both
        let input = try Self.movie(withUnreferenced: [UInt8](repeating: 7, count: 3000), in: folder, name: "stray-both.mov", options: options)
        let mdat = try XCTUnwrap(Self.mdats(input).first)
        let report = folder.path("report.json")
        let result = runCLI(["fix", input, folder.path("fixed.mov"), "--report", report])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.error.contains("note: mdat at \(mdat.offset): 3,000 of"), result.error)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: fileBytes(report)) as? [String: Any])
        let notes = try XCTUnwrap((document["rows"] as? [[String: Any]])?.first?["notes"] as? [String])
        XCTAssertTrue(notes.contains { $0.contains("3,000 of") && $0.contains("not carried") }, "\(notes)")
    }

    /// ffmpeg's fragmented flavours: every byte ffprobe reads as a packet is either a sample keeptrack
    /// reads or counted as unreferenced, and the account adds up to the mdats' payload exactly.
    func testFragmentedMovieNeverLosesMediaSilently() throws {
        let folder = TemporaryFolder()
        for flags in ["frag_keyframe+empty_moov", "frag_keyframe", "frag_keyframe+empty_moov+default_base_moof"] {
            let path = folder.path("\(flags).mp4")
            let made = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=2:size=160x120:rate=15",
                                                      "-f", "lavfi", "-i", "sine=duration=2:sample_rate=48000", "-c:v", "libx264",
                                                      "-preset", "ultrafast", "-g", "10", "-c:a", "aac", "-movflags", flags, path]))
            XCTAssertEqual(made.code, 0)
            let movie = try Movie.open(path: path)
            let mdats = try Self.mdats(path)
            var inMdat: UInt64 = 0
            for track in movie.tracks {
                for sample in track.sampleTable.samples {
                    let end = sample.offset + UInt64(sample.size)
                    if mdats.contains(where: { sample.offset >= $0.offset + 8 && end <= $0.offset + 8 + $0.payload }) { inMdat += UInt64(sample.size) }
                }
            }
            let account = MediaDataAccount(movie: movie)
            let payload = mdats.reduce(UInt64(0)) { $0 + $1.payload }
            XCTAssertEqual(account.unreferencedBytes + inMdat, payload, flags)
            var packets: UInt64 = 0
            for stream in try FFprobe.probe(path).streams { for packet in stream.packets { packets += UInt64(packet.size) } }
            XCTAssertLessThanOrEqual(packets, inMdat + account.unreferencedBytes, "\(flags): media ffprobe reads is neither read nor reported")
            if inMdat < packets {
                // Samples keeptrack does not read: inspect, lint and remux say so.
                XCTAssertTrue(runCLI(["inspect", path]).out.contains("warning unreferenced-media-data"), flags)
                XCTAssertTrue(runCLI(["lint", path]).out.contains("unreferenced-media-data"), flags)
                let remux = runCLI(["remux", path, folder.path("remux-\(flags).mp4")])
                XCTAssertTrue(remux.error.contains("not referenced by any sample") && remux.error.contains("not carried"), "\(flags): \(remux.error)")
            }
        }
    }
}
