import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// `keeptrack trim`: lossless, sample-exact pieces of the real iPhone recording and of ffmpeg-made
/// iPhone-layout movies (B-frame H.264, real AAC in an alternate group), proven with ffmpeg/ffprobe.
final class TrimTests: XCTestCase {
    static let iphoneFrame = 1.0 / 30

    func trim(_ source: String, _ output: String, _ start: Double, _ end: Double, keyframe: Bool = false) throws -> Trim.Plan {
        try Trim.write(input: source, output: output, Trim.Request(start: start, end: end, keyframe: keyframe)).plan
    }

    func testRealRecordingPiecesAreExact() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let before = try fileBytes(source)
        let folder = TemporaryFolder()
        // Inside the first GOP, across the CRA sync samples (26, 54), to the very end, from the very start.
        for (start, end) in [(0.5, 1.5), (1.0, 2.3), (0.0, 0.8), (0.9, 2.0), (1.87, 2.21)] {
            let output = folder.path("piece-\(start)-\(end).mov")
            let plan = try trim(source, output, start, end)
            XCTAssertEqual(plan.movieTimescale, 240_000, "lcm of 600, 48000 and 10000")
            XCTAssertEqual((plan.startSeconds * 30).rounded(), plan.startSeconds * 30, accuracy: 1e-9, "start on a frame boundary")
            try TrimProof.check(source: source, output: output, plan: plan, requested: (start, end), frameDuration: Self.iphoneFrame)
            try checkIPhoneTracks(output, plan: plan)
            if start == 0.5 { try TrimProof.checkLevels(source: source, output: output, plan: plan, in: folder) }
        }
        XCTAssertEqual(try fileBytes(source), before, "the input is never modified")
    }

    /// APAC keeps dapa, ngst, stss, its prol groups and fall; every mebx track keeps samples covering the range.
    func checkIPhoneTracks(_ path: String, plan: Trim.Plan, file: StaticString = #filePath, line: UInt = #line) throws {
        let movie = try Movie.open(path: path)
        let apac = try XCTUnwrap(movie.tracks.first { $0.format == "apac" }, file: file, line: line)
        XCTAssertNotNil(apac.sampleEntries.first?.first("dapa"), "dapa", file: file, line: line)
        XCTAssertNotNil(apac.sampleEntries.first?.first("ngst"), "ngst", file: file, line: line)
        let stbl = try XCTUnwrap(apac.box.find(["mdia", "minf", "stbl"]))
        XCTAssertNotNil(apac.sampleTable.syncSamples, "stss kept", file: file, line: line)
        let groups = stbl.children.filter { $0.type == "sbgp" }.compactMap { try? SampleToGroupBox(box: $0) }
        let prol = try XCTUnwrap(groups.first { $0.groupingType == "prol" }, "sbgp prol kept", file: file, line: line)
        XCTAssertLessThanOrEqual(prol.totalSamples, UInt64(apac.sampleTable.sampleCount), "prol runs cut with the samples", file: file, line: line)
        XCTAssertTrue(stbl.children.contains { $0.type == "sgpd" && (try? SampleGroupDescriptionBox(box: $0))?.groupingType == "prol" }, file: file, line: line)
        XCTAssertEqual(apac.referencedIDs("fall"), [2], "tref/fall", file: file, line: line)
        XCTAssertFalse(apac.isEnabled, file: file, line: line)
        let metadata = movie.tracks.filter { $0.format == "mebx" }
        let source = try Movie.open(path: RealFixtures.iphone)
        XCTAssertEqual(metadata.count, 6, file: file, line: line)
        for track in metadata {
            XCTAssertGreaterThan(track.sampleTable.sampleCount, 0, "mebx track \(track.id) keeps samples", file: file, line: line)
            // Covers the range, or up to where the source track ended (two end at 2.2983 s, before the video).
            let sourceEnd = try XCTUnwrap(source.track(id: track.id)?.duration)
            XCTAssertEqual(try XCTUnwrap(track.duration), min(plan.endSeconds, sourceEnd) - plan.startSeconds, accuracy: 1e-9,
                           "mebx track \(track.id) covers the range", file: file, line: line)
        }
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        XCTAssertNotNil(video.box.find(["mdia", "minf", "stbl", "sdtp"]), "sdtp kept", file: file, line: line)
        XCTAssertNotNil(video.box.first("meta"), "track metadata kept", file: file, line: line)
        XCTAssertEqual(movie.fileType?.majorBrand, try Movie.open(path: RealFixtures.iphone).fileType?.majorBrand, file: file, line: line)
        XCTAssertEqual(movie.metadata.map(\.key), try Movie.open(path: RealFixtures.iphone).metadata.map(\.key), "movie keys kept", file: file, line: line)
    }

    /// --keyframe: starts at the sync sample (here the CRA at sample 26) with the video presented from it.
    func testKeyframeStartsAtTheSyncSample() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("keyframe.mov")
        let result = runCLI(["trim", source, output, "--start", "1.0", "--end", "2.0", "--keyframe", "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let start = try XCTUnwrap(json["start"] as? Double)
        let sourceVideo = try XCTUnwrap(Movie.open(path: source).tracks.first { $0.kind == .video })
        let syncs = Array(sourceVideo.sampleTable.samples).filter(\.isSync)
        let sync = try XCTUnwrap(syncs.last { Double(Int64($0.decodeTime) + $0.compositionOffset) / 600 <= 1.0 })
        XCTAssertEqual(start, Double(Int64(sync.decodeTime) + sync.compositionOffset) / 600, accuracy: 1e-9)
        XCTAssertEqual(sync.index + 1, 26, "the CRA")
        let tracks = try XCTUnwrap(json["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks[0]["leadingSamples"] as? Int, 0, "video decodes from the first presented frame")
        let plan = try Trim.plan(try Movie.open(path: source), Trim.Request(start: 1.0, end: 2.0, keyframe: true))
        try TrimProof.check(source: source, output: output, plan: plan, requested: (start, 2.0), frameDuration: Self.iphoneFrame)
    }

    /// Empty edits whose durations add up past 2^64, or a presented edit near 2^63: refused (65) naming the
    /// edit list, where the sums once trapped (the fuzzer found it through join, which shares the timeline).
    func testEditListsTooLongToAddUpAreRefused() throws {
        let folder = TemporaryFolder()
        let source = try writeVariant("iphone", in: folder)
        for (name, durations) in [("sum", [UInt64.max / 2 + 1, UInt64.max / 2 + 1]), ("large", [UInt64(Int64.max) - 5])] {
            var boxes = try BoxParser.parseFile(try FileByteSource(path: source))
            for index in boxes.indices where boxes[index].type == "moov" {
                try boxes[index].modifyChildren { moov in
                    guard let t = moov.firstIndex(where: { $0.type == "trak" }) else { return }
                    var elst = EditListBox()
                    elst.header.version = 1
                    elst.entries = durations.map { duration in
                        var empty = EditListBox.Entry()
                        empty.mediaTime = -1
                        empty.segmentDuration = duration
                        return empty
                    } + [EditListBox.Entry()]
                    let edts = Box(type: "edts", children: [Box(type: "elst", bytes: try elst.encoded())])
                    moov[t].modifyChildren { trak in
                        trak.removeAll { $0.type == "edts" }
                        trak.insert(edts, at: (trak.firstIndex { $0.type == "tkhd" } ?? -1) + 1)
                    }
                }
            }
            let hostile = folder.path("\(name).mov")
            let bytes = try boxes.flatMap { try $0.serialized(source: try FileByteSource(path: source)) }
            try Data(bytes).write(to: URL(fileURLWithPath: hostile))
            for arguments in [["trim", hostile, folder.path("\(name)-piece.mov"), "--start", "0.5", "--end", "1"],
                              ["split", hostile, "--at", "1", "--out-dir", folder.path("\(name)-pieces")],
                              ["join", hostile, hostile, folder.path("\(name)-joined.mov")]] {
                let result = runCLI(arguments)
                XCTAssertTrue([64, 65].contains(result.code), "\(name) \(arguments[0]): exit \(result.code): \(result.error)")
            }
        }
    }

    func testRangesOutsideTheMovieAreUsageErrors() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("out.mov")
        for arguments in [["--start", "2.5", "--end", "3"], ["--start", "1", "--end", "2.4"], ["--start", "1", "--duration", "2"],
                          ["--start", "1.5", "--end", "1.0"], ["--start", "-1", "--end", "1"]] {
            let result = runCLI(["trim", source, output] + arguments)
            XCTAssertEqual(result.code, 64, "\(arguments): \(result.error)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        }
        let outside = runCLI(["trim", source, output, "--start", "2.5", "--end", "3"])
        XCTAssertTrue(outside.error.contains("the movie lasts 2.3 s"), outside.error)
        XCTAssertEqual(runCLI(["trim", source, output, "--start", "1"]).code, 64, "needs an end")
        XCTAssertEqual(runCLI(["trim", source, output, "--start", "1", "--end", "2", "--duration", "1"]).code, 64)
        XCTAssertEqual(runCLI(["trim", source, output, "--start", "1:x", "--end", "2"]).code, 64)
        // Clock forms and --force.
        XCTAssertEqual(runCLI(["trim", source, output, "--start", "0:00.5", "--end", "00:00:01.500"]).code, 0)
        XCTAssertEqual(try Movie.open(path: output).duration ?? 0, 1.0, accuracy: 1e-9)
        let exists = runCLI(["trim", source, output, "--start", "0", "--end", "1"])
        XCTAssertEqual(exists.code, 73, exists.error)
        XCTAssertEqual(runCLI(["trim", source, output, "--start", "0", "--end", "1", "--force"]).code, 0)
        XCTAssertEqual(try Movie.open(path: output).duration ?? 0, 1.0, accuracy: 1e-9)
        XCTAssertTrue(runCLI(["trim", "--help"]).out.contains("--keyframe"))
    }

    /// mvhd's QuickTime times (preview, poster, selection, current) move to the piece's clock and range.
    func testMovieHeaderTimesFollowThePiece() {
        func bytes(_ values: [UInt32]) -> [UInt8] { values.flatMap { [UInt8($0 >> 24), UInt8($0 >> 16 & 0xFF), UInt8($0 >> 8 & 0xFF), UInt8($0 & 0xFF)] } }
        // 600 → 240000, piece from 1 s (240000) lasting 1 s: poster at 1.5 s → 0.5 s; preview from 0.5 s → 0; durations rescaled and cut.
        let moved = Trim.movedTimes(bytes([300, 300, 900, 1200, 1200, 0]), from: 600, to: 240_000, start: 240_000, duration: 240_000)
        XCTAssertEqual(moved, bytes([0, 120_000, 120_000, 240_000, 240_000, 0]))
        XCTAssertEqual(Trim.movedTimes(Array(repeating: 0, count: 24), from: 600, to: 240_000, start: 5, duration: 9), Array(repeating: 0, count: 24))
    }

    // MARK: Synthetic iPhone-layout movies

    /// H.264 with B-frames (closed or open GOP) and two real AAC tracks in alternate group 1 (the
    /// second disabled), 4 s at 30 fps, written by ffmpeg. `appleMediaTime0`: the audio edits' media
    /// time set to 0 as the iPhone writes them (priming then counts as presented, as Apple's convention reads it).
    static func syntheticMovie(in folder: TemporaryFolder, openGOP: Bool = false, appleMediaTime0: Bool = false) throws -> String {
        let raw = folder.path("raw-\(openGOP)-\(appleMediaTime0).mov")
        var arguments = ["-v", "error", "-y",
                         "-f", "lavfi", "-i", "testsrc2=size=192x108:rate=30:duration=4",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
                         "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=4",
                         "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "3", "-g", "24"]
        if openGOP { arguments += ["-x264-params", "open-gop=1:keyint=24:min-keyint=24:scenecut=0"] }
        // Without perceptual noise substitution: PNS noise comes from the decoder's random generator, whose
        // state depends on every packet decoded before, so no cut of a PNS stream decodes sample-identical.
        arguments += ["-c:a", "aac", "-aac_pns", "0", "-b:a", "96k", raw]
        guard let result = runTool("ffmpeg", arguments), result.code == 0 else { throw unavailable("ffmpeg with libx264 and aac is not installed") }
        var path = folder.path("iphone-layout-\(openGOP)-\(appleMediaTime0).mov")
        try TrackHeaderEditor.rewrite(raw, to: path) { track, header in
            guard track.kind == .audio else { return }
            header.alternateGroup = 1
            header.isEnabled = track.id == 2
        }
        if appleMediaTime0 {
            var bytes = [UInt8](try fileBytes(path))
            for track in try Movie.open(path: path).tracks where track.kind == .audio {
                let elst = try XCTUnwrap(track.box.find(["edts", "elst"]))
                XCTAssertEqual(elst.payload.first, 0)
                let field = Int(elst.payloadOffset) + 12
                for index in field..<field + 4 { bytes[index] = 0 }
            }
            path = folder.path("apple-\(openGOP).mov")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    func testSyntheticBFrameMoviePiecesAreExact() throws {
        let folder = TemporaryFolder()
        for (openGOP, apple) in [(false, false), (true, false), (false, true)] {
            let source = try Self.syntheticMovie(in: folder, openGOP: openGOP, appleMediaTime0: apple)
            let sourceVideo = try XCTUnwrap(Movie.open(path: source).tracks.first { $0.kind == .video })
            XCTAssertFalse(sourceVideo.sampleTable.compositionOffsets.isEmpty, "B-frames")
            // Two frames from a non-IDR I frame: ffmpeg 5.1's H.264 decoder outputs only the first of them
            // (ffmpeg -c copy of the same four packets decodes the same), so that piece is closed-GOP only.
            for (start, end) in [(0.5, 1.5), (1.03, 2.71), (0.0, 4.0), (3.2, 4.0)] + (openGOP ? [(0.84, 1.0)] : [(0.84, 0.9)]) {
                let output = folder.path("piece-\(openGOP)-\(apple)-\(start).mov")
                let plan = try trim(source, output, start, end)
                XCTAssertEqual((plan.startSeconds * 30).rounded(), plan.startSeconds * 30, accuracy: 1e-6, "start on a frame boundary")
                XCTAssertLessThanOrEqual(plan.startSeconds, start)
                XCTAssertGreaterThan(plan.startSeconds, start - 1.0 / 30)
                try TrimProof.check(source: source, output: output, plan: plan, requested: (start, end), frameDuration: 1.0 / 30)
                if start == 1.03 { try TrimProof.checkLevels(source: source, output: output, plan: plan, in: folder) }
            }
        }
    }
}
