import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Helpers for the alternate-group operation tests: sample bytes, lint ids, ffprobe streams.
enum GroupCheck {
    /// Every sample of track `id` as stored in the file, in decode order, with its timing.
    static func samples(_ path: String, track id: UInt32) throws -> [(bytes: [UInt8], time: UInt64, composition: Int64, sync: Bool)] {
        let movie = try Movie.open(path: path)
        let track = try XCTUnwrap(movie.track(id: id), "\(path) has no track \(id)")
        return try track.sampleTable.samples.map { sample in
            (try movie.source.read(at: sample.offset, count: Int(sample.size)), sample.decodeTime, sample.compositionOffset, sample.isSync)
        }
    }

    /// Asserts that each kept track of `output` carries the same sample bytes and timing as in `source`.
    static func assertSamplesIdentical(_ source: String, _ output: String, tracks ids: [UInt32], file: StaticString = #filePath, line: UInt = #line) throws {
        for id in ids {
            let before = try samples(source, track: id)
            let after = try samples(output, track: id)
            XCTAssertEqual(before.count, after.count, "track \(id) sample count", file: file, line: line)
            XCTAssertFalse(before.isEmpty, "track \(id) has samples", file: file, line: line)
            for (a, b) in zip(before, after) where a.bytes != b.bytes || a.time != b.time || a.composition != b.composition || a.sync != b.sync {
                XCTFail("track \(id): a sample differs", file: file, line: line)
                break
            }
        }
    }

    /// Rule ids found in a file, sorted.
    static func ruleIDs(_ path: String) -> [String] {
        Linter.lint(path: path).findings.map(\.rule.id).sorted()
    }

    /// Whether tracks are enabled, and their groups, by id.
    static func flags(_ path: String) throws -> [UInt32: (enabled: Bool, group: UInt16)] {
        var result: [UInt32: (Bool, UInt16)] = [:]
        for track in try Movie.open(path: path).tracks { result[track.id] = (track.isEnabled, track.alternateGroup) }
        return result
    }

    struct ProbedStream: Equatable {
        var type: String
        var tag: String
        var isDefault: Bool
    }

    /// The streams ffprobe sees (type, codec tag, default disposition); skips when ffprobe is absent.
    static func probe(_ path: String) throws -> [ProbedStream] {
        guard let result = runTool("ffprobe", ["-v", "error", "-show_streams", "-of", "json", path]) else { throw unavailable("ffprobe not installed") }
        XCTAssertEqual(result.code, 0, "ffprobe failed on \(path)")
        let object = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any]
        let streams = object?["streams"] as? [[String: Any]] ?? []
        return streams.map { stream in
            let disposition = stream["disposition"] as? [String: Any]
            return ProbedStream(type: stream["codec_type"] as? String ?? "?", tag: stream["codec_tag_string"] as? String ?? "?",
                                isDefault: (disposition?["default"] as? Int) == 1)
        }
    }

    /// Writes a builder movie with `options` into `folder`.
    static func write(_ options: FixtureOptions, named name: String, in folder: TemporaryFolder) throws -> String {
        try FixtureBuilder(options).write(to: folder.path(name))
    }
}
