import Foundation
import XCTest
@testable import KeepTrack

/// The independent-client helpers (ProbeSupport.swift) on a movie ffmpeg writes here: they see
/// every track and packet, agree with themselves after a lossless remux, and name the first
/// packet that differs when one byte of one sample changes.
final class ProbeSupportTests: XCTestCase {
    /// 2 s of H.264 with B-frames at 25 fps plus two AAC tracks (stereo 48 kHz, mono 44.1 kHz).
    static func ffmpegMovie(in folder: TemporaryFolder, name: String = "ffmpeg.mp4", extra: [String] = []) throws -> String {
        let output = folder.path(name)
        let result = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-y",
                                                      "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2",
                                                      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                                                      "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=2",
                                                      "-map", "0", "-map", "1", "-map", "2", "-ac:a:0", "2", "-ac:a:1", "1",
                                                      "-c:v", "libx264", "-bf", "2", "-g", "12", "-c:a", "aac"] + extra + [output]),
                                   "ffmpeg is installed by scripts/setup.sh")
        XCTAssertEqual(result.code, 0, result.out)
        return output
    }

    func testProbeSeesEveryTrackAndPacket() throws {
        let folder = TemporaryFolder()
        let path = try Self.ffmpegMovie(in: folder)
        let report = try FFprobe.probe(path)
        XCTAssertEqual(report.streams.map(\.codecType), ["video", "audio", "audio"])
        XCTAssertEqual(report.streams.map(\.codecTag), ["avc1", "mp4a", "mp4a"])
        XCTAssertEqual(report.streams.map(\.trackID), [1, 2, 3])
        XCTAssertEqual(report.streams.map(\.channels), [nil, 2, 1])
        XCTAssertEqual(report.streams.map(\.sampleRate), [nil, 48000, 44100])
        XCTAssertEqual(try XCTUnwrap(report.duration), 2, accuracy: 0.1)
        let movie = try Movie.open(path: path)
        for (stream, track) in zip(report.streams, movie.tracks) {
            XCTAssertEqual(stream.packets.count, Int(track.sampleTable.sampleCount), stream.label)
            XCTAssertEqual(stream.frameCount, stream.packets.count, stream.label)
            XCTAssertEqual(stream.packets.map(\.size), track.sampleTable.samples.map { Int($0.size) }, stream.label)
            XCTAssertEqual(stream.packets.filter(\.isKey).count, track.sampleTable.samples.filter(\.isSync).count, stream.label)
            XCTAssertTrue(stream.packets.allSatisfy { $0.hash.hasPrefix("SHA256:") && $0.hash.count == 7 + 64 }, stream.label)
            XCTAssertNil(FFprobe.difference(stream, stream))
        }
        // B-frames: presentation differs from decode order somewhere.
        XCTAssertTrue(report.streams[0].packets.contains { $0.pts != $0.dts })
        // Without packets: the same streams, no packet lists.
        let facts = try FFprobe.probe(path, packets: false)
        XCTAssertEqual(facts.streams.map(\.codecTag), report.streams.map(\.codecTag))
        XCTAssertTrue(facts.streams.allSatisfy(\.packets.isEmpty))

        let info = try MediaInfo.report(path)
        XCTAssertEqual(info.tracks.map(\.kind), ["Video", "Audio", "Audio"])
        XCTAssertEqual(info.tracks.map(\.channels), [nil, 2, 1])
        XCTAssertEqual(try XCTUnwrap(info.duration), 2, accuracy: 0.1)
        for track in info.tracks { XCTAssertEqual(try XCTUnwrap(track.duration), 2, accuracy: 0.1) }
        XCTAssertNil(MediaInfo.difference(info.tracks, info.tracks, tolerance: 0))
    }

    /// A remux keeps every packet; one changed byte in the 6th sample of track 2 is named as
    /// packet 5 of that stream, and only that stream differs.
    func testDifferenceNamesTheFirstChangedPacket() throws {
        let folder = TemporaryFolder()
        let path = try Self.ffmpegMovie(in: folder)
        let remuxed = folder.path("remuxed.mp4")
        let remux = runCLI(["remux", path, remuxed])
        XCTAssertEqual(remux.code, 0, remux.error)
        let before = try FFprobe.probe(path)
        let after = try FFprobe.probe(remuxed)
        for (a, b) in zip(before.streams, after.streams) { FFprobe.assertSamePackets(a, b, "remux") }
        XCTAssertNil(MediaInfo.difference(try MediaInfo.report(path).tracks, try MediaInfo.report(remuxed).tracks, tolerance: 0))

        var bytes = try fileBytes(path)
        let sample = try XCTUnwrap(Array(XCTUnwrap(Movie.open(path: path).track(id: 2)).sampleTable.samples.prefix(6)).last)
        bytes[Int(sample.offset) + 1] ^= 0x40
        let damaged = folder.path("damaged.mp4")
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let changed = try FFprobe.probe(damaged)
        XCTAssertNil(FFprobe.difference(before.streams[0], changed.streams[0]))
        XCTAssertNil(FFprobe.difference(before.streams[2], changed.streams[2]))
        let difference = try XCTUnwrap(FFprobe.difference(before.streams[1], changed.streams[1]))
        XCTAssertTrue(difference.hasPrefix("packet 5 of"), difference)

        // A lost last packet: the counts and the first unmatched packet.
        let shorter = Array(before.streams[1].packets.dropLast())
        let lost = try XCTUnwrap(FFprobe.difference(before.streams[1].packets, shorter))
        XCTAssertTrue(lost.contains("\(shorter.count + 1) packets ≠ \(shorter.count) packets"), lost)

        // mediainfo: a missing track and a shorter duration are differences.
        let info = try MediaInfo.report(path).tracks
        XCTAssertNotNil(MediaInfo.difference(info, Array(info.dropLast()), tolerance: 0.1))
        var shortened = info
        shortened[1].duration = (shortened[1].duration ?? 0) - 0.5
        XCTAssertNotNil(MediaInfo.difference(info, shortened, tolerance: 0.1))
    }

    /// The comparison leaves out what ffprobe derives: the last packet's duration (stream duration
    /// − dts), and PCM packet boundaries (chunks) — PCM compares as one stream of bytes.
    func testComparisonRulesForDerivedValues() throws {
        let folder = TemporaryFolder()
        let path = try Self.ffmpegMovie(in: folder)
        let video = try XCTUnwrap(FFprobe.probe(path).streams.first)
        var changed = video
        changed.packets[changed.packets.count - 1].duration = 1
        XCTAssertNil(FFprobe.difference(video, changed), "the last packet's duration is ffprobe's estimate")
        changed.packets[3].duration = (changed.packets[3].duration ?? 0) + 1
        XCTAssertNotNil(FFprobe.difference(video, changed))

        let pcm = folder.path("pcm.mov")
        let ffmpeg = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", path, "-map", "0:v", "-map", "0:a:0",
                                                      "-c:v", "copy", "-c:a", "pcm_s16le", pcm]))
        XCTAssertEqual(ffmpeg.code, 0, ffmpeg.out)
        let remuxed = folder.path("pcm-remuxed.mov")
        XCTAssertEqual(runCLI(["remux", pcm, remuxed]).code, 0)
        let before = try XCTUnwrap(FFprobe.probe(pcm).stream(track: 2))
        let after = try XCTUnwrap(FFprobe.probe(remuxed).stream(track: 2))
        XCTAssertEqual(before.codecName, "pcm_s16le")
        XCTAssertNil(FFprobe.difference(before, after))
        XCTAssertNotNil(FFprobe.streamHash(before))

        var bytes = try fileBytes(remuxed)
        let sample = try XCTUnwrap(Array(XCTUnwrap(Movie.open(path: remuxed).track(id: 2)).sampleTable.samples.prefix(2000)).last)
        bytes[Int(sample.offset)] ^= 0x01
        let damaged = folder.path("pcm-damaged.mov")
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let difference = try XCTUnwrap(FFprobe.difference(before, try XCTUnwrap(FFprobe.probe(damaged).stream(track: 2))))
        XCTAssertTrue(difference.hasPrefix("PCM: stream data"), difference)
    }
}
