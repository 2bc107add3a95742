import Foundation
import XCTest
@testable import KeepTrack

/// Every command keeps movie and track metadata as exiftool (`-a -G1 -ee`, every embedded timed
/// sample) reads it, except the fields the command's job is to change, listed per command below.
final class MetadataKeptTests: XCTestCase {
    /// exiftool's reading of a movie: `group|tag` → its values in file order. Track groups are named by
    /// track id (`track#3`), not by position, so a removed track does not shift the others.
    struct ExifView {
        var fields: [String: [String]] = [:]
        /// Per track id, the tags that only `-ee` shows (each timed sample's values).
        var sampleTags: [String: Set<String>] = [:]

        static func read(_ path: String) throws -> ExifView {
            let withSamples = try groups(path, embedded: true), without = try groups(path, embedded: false)
            var view = ExifView()
            for (group, items) in withSamples {
                for (tag, value) in items { view.fields[group + "|" + tag, default: []].append(value) }
                let plainItems = without.first { $0.0 == group }?.1 ?? []
                let plain = Dictionary(grouping: plainItems, by: \.0).mapValues(\.count)
                let counted = Dictionary(grouping: items, by: \.0).mapValues(\.count)
                view.sampleTags[group] = Set(counted.filter { $0.value > plain[$0.key, default: 0] }.keys)
            }
            return view
        }

        static func groups(_ path: String, embedded: Bool) throws -> [(String, [(String, String)])] {
            guard let result = runTool("exiftool", ["-a", "-G1"] + (embedded ? ["-ee"] : []) + [path]) else { throw unavailable("exiftool not installed") }
            XCTAssertEqual(result.code, 0, "exiftool on \(path)")
            var groups: [(String, [(String, String)])] = []
            for line in result.out.split(separator: "\n") {
                guard line.hasPrefix("["), let close = line.firstIndex(of: "]"), let colon = line.range(of: ": ") else { continue }
                let group = String(line[line.index(after: line.startIndex)..<close])
                guard !["System", "File", "ExifTool"].contains(group) else { continue }
                let tag = line[line.index(after: close)..<colon.lowerBound].trimmingCharacters(in: .whitespaces)
                if groups.last?.0 != group { groups.append((group, [])) }
                groups[groups.count - 1].1.append((tag, String(line[colon.upperBound...])))
            }
            // TrackN → track#ID (the Track ID line of the group).
            return groups.map { group, items in
                guard group.hasPrefix("Track"), Int(group.dropFirst(5)) != nil, let id = items.first(where: { $0.0 == "Track ID" })?.1 else { return (group, items) }
                return ("track#" + id, items)
            }
        }
    }

    /// Where the mdat is and the bitrate exiftool derives from it: every rewrite changes them.
    static let layoutFields: Set<String> = ["QuickTime|Media Data Size", "QuickTime|Media Data Offset", "Composite|Avg Bitrate"]

