import Foundation
import XCTest
@testable import KeepTrack

/// `--init INIT SEGMENT...`: an init segment and its media segments (as ffmpeg's DASH and HLS fMP4
/// muxers store a rendition) read as one fragmented movie by inspect, remux, extract and trim; the
/// packets equal ffprobe's reading of the init segment and the segments concatenated into one file.
final class SegmentInputTests: XCTestCase {
    struct Rendition {
        var initSegment: String
        var segments: [String]
        /// `cat INIT SEGMENTS > joined.mp4`: what ffprobe reads as the reference.
        var joined: String
    }

    static func ffmpeg(_ arguments: [String]) throws {
        guard let result = runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25",
                                               "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "3",
                                               "-c:v", "libx264", "-g", "25", "-bf", "2", "-c:a", "aac"] + arguments) else {
            throw unavailable("ffmpeg is not installed")
        }
        XCTAssertEqual(result.code, 0, result.out)
    }

    static func files(in folder: String, prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(prefix) }.sorted().map { folder + "/" + $0 }
    }

    static func join(_ initSegment: String, _ segments: [String], to path: String) throws -> Rendition {
        var bytes = try fileBytes(initSegment)
        for segment in segments { bytes += try fileBytes(segment) }
        try bytes.write(to: URL(fileURLWithPath: path))
        return Rendition(initSegment: initSegment, segments: segments, joined: path)
    }

    /// ffmpeg -f dash: one init segment and numbered media segments (styp, sidx, moof, mdat) per stream.
    static func dash(in folder: TemporaryFolder) throws -> [Rendition] {
        let dash = folder.path("dash")
        try FileManager.default.createDirectory(atPath: dash, withIntermediateDirectories: true)
        try ffmpeg(["-f", "dash", "-seg_duration", "1", dash + "/manifest.mpd"])
        return try (0...1).map { stream in
            let segments = try files(in: dash, prefix: "chunk-stream\(stream)-")
            XCTAssertGreaterThanOrEqual(segments.count, 3)
            return try join(dash + "/init-stream\(stream).m4s", segments, to: folder.path("dash-\(stream).mp4"))
        }
    }

    /// ffmpeg -f hls -hls_segment_type fmp4: init.mp4 and media segments holding video and audio.
    static func hls(in folder: TemporaryFolder) throws -> Rendition {
        let hls = folder.path("hls")
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        try ffmpeg(["-f", "hls", "-hls_segment_type", "fmp4", "-hls_time", "1", "-hls_playlist_type", "vod", hls + "/playlist.m3u8"])
        let playlist = try String(contentsOfFile: hls + "/playlist.m3u8", encoding: .utf8)
        let segments = playlist.split(separator: "\n").filter { $0.hasSuffix(".m4s") }.map { hls + "/" + $0 }
        XCTAssertGreaterThanOrEqual(segments.count, 3)
        return try join(hls + "/init.mp4", segments, to: folder.path("hls.mp4"))
    }

    /// Read end to end, a box of size 0 ran to the end of the last segment and a box claiming past its file took the
    /// next file's bytes: an init moov of size 0 (legal, the file's last box) swallowed every segment and remux wrote
    /// 0 samples, exit 0; a middle segment's mdat of size 0 swallowed the segments after it (141 of 217 samples).
    /// Each now ends with its file: ffprobe reads the remux with every packet of the undamaged rendition. An mdat
    /// claiming more than its file holds is refused, naming the segment.
    func testEveryBoxEndsWithItsSegment() throws {
        let folder = TemporaryFolder()
        let rendition = try Self.hls(in: folder)
        let reference = try FFprobe.probe(rendition.joined)
        func copy(_ path: String, as name: String, _ change: (inout [UInt8]) -> Void) throws -> String {
            var bytes = [UInt8](try fileBytes(path))
            change(&bytes)
            let copy = folder.path(name)
            try Data(bytes).write(to: URL(fileURLWithPath: copy))
            return copy
        }
        func topLevel(_ bytes: [UInt8], _ type: String) -> Int? {
            var offset = 0
            while offset + 8 <= bytes.count {
                let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == type { return offset }
                guard size >= 8 else { return nil }
                offset += size
            }
            return nil
        }
        let initMoovToEnd = try copy(rendition.initSegment, as: "init-moov-0.mp4") { bytes in
            guard let moov = topLevel(bytes, "moov") else { return XCTFail("no moov") }
            XCTAssertEqual(moov + (bytes[moov..<moov + 4].reduce(0) { $0 << 8 | Int($1) }), bytes.count, "moov is the init segment's last box")
            bytes.replaceSubrange(moov..<moov + 4, with: [0, 0, 0, 0])
        }
        let mdatToEnd = try copy(rendition.segments[1], as: "seg-mdat-0.m4s") { bytes in
            guard let mdat = topLevel(bytes, "mdat") else { return XCTFail("no mdat") }
            bytes.replaceSubrange(mdat..<mdat + 4, with: [0, 0, 0, 0])
        }
        var middle = rendition.segments
        middle[1] = mdatToEnd
        for (name, initSegment, segments) in [("init", initMoovToEnd, rendition.segments), ("middle", rendition.initSegment, middle)] {
            let output = folder.path("remux-\(name).mp4")
            let run = runCLI(["remux", "--init", initSegment] + segments + [output])
            XCTAssertEqual(run.code, 0, "\(name): \(run.error)")
            let written = try FFprobe.probe(output)
            XCTAssertEqual(written.streams.map(\.packets.count), reference.streams.map(\.packets.count), name)
            XCTAssertEqual(written.streams.map { $0.packets.map(\.hash) }, reference.streams.map { $0.packets.map(\.hash) }, name)
        }
        let mdatTooLong = try copy(rendition.segments[1], as: "seg-mdat-huge.m4s") { bytes in
            guard let mdat = topLevel(bytes, "mdat") else { return XCTFail("no mdat") }
            bytes.replaceSubrange(mdat..<mdat + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        }
        middle[1] = mdatTooLong
        let refused = runCLI(["remux", "--init", rendition.initSegment] + middle + [folder.path("refused.mp4")])
        XCTAssertEqual(refused.code, 65, refused.error)
        XCTAssertTrue(refused.error.contains("seg-mdat-huge.m4s is cut short: the box claims 4294967295 bytes"), refused.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("refused.mp4")))
    }

    /// Segments given in another order, or one twice: read as they came, each sample before a fragment that went back
    /// in time got a duration of 0 and remux wrote a movie running from the last segment's time, exit 0, no note. Each
    /// fragment's tfdt says where it belongs: one before the previous sample starts is refused, naming it.
    func testSegmentsOutOfOrderOrRepeatedAreRefused() throws {
        let folder = TemporaryFolder()
        let rendition = try Self.hls(in: folder)
        for (name, segments) in [("reversed", Array(rendition.segments.reversed())), ("repeated", [rendition.segments[0], rendition.segments[0]] + rendition.segments.dropFirst())] {
            let output = folder.path("\(name).mp4")
            let run = runCLI(["remux", "--init", rendition.initSegment] + segments + [output])
            XCTAssertEqual(run.code, 65, "\(name): \(run.error)")
            XCTAssertTrue(run.error.contains("/traf/tfdt at byte") && run.error.contains("the fragments are out of order or repeated"), run.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), name)
        }
        XCTAssertEqual(runCLI(["remux", "--init", rendition.initSegment] + rendition.segments + [folder.path("in-order.mp4")]).code, 0)
    }

    /// A media segment left out was read as the sample before it lasting through the gap, exit 0 and no note (second
    /// damage sweep). The time is right (the segments after it keep their times, as ffprobe reads the concatenation), so
    /// it is kept, and said: a note of every writing command, a `fragment-time-gap` warning of inspect and lint.
    func testMissingSegmentIsKeptAsAGapAndSaid() throws {
        let folder = TemporaryFolder()
        let rendition = try Self.hls(in: folder)
        let whole = runCLI(["remux", "--init", rendition.initSegment] + rendition.segments + [folder.path("whole.mp4")])
        XCTAssertEqual(whole.code, 0, whole.error)
        XCTAssertFalse(whole.error.contains("in decode time"), "no gap without a missing segment: \(whole.error)")
        let kept = [rendition.segments[0]] + rendition.segments.dropFirst(2)
        let gapped = try Self.join(rendition.initSegment, kept, to: folder.path("gapped-joined.mp4"))
        let output = folder.path("gapped.mp4")
        let run = runCLI(["remux", "--init", rendition.initSegment] + kept + [output])
        XCTAssertEqual(run.code, 0, run.error)
        for track in [1, 2] {
            XCTAssertTrue(run.error.contains("note: track \(track): 1 gap in decode time, the longest "), run.error)
        }
        XCTAssertTrue(run.error.contains("a fragment or segment missing?"), run.error)
        // trim printed only the dropped sidx boxes.
        let trim = runCLI(["trim", "--init", rendition.initSegment] + kept + [folder.path("gapped-trim.mp4"), "--start", "0.5", "--end", "2.5"])
        XCTAssertEqual(trim.code, 0, trim.error)
        XCTAssertTrue(trim.error.contains("note: track 1: 1 gap in decode time, the longest "), trim.error)
        let inspect = runCLI(["inspect", "--init", rendition.initSegment] + kept)
        XCTAssertEqual(inspect.code, 0, inspect.error)
        XCTAssertEqual(inspect.out.components(separatedBy: "warning fragment-time-gap: moof[2]/").count - 1, 2, inspect.out)
        // Every packet at the time and with the bytes ffprobe reads from the concatenated segments; fewer than the whole.
        let reference = try FFprobe.probe(gapped.joined), written = try FFprobe.probe(output), all = try FFprobe.probe(rendition.joined)
        for stream in reference.streams {
            let copy = try XCTUnwrap(written.stream(track: try XCTUnwrap(stream.trackID)))
            XCTAssertEqual(copy.packets.map(\.hash), stream.packets.map(\.hash), stream.label)
            XCTAssertEqual(copy.packets.map(\.dts), stream.packets.map(\.dts), stream.label)
            let complete = try XCTUnwrap(all.stream(track: try XCTUnwrap(stream.trackID)))
            XCTAssertLessThan(copy.packets.count, complete.packets.count, stream.label)
            XCTAssertEqual(copy.packets.last?.pts, complete.packets.last?.pts, "\(stream.label): the end keeps its time")
        }
    }

    /// The audio rendition's segments given under the video's init segment were read as H.264 samples, exit 0 (second
    /// damage sweep); ffmpeg decodes no frame of the concatenation. The first sample is not NAL units: refused, naming it.
    func testSegmentsOfAnotherRenditionAreRefused() throws {
        let folder = TemporaryFolder()
        let renditions = try Self.dash(in: folder)
        let foreign = try Self.join(renditions[0].initSegment, renditions[1].segments, to: folder.path("foreign.mp4"))
        XCTAssertTrue((try? Shown.frames(foreign.joined, stream: 0, audio: false))?.isEmpty ?? true, "ffmpeg decodes no picture")
        let output = folder.path("foreign-remux.mp4")
        let run = runCLI(["remux", "--init", renditions[0].initSegment] + renditions[1].segments + [output])
        XCTAssertEqual(run.code, 65, run.error)
        XCTAssertTrue(run.error.contains("stsd/avc1/avcC at byte ") && run.error.contains("is not NAL units with the 4-byte lengths avcC says")
                      && run.error.contains("the media segments do not belong to \(renditions[0].initSegment)"), run.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        let own = runCLI(["remux", "--init", renditions[0].initSegment] + renditions[0].segments + [output])
        XCTAssertEqual(own.code, 0, own.error)
    }

    func testRemuxOfInitAndSegmentsHasThePacketsOfTheJoinedFile() throws {
        let folder = TemporaryFolder()
        for rendition in try Self.dash(in: folder) + [try Self.hls(in: folder)] {
            let output = folder.path("remuxed-\((rendition.joined as NSString).lastPathComponent)")
            let result = runCLI(["remux", "--init", rendition.initSegment] + rendition.segments + [output])
            XCTAssertEqual(result.code, 0, result.error)
            let reference = try FFprobe.probe(rendition.joined)
            let written = try FFprobe.probe(output)
            XCTAssertEqual(written.streams.count, reference.streams.count)
            XCTAssertFalse(try Movie.open(path: output).isFragmented, "the output is progressive")
            for stream in reference.streams {
                let copy = try XCTUnwrap(written.stream(track: try XCTUnwrap(stream.trackID)))
                XCTAssertGreaterThan(stream.packets.count, 20)
                if let difference = FFprobe.difference(fragmented: stream, copy) {
                    XCTFail("\(rendition.joined): \(stream.label): \(difference)")
                }
            }
        }
    }

    func testInspectReadsTheSegmentsAsOneMovie() throws {
        let folder = TemporaryFolder()
        let rendition = try Self.hls(in: folder)
        let result = runCLI(["inspect", "--json", "--init", rendition.initSegment] + rendition.segments)
        XCTAssertEqual(result.code, 0, result.error)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        XCTAssertEqual(json["file"] as? String, rendition.initSegment)
        XCTAssertEqual(json["fragments"] as? Int, rendition.segments.count, "one moof per segment")
        let reference = try FFprobe.probe(rendition.joined)
        let movie = try Movie.open(initSegment: rendition.initSegment, segments: rendition.segments)
        for stream in reference.streams {
            let track = try XCTUnwrap(movie.track(id: try XCTUnwrap(stream.trackID)))
            XCTAssertEqual(track.sampleTable.sampleCount, stream.packets.count, stream.label)
        }
    }

    /// extract and trim take the same inputs; their output equals what they make of the joined file.
    func testExtractAndTrimOfSegmentsEqualTheirOutputFromTheJoinedFile() throws {
        let folder = TemporaryFolder()
        let rendition = try Self.hls(in: folder)
        let inputs = ["--init", rendition.initSegment] + rendition.segments
        let cases: [(name: String, arguments: [String])] = [("audio.m4a", ["extract", "--track", "2"]),
                                                            ("piece.mp4", ["trim", "--start", "0.8", "--end", "2.2"])]
        for (name, arguments) in cases {
            let fromSegments = folder.path("segments-" + name), fromJoined = folder.path("joined-" + name)
            let first = runCLI(arguments + inputs + [fromSegments])
            XCTAssertEqual(first.code, 0, first.error)
            XCTAssertEqual(runCLI(arguments + [rendition.joined, fromJoined]).code, 0)
            let (a, b) = (try FFprobe.probe(fromSegments), try FFprobe.probe(fromJoined))
            XCTAssertEqual(a.streams.count, b.streams.count, name)
            for (x, y) in zip(a.streams, b.streams) {
                XCTAssertGreaterThan(x.packets.count, 10, name)
                FFprobe.assertSamePackets(x, y, name)
            }
        }
    }

    /// A bare media segment (ours and the wild ones) names --init; wrong inputs say what is wrong.
    func testBareSegmentNamesInitAndWrongInputsAreRefused() throws {
        let folder = TemporaryFolder()
        let rendition = try Self.hls(in: folder)
        for wild in ["eyevinn-mp4ff/aac_1.m4s", "androidx-media/video_1.m4s"] {
            let bare = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/" + wild).path)
            let result = runCLI(["inspect", bare])
            XCTAssertEqual(result.code, 65)
            XCTAssertTrue(result.error.contains("--init"), result.error)
        }
        let ours = runCLI(["remux", rendition.segments[0], folder.path("x.mp4")])
        XCTAssertEqual(ours.code, 65)
        XCTAssertTrue(ours.error.contains("media segment") && ours.error.contains("--init"), ours.error)
        // Several inputs without --init, a movie as a segment, a segment as the init segment.
        XCTAssertEqual(runCLI(["remux"] + rendition.segments.prefix(2) + [folder.path("x.mp4")]).code, 64)
        let movieAsSegment = runCLI(["inspect", "--init", rendition.initSegment, rendition.joined])
        XCTAssertEqual(movieAsSegment.code, 65)
        XCTAssertTrue(movieAsSegment.error.contains("not a media segment"), movieAsSegment.error)
        let segmentAsInit = runCLI(["inspect", "--init", rendition.segments[0], rendition.segments[1]])
        XCTAssertEqual(segmentAsInit.code, 65)
        XCTAssertTrue(segmentAsInit.error.contains("not an init segment"), segmentAsInit.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("x.mp4")))
    }
}
