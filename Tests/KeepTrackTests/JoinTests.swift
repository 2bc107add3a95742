import Foundation
import XCTest
@testable import KeepTrack

/// `join`: pieces of the real recording joined back give the recording; independent clips join
/// sample-exactly; what cannot be joined is refused (65) with nothing written.
final class JoinTests: XCTestCase {
    /// split at the sync frames (as ffprobe lists them), join back: the recording's frames, AAC PCM,
    /// APAC packets with dapa/stss/prol/fall, and every mebx sample.
    func testRealRecordingSplitAtSyncFramesJoinsBack() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let points = try JoinProof.syncTimes(source)
        XCTAssertEqual(points.count, 2, "the recording has sync frames at two times after 0")
        try checkRoundTrip(source: source, points: points)
    }

    /// The same with cuts between sync frames: each piece starts with the GOP lead-in and audio
    /// warm-up the piece before ends with; the join keeps them once.
    func testRealRecordingTrimPiecesBetweenSyncFramesJoinBack() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let syncs = try JoinProof.syncTimes(source)
        let points = [0.8, 1.6]
        XCTAssertTrue(points.allSatisfy { point in !syncs.contains { abs($0 - point) < 0.02 } }, "cuts between sync frames")
        try checkRoundTrip(source: source, points: points)
    }

    /// Two cuts inside one GOP: the third piece begins with the lead-in both pieces before it hold, and the
    /// join keeps it once (it used to keep it twice: 90 pictures and two edits, which GStreamer played as 54 frames).
    func testRealRecordingTwoCutsInOneGOPJoinBack() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let syncs = try JoinProof.syncTimes(source)
        let points = [0.5, 0.7]
        XCTAssertFalse(syncs.contains { $0 > 0.45 && $0 < 0.75 }, "no sync frame between or at the cuts")
        try checkRoundTrip(source: source, points: points)
    }

    /// The same on a one-GOP H.264 movie ffmpeg made (B-frames, AAC): split at 1.2 s and 3.5 s and joined,
    /// ffmpeg shows the movie's frames at the movie's times (it showed 92, two of them the first pictures again).
    func testOneGOPMovieSplitTwiceJoinsBack() throws {
        let folder = TemporaryFolder()
        let source = folder.path("one-gop.mp4")
        try JoinProof.makeClip(source, seconds: 4, videoCodec: ["-c:v", "libx264", "-bf", "2", "-g", "300"])
        let pieces = try Trim.writeSplit(input: source, folder: folder.path("pieces"), points: [1.2, 3.5]).map(\.path)
        let output = folder.path("joined.mp4")
        _ = try Join.write(inputs: pieces, output: output)
        let frames = try TrimProof.frameHashes(output)
        XCTAssertEqual(frames.count, 100)
        XCTAssertEqual(frames, try TrimProof.frameHashes(source), "the movie's frames at the movie's times")
        let joined = try Movie.open(path: output), original = try Movie.open(path: source)
        let video = try XCTUnwrap(joined.tracks.first { $0.kind == .video })
        XCTAssertEqual(video.sampleTable.sampleCount, try XCTUnwrap(original.tracks.first { $0.kind == .video }).sampleTable.sampleCount,
                       "each picture once")
        XCTAssertEqual(video.editList?.entries.count, 1, "one edit")
    }

    /// Pieces of a 29.97 fps movie: a cut on a frame ends each audio edit inside a 48 kHz sample, yet the joined
    /// tracks have one edit each again, and GStreamer (qtdemux) decodes all of the AAC (with two edits it decoded 63 %).
    func testPiecesCutBetweenAudioSamplesJoinWithOneEditPerTrack() throws {
        let folder = TemporaryFolder()
        let source = folder.path("ntsc.mov")
        guard let made = runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30000/1001:duration=4",
                                            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4",
                                            "-map", "0:v", "-map", "1:a", "-map", "1:a", "-c:v", "libx264", "-g", "30",
                                            "-c:a:0", "aac", "-aac_pns", "0", "-c:a:1", "pcm_s16le", source]), made.code == 0 else {
            throw unavailable("ffmpeg cannot make \(source)")
        }
        let pieces = try Trim.writeSplit(input: source, folder: folder.path("pieces"), points: [1.5, 2.5]).map(\.path)
        let output = folder.path("joined.mov")
        _ = try Join.write(inputs: pieces, output: output)
        let original = try Movie.open(path: source), joined = try Movie.open(path: output)
        for track in original.tracks {
            XCTAssertEqual(try XCTUnwrap(joined.track(id: track.id)).editList?.entries.count ?? 0, max(1, track.editList?.entries.count ?? 0),
                           "track \(track.id) (\(track.kind.rawValue)): one edit")
        }
        for stream in ["0:a:0", "0:a:1"] {
            XCTAssertEqual(try JoinProof.pcm9(output, stream: stream), try JoinProof.pcm9(source, stream: stream), "\(stream): the movie's PCM")
        }
        func gstreamerAAC(_ path: String) throws -> Int {
            let raw = folder.path("gst-\(URL(fileURLWithPath: path).lastPathComponent).raw")
            guard let result = runTool("gst-launch-1.0", ["-q", "filesrc", "location=\(path)", "!", "qtdemux", "name=d", "d.audio_0", "!", "queue",
                                                          "!", "decodebin", "!", "audioconvert", "!", "audio/x-raw,format=F32LE", "!",
                                                          "filesink", "location=\(raw)"]), result.code == 0 else {
                throw unavailable("gst-launch-1.0 cannot decode \(path)")
            }
            return try XCTUnwrap(FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int)
        }
        let decoded = try gstreamerAAC(source)
        XCTAssertGreaterThan(decoded, 4 * 48000 * 4, "GStreamer decodes the movie's 4 s of AAC")
        XCTAssertEqual(try gstreamerAAC(output), decoded, "GStreamer decodes as much AAC from the joined pieces")
    }

    func checkRoundTrip(source: String, points: [Double], file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = TemporaryFolder()
        let pieces = try Trim.writeSplit(input: source, folder: folder.path("pieces"), points: points).map(\.path)
        XCTAssertEqual(pieces.count, points.count + 1, file: file, line: line)
        let output = folder.path("joined.mov")
        let written = try Join.write(inputs: pieces, output: output)
        XCTAssertEqual(written.plan.duration, try XCTUnwrap(Movie.open(path: source).duration), accuracy: 1e-9, file: file, line: line)

        // Pictures: every frame the recording shows, in order (Debian's ffmpeg, framemd5).
        let frames = try TrimProof.frameHashes(output)
        XCTAssertEqual(frames.count, 69, file: file, line: line)
        XCTAssertEqual(frames, try TrimProof.frameHashes(source), "joined frames are the recording's", file: file, line: line)

        // The enabled AAC track: the recording's PCM sample for sample (FFmpeg 9).
        let original = try Movie.open(path: source)
        let joined = try Movie.open(path: output)
        let sourcePCM = try JoinProof.pcm9(source), joinedPCM = try JoinProof.pcm9(output)
        XCTAssertGreaterThan(sourcePCM.count, 48000, file: file, line: line)
        XCTAssertEqual(joinedPCM.count, sourcePCM.count, "AAC samples decoded", file: file, line: line)
        XCTAssertTrue(joinedPCM.map(\.bitPattern) == sourcePCM.map(\.bitPattern), "AAC PCM bit for bit", file: file, line: line)

        // Every track: flags, group, references, sample entries (dapa, keys) as in the recording.
        XCTAssertEqual(joined.tracks.map(\.id), original.tracks.map(\.id), file: file, line: line)
        for track in original.tracks {
            let copy = try XCTUnwrap(joined.track(id: track.id))
            XCTAssertEqual(copy.header.header.flags, track.header.header.flags, "track \(track.id) flags", file: file, line: line)
            XCTAssertEqual(copy.alternateGroup, track.alternateGroup, file: file, line: line)
            XCTAssertEqual(copy.references, track.references, "track \(track.id) references", file: file, line: line)
            XCTAssertEqual(copy.editList?.entries.count, track.editList?.entries.count, "track \(track.id): its edits merged back", file: file, line: line)
            XCTAssertEqual(copy.sampleEntries.map { try? $0.serialized() }, track.sampleEntries.map { try? $0.serialized() },
                           "track \(track.id) sample entries byte for byte", file: file, line: line)
        }
        let apac = try XCTUnwrap(original.tracks.first { $0.format == "apac" })
        XCTAssertNotNil(try XCTUnwrap(joined.track(id: apac.id)).sampleEntries.first?.first("dapa"), file: file, line: line)
        XCTAssertEqual(try XCTUnwrap(joined.track(id: apac.id)).referencedIDs("fall"), apac.referencedIDs("fall"), file: file, line: line)

        // APAC and video: the recording's samples in order, with their sync flags and sample groups
        // (prol), read by SampleAccount's own reader. The last pieces end with the video, so the
        // recording's audio packets past the movie's end are not in them.
        let sourceAccount = try SampleAccount(source: FileByteSource(path: source))
        let joinedAccount = try SampleAccount(source: FileByteSource(path: output))
        for track in original.tracks {
            let mine = try XCTUnwrap(joinedAccount.tracks[track.id]), theirs = try XCTUnwrap(sourceAccount.tracks[track.id])
            let a = mine.expandedSamples(), b = theirs.expandedSamples()
            XCTAssertLessThanOrEqual(a.count, b.count, file: file, line: line)
            XCTAssertGreaterThanOrEqual(a.count, b.count - 2, "track \(track.id): at most the 2 packets past the end left out", file: file, line: line)
            let count = a.count
            XCTAssertEqual(a.prefix(count - 1).map(\.isSync), b.prefix(count - 1).map(\.isSync), "track \(track.id) stss", file: file, line: line)
            XCTAssertEqual(a.prefix(count - 1).map { mine.groups(of: $0) }, b.prefix(count - 1).map { theirs.groups(of: $0) },
                           "track \(track.id) sample groups", file: file, line: line)
            XCTAssertEqual(a.prefix(count - 1).map(\.duration), b.prefix(count - 1).map(\.duration), "track \(track.id) durations", file: file, line: line)
            let bytes = try JoinProof.samples(joined, track: track.id), sourceBytes = try JoinProof.samples(original, track: track.id)
            XCTAssertTrue(bytes.elementsEqual(sourceBytes.prefix(bytes.count)), "track \(track.id): the recording's samples", file: file, line: line)
            if track.format == "mebx" { XCTAssertEqual(bytes.count, sourceBytes.count, "every mebx sample of track \(track.id) kept", file: file, line: line) }
        }
        XCTAssertTrue(joinedAccount.tracks[apac.id]?.groupSignatures.contains { $0.hasPrefix("prol") } ?? false, "prol groups", file: file, line: line)

        let lint = Linter.lint(path: output)
        XCTAssertNil(lint.error, file: file, line: line)
        XCTAssertEqual(lint.findings.map(\.rule.id), [], "lint clean", file: file, line: line)
    }

    /// Two clips ffmpeg made on its own (H.264 with B-frames, AAC with 1024 frames of priming):
    /// frames are the clips' frames one after the other; the PCM is each clip's presented PCM.
    func testIndependentClipsJoinSampleExactly() throws {
        let folder = TemporaryFolder()
        let first = folder.path("a.mp4"), second = folder.path("b.mp4"), output = folder.path("ab.mp4")
        try JoinProof.makeClip(first, video: "testsrc2", tone: 300)
        try JoinProof.makeClip(second, video: "smptehdbars", tone: 700)
        let run = runCLI(["join", first, second, output, "--json"])
        XCTAssertEqual(run.code, 0, run.error)

        let frames = try TrimProof.frameHashes(output)
        XCTAssertEqual(frames, try TrimProof.frameHashes(first) + TrimProof.frameHashes(second), "frames are the clips' frames in turn")
        XCTAssertEqual(frames.count, 50)

        // Each clip's priming is skipped by its own edit: the joined audio track has two.
        let movie = try Movie.open(path: output)
        let audio = try XCTUnwrap(movie.tracks.first { $0.kind == .audio })
        let edits = try XCTUnwrap(audio.editList?.entries)
        XCTAssertEqual(edits.count, 2)
        XCTAssertEqual(edits.map(\.segmentDuration), [UInt64(movie.header.timescale), UInt64(movie.header.timescale)], "one second each, exact on the movie clock")
        let a = try JoinProof.pcm9(first), b = try JoinProof.pcm9(second), joined = try JoinProof.pcm9(output)
        XCTAssertEqual(a.count, 48000)
        XCTAssertEqual(b.count, 48000)
        // FFmpeg 9 plays the first edit exactly and then the rest of the packet it ends inside (its
        // demuxer cuts only the start of an edit that another follows): those frames, fewer than one
        // packet, sit between the clips. Everything else is bit for bit each clip's presented PCM.
        let extra = joined.count - a.count - b.count
        XCTAssertTrue((0..<1024).contains(extra), "\(extra) frames between the clips")
        XCTAssertTrue(joined.prefix(a.count).map(\.bitPattern) == a.map(\.bitPattern), "the first clip's PCM")
        XCTAssertTrue(joined.suffix(b.count).map(\.bitPattern) == b.map(\.bitPattern), "the second clip's PCM")

        // Independent readers see the summed duration.
        let info = try MediaInfo.report(output)
        XCTAssertEqual(try XCTUnwrap(info.duration), 2.0, accuracy: 0.001)
        let probe = try FFprobe.probe(output, packets: false)
        XCTAssertEqual(try XCTUnwrap(probe.duration), 2.0, accuracy: 1e-6)
        // gst-discoverer (GStreamer's own reading of the container) gives the summed duration.
        guard let discovered = runTool("gst-discoverer-1.0", [output]), discovered.code == 0,
              let line = discovered.out.split(separator: "\n").first(where: { $0.contains("Duration: ") }) else {
            throw unavailable("gst-discoverer-1.0 (gstreamer1.0-plugins-base-apps) is not installed")
        }
        let clock = line.components(separatedBy: "Duration: ")[1].split(separator: ":").compactMap { Double($0) }
        XCTAssertEqual(clock.count, 3, String(line))
        XCTAssertEqual(clock.count == 3 ? clock[0] * 3600 + clock[1] * 60 + clock[2] : 0, 2.0, accuracy: 1e-6, "gst-discoverer: \(line)")
        // GStreamer's qtdemux: the video's decoded frames span the two seconds.
        guard let gst = runTool("gst-launch-1.0", ["-v", "filesrc", "location=\(output)", "!", "qtdemux", "name=d", "d.video_0", "!", "decodebin",
                                                   "!", "identity", "silent=false", "!", "fakesink"]), gst.code == 0 else {
            throw unavailable("gst-launch-1.0 is not installed")
        }
        let times = gst.out.split(separator: "\n").filter { $0.contains("chain") }.compactMap { line -> (Double, Double)? in
            func seconds(after key: String) -> Double? {
                guard let range = line.range(of: key) else { return nil }
                let text = line[range.upperBound...].prefix { $0 != "," && $0 != " " }
                let parts = text.split(separator: ":").compactMap { Double($0) }
                return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
            }
            guard let pts = seconds(after: "pts: "), let duration = seconds(after: "duration: ") else { return nil }
            return (pts, duration)
        }
        XCTAssertEqual(times.count, 50, "GStreamer decodes every frame")
        if let firstFrame = times.map(\.0).min(), let last = times.max(by: { $0.0 < $1.0 }) {
            XCTAssertEqual(last.0 + last.1 - firstFrame, 2.0, accuracy: 1e-6, "GStreamer's frames span the summed duration")
        }
        XCTAssertEqual(Linter.lint(path: output).findings.map(\.rule.id), [])

        // Sample descriptions: one per distinct entry of the clips (ffmpeg's differ in their bit rate fields).
        let clips = try [first, second].map { try Movie.open(path: $0) }
        for track in movie.tracks {
            let entries = Set(clips.flatMap { clip in (clip.tracks.first { $0.kind == track.kind }?.sampleEntries ?? []).compactMap { try? $0.serialized() } })
            XCTAssertEqual(track.sampleEntries.count, entries.count, "track \(track.id): one stsd entry per distinct clip entry")
        }

        // A joined movie joins again: its several audio edits are copied, one more follows.
        let again = folder.path("aba.mp4")
        let rerun = runCLI(["join", output, first, again])
        XCTAssertEqual(rerun.code, 0, rerun.error)
        XCTAssertEqual(try TrimProof.frameHashes(again), try frames + TrimProof.frameHashes(first))
        let againAudio = try XCTUnwrap(Movie.open(path: again).tracks.first { $0.kind == .audio })
        XCTAssertEqual(againAudio.editList?.entries.count, 3)
        let pcm = try JoinProof.pcm9(again)
        XCTAssertTrue(pcm.prefix(a.count).map(\.bitPattern) == a.map(\.bitPattern), "the first clip's PCM first")
        XCTAssertTrue(pcm.suffix(a.count).map(\.bitPattern) == a.map(\.bitPattern), "and last")
        XCTAssertTrue((0..<2048).contains(pcm.count - 3 * a.count), "\(pcm.count - 3 * a.count) frames of packets FFmpeg 9 plays past two edit ends")
    }

    /// The write verification reads every joined track's parts independently (SampleAccount): a plan
    /// whose record of a part disagrees with what was written is caught, and nothing is written.
    func testVerificationChecksJoinedTracksAgainstEveryPart() throws {
        let folder = TemporaryFolder()
        let first = folder.path("a.mp4"), second = folder.path("b.mp4")
        try JoinProof.makeClip(first, tone: 300)
        try JoinProof.makeClip(second, video: "smptehdbars", tone: 500)
        let movies = try [first, second].map { try Movie.open(path: $0) }
        let plan = try Join.plan(movies, names: ["a.mp4", "b.mp4"])
        let audio = try XCTUnwrap(plan.writer.tracks.firstIndex { $0.trak.find(["mdia", "hdlr"]).flatMap { try? HandlerBox(box: $0) }?.handlerType == "soun" })
        XCTAssertEqual(plan.writer.tracks[audio].joinedParts.count, 2)
        XCTAssertNotNil(plan.writer.tracks[audio].joinedParts[0].lastDuration, "the first clip's shortened last packet keeps its full length")
        XCTAssertNoThrow(try MovieOutput.write(plan.writer, to: folder.path("good.mp4"), inputs: [first, second], overwrite: false))

        var wrong = plan.writer
        wrong.tracks[audio].joinedParts[0].lastDuration = nil
        XCTAssertThrowsError(try MovieOutput.write(wrong, to: folder.path("bad.mp4"), inputs: [first, second], overwrite: false)) { error in
            XCTAssertTrue("\(error)".contains("read independently"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("bad.mp4")))
    }

    /// `--chapters`: one chapter per clip named after its file, at the clip's start (ffprobe).
    func testChaptersNameEachClip() throws {
        let folder = TemporaryFolder()
        let first = folder.path("first.mov"), second = folder.path("second.mov"), output = folder.path("chapters.mov")
        try JoinProof.makeClip(first, tone: 300)
        try JoinProof.makeClip(second, video: "smptehdbars", tone: 500)
        let list = folder.path("clips.txt")
        try "first.mov\n# a comment\nsecond.mov\n".write(toFile: list, atomically: true, encoding: .utf8)
        let run = runCLI(["join", "--list", list, output, "--chapters"])
        XCTAssertEqual(run.code, 0, run.error)
        guard let probe = runTool("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv=p=0", output]), probe.code == 0 else {
            throw unavailable("ffprobe is not installed")
        }
        let chapters = probe.out.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        XCTAssertEqual(chapters.map { $0.last }, ["first.mov", "second.mov"])
        XCTAssertEqual(chapters.compactMap { $0.count > 4 ? Double($0[3]) : nil }, [0, 1], "start times")
        XCTAssertEqual(Linter.lint(path: output).findings.map(\.rule.id), [])
    }

    /// Two independent recordings, each with one chapter over all of it (ffmpeg writes a text track and a Nero chpl).
    /// Same titles: the text track kept clip 2's cue as a repeat of clip 1's (an "overlap"), so ffprobe listed a second
    /// chapter of 0 s while the chpl said one; now both say one chapter over the joined movie, and a note says why.
    /// Different titles: two chapters, each at its clip's start, in the text track (mediainfo) and the chpl (ffprobe).
    func testChaptersOfIndependentClipsAgreeAcrossTheCut() throws {
        let folder = TemporaryFolder()
        func clip(_ name: String, chapter: String, tone: Int) throws -> String {
            let metadata = folder.path(name + ".txt"), path = folder.path(name + ".mp4")
            try ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2000\ntitle=\(chapter)\n".write(toFile: metadata, atomically: true, encoding: .utf8)
            let arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=2",
                             "-f", "lavfi", "-i", "sine=frequency=\(tone):duration=2", "-i", metadata,
                             "-map", "0", "-map", "1", "-map_chapters", "2", "-c:v", "libx264", "-c:a", "aac", "-shortest", path]
            guard let made = runTool("ffmpeg", arguments), made.code == 0 else { throw unavailable("ffmpeg cannot make \(path)") }
            return path
        }
        func chapters(_ path: String) throws -> [String] {
            guard let probe = runTool("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv=p=0", path]), probe.code == 0 else {
                throw unavailable("ffprobe is not installed")
            }
            // start seconds, end seconds, title
            return probe.out.split(separator: "\n").map { line in
                let fields = line.split(separator: ",").map(String.init)
                return fields.count >= 7 ? "\(fields[3])-\(fields[5]) \(fields[6])" : String(line)
            }
        }
        let a = try clip("a", chapter: "Chapter 1", tone: 300), b = try clip("b", chapter: "Chapter 1", tone: 500)
        let c = try clip("c", chapter: "Arrival", tone: 700)
        XCTAssertEqual(try chapters(a), ["0.000000-2.000000 Chapter 1"])

        let same = folder.path("same.mp4")
        let run = runCLI(["join", a, b, same])
        XCTAssertEqual(run.code, 0, run.error)
        XCTAssertEqual(try chapters(same), ["0.000000-4.000000 Chapter 1"])
        XCTAssertTrue(run.error.contains("the cue that ends clip 1 (a.mp4) and the one that opens clip 2 (b.mp4) hold the same bytes and are kept as one cue"), run.error)
        let joined = try Movie.open(path: same)
        let text = try XCTUnwrap(joined.tracks.first { $0.kind == .text })
        XCTAssertEqual(text.sampleTable.sampleCount, 1)
        XCTAssertEqual(text.editList?.entries.count, 1)

        let different = folder.path("different.mp4")
        XCTAssertEqual(runCLI(["join", a, c, different]).code, 0)
        XCTAssertEqual(try chapters(different), ["0.000000-2.000000 Chapter 1", "2.000000-4.000000 Arrival"])
        let menu = try XCTUnwrap(runTool("mediainfo", [different]), "mediainfo is installed by scripts/setup.sh").out
        let cues = menu.split(separator: "\n").filter { $0.hasPrefix("00:") }.map { $0.split(separator: " ").filter { $0 != ":" }.joined(separator: " ") }
        // Two menus: the text track's and the chpl's, each with both chapters.
        XCTAssertEqual(cues, ["00:00:00.000 Chapter 1", "00:00:02.000 Arrival", "00:00:00.000 Chapter 1", "00:00:02.000 Arrival"], menu)
        XCTAssertEqual(Linter.lint(path: different).findings.map(\.rule.id), [])
    }

    /// Movie metadata comes from the first clip, or from the one `--metadata-from` names (ffprobe's title).
    func testMetadataFromPicksTheClip() throws {
        let folder = TemporaryFolder()
        let first = folder.path("first.mp4"), second = folder.path("second.mp4")
        try JoinProof.makeClip(first, tone: 300, extra: ["-metadata", "title=First clip"])
        try JoinProof.makeClip(second, video: "smptehdbars", tone: 500, extra: ["-metadata", "title=Second clip"])
        func title(_ path: String) throws -> String {
            guard let probe = runTool("ffprobe", ["-v", "error", "-show_entries", "format_tags=title", "-of", "csv=p=0", path]), probe.code == 0 else {
                throw unavailable("ffprobe is not installed")
            }
            return probe.out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(runCLI(["join", first, second, folder.path("default.mp4")]).code, 0)
        XCTAssertEqual(try title(folder.path("default.mp4")), "First clip")
        let picked = runCLI(["join", first, second, folder.path("second-meta.mp4"), "--metadata-from", "2"])
        XCTAssertEqual(picked.code, 0, picked.error)
        XCTAssertEqual(try title(folder.path("second-meta.mp4")), "Second clip")
        XCTAssertEqual(runCLI(["join", first, second, folder.path("none.mp4"), "--metadata-from", "3"]).code, 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("none.mp4")))
    }

    /// A track with the largest ID there is (found by the fuzzer: the next free ID overflowed): the join
    /// is written, a chapter track is refused for want of an ID.
    func testLargestTrackIDLeavesNoChapterID() throws {
        let folder = TemporaryFolder()
        let base = folder.path("base.mp4"), largest = folder.path("largest.mp4")
        try JoinProof.makeClip(base, audio: false)
        var edit = MovieEdit(try Movie.open(path: base))
        let id = try XCTUnwrap(edit.tracks.first?.id)
        try edit.editHeader(id) { header in
            header.trackID = .max
            return "largest ID"
        }
        // Read back unverified: the passthrough check looks the track up by its old ID, which this edit changes.
        var unverified = MovieOutput.Options()
        unverified.verify = false
        try MovieOutput.write(edit.writer(), to: largest, inputs: [base], options: unverified)
        let joined = runCLI(["join", largest, largest, folder.path("joined.mp4")])
        XCTAssertEqual(joined.code, 0, joined.error)
        XCTAssertEqual(try Movie.open(path: folder.path("joined.mp4")).tracks.map(\.id), [UInt32.max])
        let chapters = runCLI(["join", largest, largest, folder.path("chapters.mp4"), "--chapters"])
        XCTAssertEqual(chapters.code, 65)
        XCTAssertTrue(chapters.error.contains("no ID is left"), chapters.error)
    }

    /// Clips that cannot continue one another: 65 naming the clip, the track and the difference; no output.
    func testRefusalsNameTheDifferenceAndWriteNothing() throws {
        let folder = TemporaryFolder()
        let base = folder.path("base.mp4")
        try JoinProof.makeClip(base)
        // Portrait: the video's tkhd matrix turned 90° (nothing else changed).
        let rotated = folder.path("rotated.mp4")
        var turn = MovieEdit(try Movie.open(path: base))
        let videoID = try XCTUnwrap(turn.tracks.first { $0.kind == .video }?.id)
        try turn.editHeader(videoID) { header in
            header.matrix = [0, 0x10000, 0, 0xFFFF_0000, 0, 0, 0, 0, 0x4000_0000]
            return "rotated"
        }
        try MovieOutput.write(turn.writer(), to: rotated, inputs: [base], overwrite: false)
        let otherCodec = folder.path("mpeg4.mp4")
        try JoinProof.makeClip(otherCodec, videoCodec: ["-c:v", "mpeg4"])
        let silent = folder.path("silent.mp4")
        try JoinProof.makeClip(silent, audio: false)
        // The audio track disabled: a copy with only that flag changed.
        let disabled = folder.path("disabled.mp4")
        var edit = MovieEdit(try Movie.open(path: base))
        let audioID = try XCTUnwrap(edit.tracks.first { $0.kind == .audio }?.id)
        try edit.setEnabled(audioID, false)
        try MovieOutput.write(edit.writer(), to: disabled, inputs: [base], overwrite: false)

        let cases: [(String, String)] = [
            (rotated, "another orientation matrix"),
            (otherCodec, "another codec"),
            (silent, "missing track"),
            (disabled, "mismatched flags"),
        ]
        for (clip, reason) in cases {
            let output = folder.path("out-\((clip as NSString).lastPathComponent)")
            let run = runCLI(["join", base, clip, output])
            XCTAssertEqual(run.code, 65, "\(reason): \(run.error)")
            XCTAssertTrue(run.error.contains(reason), run.error)
            XCTAssertTrue(run.error.contains("clip 2 (\((clip as NSString).lastPathComponent))"), run.error)
            XCTAssertTrue(run.error.contains("track "), run.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), "nothing written (\(reason))")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".") }, [], "no temporary left")
        }
        // An extra track: the first clip lacks it.
        let extra = runCLI(["join", silent, base, folder.path("extra.mp4")])
        XCTAssertEqual(extra.code, 65)
        XCTAssertTrue(extra.error.contains("extra track"), extra.error)
        XCTAssertEqual(runCLI(["join", base, folder.path("out.mp4")]).code, 64, "one clip is a usage error")
        XCTAssertEqual(runCLI(["join", base, folder.path("missing.mp4"), folder.path("out.mp4")]).code, 66)
        let exists = runCLI(["join", base, base, rotated])
        XCTAssertEqual(exists.code, 73, "an existing output without --force")
    }
}