    /// What a cut changes: the movie's duration (and time scale, chosen so the cut is exact), each track's
    /// durations and the timed samples outside the cut.
    static func cutChanges(_ source: ExifView) -> (String) -> Bool {
        { key in
            if ["QuickTime|Duration", "QuickTime|Time Scale"].contains(key) { return true }
            let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].hasPrefix("track#") else { return false }
            return ["Track Duration", "Media Duration"].contains(parts[1]) || source.sampleTags[parts[0], default: []].contains(parts[1])
        }
    }

    /// Every field of `output` equals `input`'s, except layout fields, fields of `removedTracks`
    /// (which must all be gone) and those `expected` allows.
    static func assertKept(_ input: String, _ output: String, command: String, removedTracks: Set<String> = [],
                           expected: (String) -> Bool = { _ in false }, file: StaticString = #filePath, line: UInt = #line) throws {
        let unexpected = try unexpectedChanges(input, output, removedTracks: removedTracks, expected: expected)
        XCTAssertEqual(unexpected, [], "\(command) on \((input as NSString).lastPathComponent)", file: file, line: line)
    }

    static func unexpectedChanges(_ input: String, _ output: String, removedTracks: Set<String> = [], expected: (String) -> Bool = { _ in false }) throws -> [String] {
        let (a, b) = (try ExifView.read(input), try ExifView.read(output))
        XCTAssertGreaterThan(a.fields.count, 20, "exiftool read \(input)")
        var unexpected: [String] = []
        for key in Set(a.fields.keys).union(b.fields.keys).sorted() where !layoutFields.contains(key) {
            let track = key.split(separator: "|").first.map(String.init) ?? ""
            if removedTracks.contains(track) {
                if b.fields[key] != nil { unexpected.append("\(key) of a removed track is still there") }
                continue
            }
            if a.fields[key] != b.fields[key] && !expected(key) {
                unexpected.append("\(key): \(a.fields[key]?.prefix(3).description ?? "absent") → \(b.fields[key]?.prefix(3).description ?? "absent")")
            }
        }
        return unexpected
    }

    func run(_ arguments: [String]) {
        let result = runCLI(arguments)
        XCTAssertEqual(result.code, 0, "\(arguments.joined(separator: " ")): \(result.error)")
    }

    func testEveryCommandKeepsTheRealRecordingsMetadata() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let source = try ExifView.read(input)
        XCTAssertNotNil(source.fields["Keys|GPS Coordinates"])
        XCTAssertNotNil(source.fields["track#1|Camera Lens Model (und-CA)"])

        run(["remux", input, folder.path("remux.mov")])
        try Self.assertKept(input, folder.path("remux.mov"), command: "remux")

        // The comparison sees a removed field: after scrub, exactly the location fields differ.
        run(["scrub", input, folder.path("scrub.mov")])
        let scrubbed = try Self.unexpectedChanges(input, folder.path("scrub.mov"))
        XCTAssertTrue(scrubbed.contains { $0.hasPrefix("Keys|GPS Coordinates") }, "\(scrubbed)")
        XCTAssertEqual(scrubbed.filter { !$0.contains("GPS") && !$0.contains("Location") }, [], "scrub changed only location fields")

        // fix has work only where a group plays two tracks: the recording with its spatial track enabled too.
        let both = folder.path("both-enabled.mov")
        var bytes = [UInt8](try fileBytes(input))
        let spatial = try XCTUnwrap(try Movie.open(path: input).tracks.first(where: \.isSpatialAudio))
        let flags = Int(try XCTUnwrap(spatial.box.first("tkhd")).offset) + 8 + 3
        bytes[flags] |= 1
        try Data(bytes).write(to: URL(fileURLWithPath: both))
        run(["fix", both, folder.path("fix.mov")])
        try Self.assertKept(both, folder.path("fix.mov"), command: "fix")

        run(["strip-spatial", input, folder.path("strip.mov")])
        try Self.assertKept(input, folder.path("strip.mov"), command: "strip-spatial", removedTracks: ["track#\(spatial.id)"])
        run(["select", input, folder.path("select.mov")])
        try Self.assertKept(input, folder.path("select.mov"), command: "select", removedTracks: ["track#\(spatial.id)"])

        run(["extract", input, folder.path("extract.mov"), "--track", "1"])
        try Self.assertKept(input, folder.path("extract.mov"), command: "extract", removedTracks: Set((2...9).map { "track#\($0)" }))

        run(["trim", input, folder.path("trim.mov"), "--start", "0.5", "--end", "1.5"])
        try Self.assertKept(input, folder.path("trim.mov"), command: "trim", expected: Self.cutChanges(source))
        run(["split", input, "--at", "1", "--out-dir", folder.path("pieces")])
        let pieces = try FileManager.default.contentsOfDirectory(atPath: folder.path("pieces")).sorted()
        XCTAssertEqual(pieces.count, 2)
        for piece in pieces { try Self.assertKept(input, folder.path("pieces/" + piece), command: "split", expected: Self.cutChanges(source)) }

        // transcode re-encodes the picture (smaller, H.264, tone-mapped to SDR BT.709): the video sample
        // entry's fields change with it; every other field, the location and lens among them, stays.
        run(["transcode", input, folder.path("transcode.mov"), "--preset", "ultrafast", "--max-size", "320x320"])
        let pictureFields: Set<String> = ["Composite|Image Size", "Composite|Megapixels", "track#1|Clean Aperture Dimensions", "track#1|Color Primaries",
            "track#1|Color Profiles", "track#1|Compressor ID", "track#1|Compressor Name", "track#1|Encoded Pixels Dimensions", "track#1|Image Height",
            "track#1|Image Width", "track#1|Matrix Coefficients", "track#1|Production Aperture Dimensions", "track#1|Source Image Height",
            "track#1|Source Image Width", "track#1|Transfer Characteristics"]
        try Self.assertKept(input, folder.path("transcode.mov"), command: "transcode", expected: pictureFields.contains)
    }

    func testCommandsKeepWildMoviesMetadata() throws {
        let goPro = try RealFixtures.require(ScrubTests.goPro)
        let stereo = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/androidx-media/water_180_mvhevc_5frames.mov").path)
        let tagged = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/androidx-media/sample_with_metadata.mp4").path)
        let folder = TemporaryFolder()
        for (index, input) in [goPro, tagged].enumerated() {
            let source = try ExifView.read(input)
            run(["remux", input, folder.path("remux-\(index).mp4")])
            try Self.assertKept(input, folder.path("remux-\(index).mp4"), command: "remux")
            run(["trim", input, folder.path("trim-\(index).mp4"), "--start", "0.2", "--end", "0.8"])
            try Self.assertKept(input, folder.path("trim-\(index).mp4"), command: "trim", expected: Self.cutChanges(source))
        }
        run(["flatten-stereo", stereo, folder.path("flat.mov")])
        try Self.assertKept(stereo, folder.path("flat.mov"), command: "flatten-stereo")
    }
}
