import Foundation
import XCTest
@testable import KeepTrack
@testable import KeepTrackCodec
import KeepTrackFixtures

/// Levels on real audio: inputs are generated with ffmpeg at test time, read back by keeptrack's own
/// demuxer and decoded with libavcodec, and checked against exact values or ffmpeg's own filters.
final class LevelsTests: XCTestCase {
    /// Runs ffmpeg with `arguments`, failing the test when it is missing or fails.
    func ffmpeg(_ arguments: [String]) throws {
        guard let result = runTool("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments) else { throw unavailable("ffmpeg not installed") }
        XCTAssertEqual(result.code, 0, "ffmpeg \(arguments.joined(separator: " "))")
    }

    /// A 3 s stereo 1 kHz sine at `amplitude` (1.0 = full scale) written with `codec` into `path`.
    func sine(_ path: String, amplitude: Double, codec: [String]) throws -> String {
        let wave = "\(amplitude)*sin(2*PI*1000*t)"
        try ffmpeg(["-f", "lavfi", "-i", "aevalsrc=\(wave)|\(wave):s=48000:d=3"] + codec + [path])
        return path
    }

    /// ffmpeg's own measurement of the first audio stream: astats overall RMS/peak and ebur128 integrated loudness.
    static func ffmpegLevels(_ path: String) throws -> (rms: Double, peak: Double, lufs: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-nostats", "-i", path, "-map", "0:a:0", "-af", "astats=measure_perchannel=none,ebur128", "-f", "null", "-"]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        func value(after label: String, in text: Substring) -> Double? {
            guard let range = text.range(of: label, options: .backwards) else { return nil }
            return Double(text[range.upperBound...].prefix { $0 != "\n" }.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        let summary = text[(text.range(of: "Summary:", options: .backwards)?.lowerBound ?? text.startIndex)...]
        return (try XCTUnwrap(value(after: "RMS level dB:", in: text[...])), try XCTUnwrap(value(after: "Peak level dB:", in: text[...])),
                try XCTUnwrap(value(after: "I:", in: summary)))
    }

    func testSineAtMinus20dBFSMeasuresRMSMinus23Point01() throws {
        let folder = TemporaryFolder()
        for (name, codec) in [("s16.mov", ["-c:a", "pcm_s16le"]), ("s24.mov", ["-c:a", "pcm_s24be"]), ("f32.mov", ["-c:a", "pcm_f32le"]),
                              ("alac.m4a", ["-c:a", "alac"])] {
            let path = try sine(folder.path(name), amplitude: 0.1, codec: codec)
            let levels = try LevelsAnalyzer.measure(path: path)
            let track = try XCTUnwrap(levels.tracks.first?.levels, "\(name): \(levels.tracks.first?.note ?? "")")
            XCTAssertEqual(track.rmsDBFS, -23.0103, accuracy: 0.01, name)
            XCTAssertEqual(track.peakDBFS, -20, accuracy: 0.01, name)
            XCTAssertEqual(track.frames, 144_000, name)
            XCTAssertEqual(levels.enabledMix?.rmsDBFS ?? 0, -23.0103, accuracy: 0.01, name)
            // BS.1770 K-weighting adds ~+0.7 dB at 1 kHz; two channels add +3 dB: stay within a loose band.
            XCTAssertEqual(track.integratedLUFS, try Self.ffmpegLevels(path).lufs, accuracy: 0.1, name)
        }
    }

    func testSilenceIsMinusInfinityNotACrash() throws {
        let folder = TemporaryFolder()
        let path = try sine(folder.path("silence.mov"), amplitude: 0, codec: ["-c:a", "pcm_s16le"])
        let levels = try LevelsAnalyzer.measure(path: path)
        let track = try XCTUnwrap(levels.tracks.first?.levels)
        XCTAssertEqual(track.rmsDBFS, -.infinity)
        XCTAssertEqual(track.peakDBFS, -.infinity)
        XCTAssertEqual(track.integratedLUFS, -.infinity)
        XCTAssertEqual(track.frames, 144_000)
        XCTAssertTrue(levels.text.contains("-inf"), levels.text)
        let json = levels.json.rendered()
        XCTAssertTrue(json.contains("\"rmsDBFS\": null") || json.contains("\"rmsDBFS\":null"), json)
    }

    func testClippingPeaksAtZeroDBFS() throws {
        let folder = TemporaryFolder()
        let path = try sine(folder.path("clip.mov"), amplitude: 1.5, codec: ["-c:a", "pcm_s16le"])
        let track = try XCTUnwrap(try LevelsAnalyzer.measure(path: path).tracks.first?.levels)
        XCTAssertEqual(track.peakDBFS, 0, accuracy: 0.01)
        XCTAssertGreaterThan(track.rmsDBFS, -3.01)
    }

    func testAACSineInMovAndM4AHonoursPrimingAndMatchesFFmpeg() throws {
        let folder = TemporaryFolder()
        for name in ["aac.mov", "aac.m4a"] {
            let path = try sine(folder.path(name), amplitude: 0.1, codec: ["-c:a", "aac", "-b:a", "192k"])
            let movie = try Movie.open(path: path)
            let track = try XCTUnwrap(movie.tracks.first { $0.kind == .audio })
            XCTAssertEqual(track.audioSpecificConfig?.audioObjectType, 2, "AAC-LC in esds")
            XCTAssertEqual(track.editList?.entries.first?.mediaTime, 1024, "ffmpeg's AAC priming in elst")
            let levels = try XCTUnwrap(try LevelsAnalyzer.measure(movie, name: name).tracks.first?.levels)
            XCTAssertEqual(levels.frames, 144_000, "exactly the presented 3 s, priming skipped")
            XCTAssertEqual(levels.rmsDBFS, -23.01, accuracy: 0.05, name)
            let reference = try Self.ffmpegLevels(path)
            XCTAssertEqual(levels.rmsDBFS, reference.rms, accuracy: 0.1, name)
            XCTAssertEqual(levels.peakDBFS, reference.peak, accuracy: 0.1, name)
            XCTAssertEqual(levels.integratedLUFS, reference.lufs, accuracy: 0.1, name)
        }
    }

    func testRealFixtureAACAgreesWithFFmpegAndAPACIsNotDecodable() throws {
        let path = try RealFixtures.require(RealFixtures.iphone)
        let levels = try LevelsAnalyzer.measure(path: path)
        let aac = try XCTUnwrap(levels.tracks.first { $0.format == "mp4a" })
        let measured = try XCTUnwrap(aac.levels)
        let reference = try Self.ffmpegLevels(path)
        XCTAssertEqual(measured.rmsDBFS, reference.rms, accuracy: 0.1)
        XCTAssertEqual(measured.peakDBFS, reference.peak, accuracy: 0.1)
        XCTAssertEqual(measured.integratedLUFS, reference.lufs, accuracy: 0.1)
        // The edit list presents 1379/600 s of the 110 packets.
        XCTAssertEqual(measured.frames, 110_320)
        let apac = try XCTUnwrap(levels.tracks.first { $0.format == "apac" })
        XCTAssertNil(apac.levels, "APAC must never be measured as silence")
        XCTAssertTrue(apac.note?.contains("not decodable here") == true, apac.note ?? "")
        XCTAssertEqual(levels.mixedTrackIDs, [aac.id])
        XCTAssertEqual(levels.enabledMix?.rmsDBFS ?? 0, measured.rmsDBFS, accuracy: 0.001)
    }

    func testAVAssetWriterFixtureAPACEnabledIsReportedNotSilent() throws {
        let path = try RealFixtures.require(RealFixtures.avAssetWriter)
        let levels = try LevelsAnalyzer.measure(path: path)
        XCTAssertTrue(levels.tracks.contains { $0.format == "apac" })
        for track in levels.tracks where track.format == "apac" {
            XCTAssertNil(track.levels)
            if track.enabled { XCTAssertTrue(levels.unmixedTrackIDs.contains(track.id)) }
        }
        XCTAssertTrue(levels.text.contains("not decodable here"), levels.text)
    }

    /// Two AAC tracks of the same sound in one alternate group: both enabled plays the coherent sum (+6.02 dB).
    /// `keeptrack lint` (branch `groups`) reports this layout as "alternate group 1 has 2 enabled tracks: players
    /// mix them (echo)"; levels gives the measurable symptom.
    func testGroupOfTwoAACTracksBothEnabledIsSixDBLouder() throws {
        let folder = TemporaryFolder()
        let source = try sine(folder.path("source.mov"), amplitude: 0.1, codec: ["-c:a", "pcm_s16le"])
        let twoTracks = folder.path("two.mov")
        try ffmpeg(["-i", source, "-map", "0:a", "-map", "0:a", "-c:a", "aac", "-b:a", "192k", twoTracks])
        let fixed = folder.path("fixed.mov")
        let both = folder.path("both.mov")
        var firstAudio: UInt32?
        for (output, enableBoth) in [(fixed, false), (both, true)] {
            try TrackHeaderEditor.rewrite(twoTracks, to: output) { track, header in
                guard track.kind == .audio else { return }
                if firstAudio == nil { firstAudio = track.id }
                header.alternateGroup = 1
                header.isEnabled = enableBoth || track.id == firstAudio
            }
        }
        let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", both]))
        XCTAssertEqual(probe.out.split(separator: "\n"), ["aac", "aac"], "ffprobe reads the rewritten file")
        let one = try LevelsAnalyzer.measure(path: fixed)
        let two = try LevelsAnalyzer.measure(path: both)
        XCTAssertEqual(one.mixedTrackIDs.count, 1)
        XCTAssertEqual(two.mixedTrackIDs.count, 2)
        XCTAssertEqual(two.groupsPlayingSeveral, [1])
        let difference = try XCTUnwrap(two.enabledMix?.rmsDBFS) - XCTUnwrap(one.enabledMix?.rmsDBFS)
        XCTAssertEqual(difference, 6.02, accuracy: 0.1, "coherent sum of identical tracks")
        let comparison = try LevelsComparison.compare(pairs: [.init(fixed, fixed), .init(fixed, both)])
        XCTAssertTrue(comparison.rows[0].matches(tolerance: 0.1))
        XCTAssertTrue(comparison.rows[1].echoRisk)
        XCTAssertFalse(comparison.allMatch)
        XCTAssertEqual(comparison.rows[1].differenceDB ?? 0, 6.02, accuracy: 0.1)
    }

    func testEncodedAACInSyntheticMovieRoundTrips() throws {
        let folder = TemporaryFolder()
        let encoded = try AudioEncoder.encode(TestSignal.sine(dBFS: -20, seconds: 2), channels: 2, sampleRate: 48000)
        var options = FixtureOptions.variant("audio-only")!
        options.duration = 2
        options.stereoAudio = FixtureAudio(packets: encoded.packets, audioSpecificConfig: encoded.extradata,
                                           primingFrames: encoded.primingFrames, presentedFrames: encoded.inputFrames)
        options.alternateIsStereoCopy = true
        options.enabled = .both
        let path = try FixtureBuilder(options).write(to: folder.path("synthetic.mov"))
        let levels = try LevelsAnalyzer.measure(path: path)
        XCTAssertEqual(levels.tracks.count, 2)
        for track in levels.tracks {
            let measured = try XCTUnwrap(track.levels, track.note ?? "")
            XCTAssertEqual(measured.rmsDBFS, -23.01, accuracy: 0.05)
            XCTAssertEqual(measured.frames, 96_000)
        }
        XCTAssertEqual(try XCTUnwrap(levels.enabledMix?.rmsDBFS), -23.01 + 6.02, accuracy: 0.1)
        XCTAssertEqual(try Self.ffmpegLevels(path).rms, -23.01, accuracy: 0.05, "ffmpeg decodes our AAC track too")
    }

    /// One corrupt AAC packet is left out of the levels and named (as ffmpeg leaves it out); a track
    /// of which no packet decodes is malformed input naming the first one.
    func testCorruptAACPacketIsLeftOutAndNamedAndAllCorruptIsMalformed() throws {
        let folder = TemporaryFolder()
        let path = try sine(folder.path("good.m4a"), amplitude: 0.1, codec: ["-c:a", "aac"])
        let movie = try Movie.open(path: path)
        let samples = Array(movie.tracks[0].sampleTable.samples)
        let first = try XCTUnwrap(samples.first)
        var bytes = try fileBytes(path)
        for index in Int(first.offset)..<Int(first.offset) + Int(first.size) { bytes[index] = 0xFF }
        let bad = folder.path("bad.m4a")
        try bytes.write(to: URL(fileURLWithPath: bad))
        let result = runCLI(["levels", bad])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("packet 1 (\(first.size) bytes at file offset \(first.offset))") && result.out.contains("left out of its levels"), result.out)
        let levels = try XCTUnwrap(LevelsAnalyzer.measure(path: bad).tracks.first)
        XCTAssertEqual(levels.skippedPackets.map(\.packet), [1])
        XCTAssertEqual(try XCTUnwrap(levels.levels).rmsDBFS, -23.01, accuracy: 0.05)

        // A packet in the middle: left out, and the packets after it keep their place in time, so
        // the edit list's end still falls where it did — the levels cover one packet (1024 frames) less.
        var middle = try fileBytes(path)
        let fiftieth = samples[49]
        for index in Int(fiftieth.offset)..<Int(fiftieth.offset) + Int(fiftieth.size) { middle[index] = 0xFF }
        let gap = folder.path("gap.m4a")
        try middle.write(to: URL(fileURLWithPath: gap))
        let gapped = try XCTUnwrap(LevelsAnalyzer.measure(path: gap).tracks.first)
        XCTAssertEqual(gapped.skippedPackets.map(\.packet), [50])
        XCTAssertEqual(gapped.levels?.frames, 144_000 - 1024)

        for sample in samples {
            for index in Int(sample.offset)..<Int(sample.offset) + Int(sample.size) { bytes[index] = 0xFF }
        }
        let worse = folder.path("all-bad.m4a")
        try bytes.write(to: URL(fileURLWithPath: worse))
        let refused = runCLI(["levels", worse])
        XCTAssertEqual(refused.code, 65, refused.out)
        XCTAssertTrue(refused.error.contains("stbl at byte \(first.offset)") && refused.error.contains("packet 1"), refused.error)
    }

    func testLevelsCommand() throws {
        let folder = TemporaryFolder()
        let a = try sine(folder.path("a.mov"), amplitude: 0.1, codec: ["-c:a", "pcm_s16le"])
        let b = try sine(folder.path("b.mov"), amplitude: 0.2, codec: ["-c:a", "pcm_s16le"])
        let text = runCLI(["levels", a])
        XCTAssertEqual(text.code, 0, text.error)
        XCTAssertTrue(text.out.contains("-23.01"), text.out)
        let json = runCLI(["levels", "--json", a, b])
        XCTAssertEqual(json.code, 0)
        let documents = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        XCTAssertEqual(documents.count, 2)
        let mix = try XCTUnwrap((documents[1]["enabledMix"] as? [String: Any])?["levels"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(mix["rmsDBFS"] as? Double), -17.0, accuracy: 0.02)
        let same = runCLI(["levels", "--compare", a, a])
        XCTAssertEqual(same.code, 0, same.out)
        XCTAssertTrue(same.out.contains("same"), same.out)
        let list = folder.path("pairs.txt")
        try "# source\toutput\n\(a)\t\(a)\n\(a)\t\(b)\n".write(toFile: list, atomically: true, encoding: .utf8)
        let different = runCLI(["levels", "--compare", "--list", list])
        XCTAssertEqual(different.code, 1)
        XCTAssertTrue(different.out.contains("+6.02") && different.out.contains("DIFFERENT"), different.out)
        XCTAssertEqual(runCLI(["levels", "--compare", a]).code, 64)
        XCTAssertEqual(runCLI(["levels", folder.path("missing.mov")]).code, 66)
    }

    func testCompareLevelsOnSeveralPairs() throws {
        let folder = TemporaryFolder()
        let a = try sine(folder.path("a.mov"), amplitude: 0.1, codec: ["-c:a", "pcm_s16le"])
        let b = try sine(folder.path("b.mov"), amplitude: 0.2, codec: ["-c:a", "pcm_s16le"])
        let result = runCLI(["compare", "--levels", a, a, a, b])
        XCTAssertEqual(result.code, 1, result.out + result.error)
        let rows = result.out.split(separator: "\n").filter { $0.contains("a.mov") }
        XCTAssertEqual(rows.count, 2, result.out)
        XCTAssertTrue(result.out.contains("+6.02"), result.out)
        let json = runCLI(["compare", "--levels", "--json", a, a])
        XCTAssertEqual(json.code, 0, json.out)
        XCTAssertEqual(runCLI(["compare", a, a, a, b]).code, 64, "several pairs only with --levels")
        XCTAssertEqual(runCLI(["compare", "--tolerance", "1", a, a]).code, 64)
    }

    /// The proof of a correct passthrough: the real recording remuxed plays exactly the same audio.
    func testRemuxOfRealRecordingHasIdenticalEnabledAudio() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("remuxed.mov")
        XCTAssertEqual(runCLI(["remux", source, output]).code, 0)
        let result = runCLI(["compare", "--levels", "--json", source, output])
        XCTAssertEqual(result.code, 0, result.out + result.error)
        XCTAssertFalse(result.out.contains("\"echoRisk\": true"), result.out)
    }
}
