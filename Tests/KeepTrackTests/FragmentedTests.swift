import Foundation
import XCTest
@testable import KeepTrack

/// Fragmented movies (moof/traf/trun) written by ffmpeg in the test, and the fragmented files of
/// other projects: keeptrack's table of every track must be ffprobe's packet list.
final class FragmentedTests: XCTestCase {
    /// Every ffmpeg fragmenting option worth a flavour: (name, output extension, arguments after the inputs).
    static let flavours: [(name: String, ext: String, arguments: [String])] = [
        ("frag_keyframe+empty_moov", "mp4", ["-movflags", "frag_keyframe+empty_moov"]),
        ("frag_keyframe", "mp4", ["-movflags", "frag_keyframe"]),
        ("default_base_moof", "mp4", ["-movflags", "frag_keyframe+empty_moov+default_base_moof"]),
        ("separate_moof", "mp4", ["-movflags", "frag_keyframe+empty_moov+separate_moof"]),
        ("frag_every_frame", "mp4", ["-movflags", "frag_every_frame+empty_moov"]),
        ("global_sidx", "mp4", ["-movflags", "frag_keyframe+empty_moov+global_sidx+default_base_moof"]),
        ("skip_trailer", "mp4", ["-movflags", "frag_keyframe+skip_trailer"]),
        ("frag_duration", "mp4", ["-frag_duration", "400000", "-movflags", "empty_moov"]),
        ("ismv", "ismv", ["-f", "ismv"]),
        ("cmaf", "mp4", ["-movflags", "cmaf"]),
        ("negative_cts", "mp4", ["-use_editlist", "0", "-movflags", "frag_keyframe+empty_moov+negative_cts_offsets"]),
        ("mov", "mov", ["-movflags", "frag_keyframe+empty_moov"]),
    ]

    static let videoAndAudio = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3",
                                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3",
                                "-c:v", "libx264", "-bf", "2", "-g", "25", "-c:a", "aac", "-b:a", "64k"]

    /// Writes one flavour with ffmpeg (H.264 with B-frames + AAC, 3 s), or the audio-only one.
    static func makeFlavour(_ name: String, ext: String, arguments: [String], in folder: TemporaryFolder,
                            inputs: [String] = videoAndAudio) throws -> String {
        let path = folder.path("\(name.replacingOccurrences(of: "+", with: "_")).\(ext)")
        let result = runTool("ffmpeg", ["-v", "error", "-y"] + inputs + arguments + [path])
        guard let result, result.code == 0 else { throw unavailable("ffmpeg is not installed") }
        return path
    }

    static let wild = ["abema-go-mp4/sample_fragmented.mp4", "androidx-media/sample_fragmented.mp4",
                       "androidx-media/sample_partially_fragmented.mp4", "androidx-media/sample_ac3_fragmented.mp4",
                       "androidx-media/sample_ac4_fragmented.mp4", "androidx-media/sample_opus_fragmented.mp4",
                       "androidx-media/sample_fragmented_seekable_multiple_sidx.mp4", "eyevinn-mp4ff/bbb5s_aac_sidx.mp4",
                       "eyevinn-mp4ff/main_1.mp4"]

    static func wildPath(_ name: String) throws -> String {
        try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/" + name).path)
    }

    // MARK: Reading

    func testEveryFlavourReadsAsFFprobeSeesIt() throws {
        let folder = TemporaryFolder()
        for flavour in Self.flavours {
            let path = try Self.makeFlavour(flavour.name, ext: flavour.ext, arguments: flavour.arguments, in: folder)
            try assertTablesMatchFFprobe(path, label: flavour.name)
        }
        let audio = try Self.makeFlavour("audio-only", ext: "m4a", arguments: ["-movflags", "frag_keyframe+empty_moov", "-frag_duration", "500000"],
                                         in: folder, inputs: ["-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", "aac"])
        try assertTablesMatchFFprobe(audio, label: "audio-only")
    }

    func testWildFragmentedFilesReadAsFFprobeSeesThem() throws {
        for name in Self.wild { try assertTablesMatchFFprobe(Self.wildPath(name), label: name) }
    }

    func testFragmentedMovieKnowsItsFragments() throws {
        let folder = TemporaryFolder()
        let path = try Self.makeFlavour("empty", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov"], in: folder)
        let movie = try Movie.open(path: path)
        XCTAssertTrue(movie.isFragmented)
        let moofs = movie.boxes.filter { $0.type == "moof" }.count
        XCTAssertEqual(movie.fragmentCount, moofs)
        XCTAssertGreaterThan(moofs, 1)
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        XCTAssertEqual(video.fragments?.stblSampleCount, 0)
        XCTAssertEqual(video.fragments?.sampleCount, 75)
        XCTAssertEqual(try XCTUnwrap(video.duration), 3.0, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(movie.duration), 3.0, accuracy: 0.1)
        // Partially fragmented: samples in moov, then more in fragments, one table.
        let partial = try Movie.open(path: Self.wildPath("androidx-media/sample_partially_fragmented.mp4"))
        let first = try XCTUnwrap(partial.tracks.first)
        XCTAssertGreaterThan(try XCTUnwrap(first.fragments).stblSampleCount, 0)
        XCTAssertGreaterThan(try XCTUnwrap(first.fragments).sampleCount, 0)
        XCTAssertFalse(try Movie.open(path: RealFixtures.require(RealFixtures.iphone)).isFragmented)
        // A first tfdt later than 0 is where the track starts (ffprobe's first dts).
        let laterPath = try Self.wildPath("eyevinn-mp4ff/main_1.mp4")
        let later = try Movie.open(path: laterPath)
        let firstDTS = try XCTUnwrap(FFprobePackets.read(laterPath).first?.first?.dts)
        XCTAssertEqual(later.tracks[0].sampleTable.samples.first { _ in true }?.decodeTime, UInt64(firstDTS))
        XCTAssertEqual(firstDTS, 60000)
        // Encrypted fragments are recognised (remux refuses them).
        let encrypted = try Movie.open(path: Self.wildPath("eyevinn-mp4ff/cbcs.mp4"))
        XCTAssertNotNil(encrypted.tracks[0].fragments?.encryption)
    }

    /// ffmpeg 5.1's `+global_sidx` without `+default_base_moof` inserts the sidx in front of the
    /// fragments without moving their absolute base data offsets: every run points into the moof
    /// before its data (ffmpeg itself decodes garbage). Refused, naming the stale tfhd and the repair
    /// (TaggerFlavourTests repairs it); a run outside every mdat that no recount explains is refused
    /// naming the run.
    func testDataOutsideMediaDataIsRefused() throws {
        let folder = TemporaryFolder()
        let path = try Self.makeFlavour("shifted", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov+global_sidx"], in: folder)
        XCTAssertThrowsError(try Movie.open(path: path)) { error in
            guard case KeepTrackError.malformed(let boxPath, _, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(boxPath, "moof/traf/tfhd")
            XCTAssertTrue(reason.contains("is stale: 3 of 3 fragments have stale tfhd base data offsets"), reason)
        }
        XCTAssertThrowsError(try Movie(source: FileByteSource(path: path), checkingFragmentOffsets: false)) { error in
            guard case KeepTrackError.malformed(let boxPath, _, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(boxPath, "moof/traf/trun")
            XCTAssertTrue(reason.contains("is not inside an mdat (it starts in the moof at byte"), reason)
        }
        let remux = runCLI(["remux", path, folder.path("out.mp4")])
        XCTAssertEqual(remux.code, 65)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.mp4")))
    }

    func testBareSegmentStaysRefused() throws {
        XCTAssertThrowsError(try Movie.open(path: Self.wildPath("androidx-media/video_1.m4s"))) { error in
            XCTAssertTrue("\(error)".contains("no moov"), "\(error)")
        }
    }

    /// A trun claiming more samples than its bytes hold, and one whose data runs past the end of the
    /// file: exit 65 naming the box path and offset, nothing allocated for the claim.
    func testLyingTrunIsMalformedWithPathAndOffset() throws {
        let folder = TemporaryFolder()
        let path = try Self.makeFlavour("lie", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov"], in: folder)
        let movie = try Movie.open(path: path)
        let moof = try XCTUnwrap(movie.boxes.first { $0.type == "moof" })
        let trun = try XCTUnwrap(moof.first("traf")?.first("trun"))
        var bytes = [UInt8](try fileBytes(path))
        let countOffset = Int(trun.payloadOffset) + 4
        bytes.replaceSubrange(countOffset..<countOffset + 4, with: [0x7F, 0xFF, 0xFF, 0xFF])
        let lying = folder.path("lying.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: lying))
        XCTAssertThrowsError(try Movie.open(path: lying)) { error in
            guard case KeepTrackError.malformed(let boxPath, let offset, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(boxPath, "moof/traf/trun")
            XCTAssertTrue((trun.offset..<trun.offset + trun.size).contains(offset), "offset \(offset)")
            XCTAssertTrue(reason.contains("2147483647 samples"), reason)
        }
        let result = runCLI(["inspect", lying])
        XCTAssertEqual(result.code, 65)
        XCTAssertTrue(result.error.contains("moof/traf/trun at byte "), result.error)
        // Data past the end: a data offset pointing beyond the file.
        bytes = [UInt8](try fileBytes(path))
        let trunView = try TrackRunBox(box: trun)
        XCTAssertNotNil(trunView.dataOffset)
        let dataOffset = Int(trun.payloadOffset) + 8
        bytes.replaceSubrange(dataOffset..<dataOffset + 4, with: [0x7F, 0x00, 0x00, 0x00])
        try Data(bytes).write(to: URL(fileURLWithPath: lying))
        XCTAssertThrowsError(try Movie.open(path: lying)) { error in
            XCTAssertTrue("\(error)".contains("run past the end of the file"), "\(error)")
        }
    }

    func testDumpShowsFragmentBoxes() throws {
        let folder = TemporaryFolder()
        let path = try Self.makeFlavour("dump", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov+global_sidx"], in: folder)
        let result = runCLI(["dump", path])
        XCTAssertEqual(result.code, 0, result.error)
        for expected in ["moov/mvex/trex", "defaultSampleDescriptionIndex: 1", "moof/mfhd", "sequenceNumber: 1", "moof/traf/tfhd",
                         "baseDataOffset:", "moof/traf/tfdt", "baseMediaDecodeTime: 0", "moof/traf/trun", "sampleCount:",
                         "sampleCompositionOffset:", "sidx", "subsegmentDuration:", "firstOffset:"] {
            XCTAssertTrue(result.out.contains(expected), "dump lacks \(expected)")
        }
        // Long runs are cut in a dump: the first few samples only.
        let trunLines = result.out.components(separatedBy: "\n").drop { !$0.contains("moof/traf/trun") }.dropFirst().prefix { $0.hasPrefix("      ") }
        XCTAssertLessThanOrEqual(trunLines.filter { $0.contains("sampleSize:") }.count, BoxDump.defaultEntryLimit)
    }

    func testFragmentBoxViewsRoundTrip() throws {
        let folder = TemporaryFolder()
        var paths = try Self.flavours.map { try Self.makeFlavour($0.name, ext: $0.ext, arguments: $0.arguments, in: folder) }
        paths += try Self.wild.map(Self.wildPath)
        var seen: Set<FourCC> = []
        for path in paths {
            let source = try FileByteSource(path: path)
            for box in try BoxParser.parseFile(source) { try assertViewsRoundTrip(box, parents: [], seen: &seen, path: path) }
        }
        XCTAssertEqual(seen, ["trex", "mehd", "mfhd", "tfhd", "tfdt", "trun", "sidx", "tfra", "mfro"])
    }

    func assertViewsRoundTrip(_ box: Box, parents: [FourCC], seen: inout Set<FourCC>, path: String) throws {
        let fragmentTypes: Set<FourCC> = ["trex", "mehd", "mfhd", "tfhd", "tfdt", "trun", "sidx", "tfra", "mfro"]
        if case .bytes(let payload) = box.content, fragmentTypes.contains(box.type),
           let view = BoxRegistry.view(for: box.type, parent: parents.last, grandparent: parents.dropLast().last) {
            let decoded = try view.init(decoding: payload, baseOffset: box.payloadOffset, path: box.type.description)
            XCTAssertTrue(try decoded.encoded() == payload, "\(path): \(box.type) does not round-trip")
            seen.insert(box.type)
        }
        for child in box.children { try assertViewsRoundTrip(child, parents: parents + [box.type], seen: &seen, path: path) }
    }

    // MARK: Remux

    /// Flavours whose trun offsets are negative (version 1): ffmpeg reads a fragmented file's pts as
    /// shifted by the largest negative offset and a progressive file's dts by the same amount, so
    /// the two packet lists differ by one constant per stream while every sample keeps its times.
    static let negativeOffsetFlavours: Set<String> = ["ismv", "cmaf", "negative_cts"]

    func testRemuxOfEveryFlavourIsProgressiveWithEveryPacket() throws {
        let folder = TemporaryFolder()
        var inputs = try Self.flavours.map { (try Self.makeFlavour($0.name, ext: $0.ext, arguments: $0.arguments, in: folder), $0.name) }
        inputs.append((try Self.makeFlavour("audio-only", ext: "m4a", arguments: ["-movflags", "frag_keyframe+empty_moov", "-frag_duration", "500000"],
                                            in: folder, inputs: ["-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", "aac"]), "audio-only"))
        for (input, name) in inputs {
            let output = folder.path("remuxed-\(name.replacingOccurrences(of: "+", with: "_")).\(input.split(separator: ".").last!)")
            try assertRemuxKeepsEveryPacket(input, output, label: name, allowShift: Self.negativeOffsetFlavours.contains(name))
        }
    }

    func testRemuxOfWildFragmentedFilesKeepsEveryPacket() throws {
        let folder = TemporaryFolder()
        // Init segments stay init segments (SampleAccountTests): nothing to defragment.
        for name in Self.wild {
            try assertRemuxKeepsEveryPacket(Self.wildPath(name), folder.path(name.replacingOccurrences(of: "/", with: "-")), label: name)
        }
    }

    /// `frag_keyframe+negative_cts_offsets` keeps the first fragment in moov (ctts v1) and the rest in
    /// trun v1. ffmpeg 5.1 reads the fragments' composition offsets as 0, so the source's packet list
    /// cannot confirm the copy; a progressive encode of the same source (x264 is deterministic) can:
    /// same packets, same presentation times, same decoded pictures.
    func testNegativeOffsetsInMoovAndFragmentsMatchAProgressiveEncode() throws {
        let folder = TemporaryFolder()
        // One encode, muxed twice: two libx264 encodes of the same input are not always the same bytes (seen in
        // a CI run of 2026-12-02, and with 16 ffmpeg processes at once: one of 16 encodes differed, its packet sizes equal).
        let progressive = try Self.makeFlavour("progressive", ext: "mp4", arguments: [], in: folder)
        let fragmented = try Self.makeFlavour("neg-moov", ext: "mp4", arguments: ["-c", "copy", "-movflags", "frag_keyframe+negative_cts_offsets"],
                                              in: folder, inputs: ["-i", progressive])
        let copy = folder.path("copy.mp4")
        XCTAssertEqual(runCLI(["remux", fragmented, copy, "--verify-data"]).code, 0)
        let reference = try FFprobePackets.read(progressive)[0]
        let written = try FFprobePackets.read(copy)[0]
        XCTAssertEqual(written.map(\.hash), reference.map(\.hash))
        XCTAssertEqual(written.map(\.pts), reference.map(\.pts))
        XCTAssertEqual(written.map(\.key), reference.map(\.key))
        XCTAssertNotEqual(try FFprobePackets.read(fragmented)[0].map(\.pts).map { $0 - reference[0].pts }, reference.map { $0.pts - reference[0].pts },
                          "ffmpeg now reads the fragments' offsets: compare the source directly")
        func pictures(_ path: String) -> String? {
            runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"])?.out
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last.map(String.init) ?? "" }.joined(separator: " ")
        }
        XCTAssertEqual(pictures(copy), pictures(progressive))
    }

    func testEncryptedFragmentsAreRefusedAndStillInspected() throws {
        let folder = TemporaryFolder()
        let input = try Self.wildPath("eyevinn-mp4ff/cbcs.mp4")
        let output = folder.path("cbcs.mp4")
        let result = runCLI(["remux", input, output])
        XCTAssertEqual(result.code, 65, result.error)
        XCTAssertTrue(result.error.contains("encrypted"), result.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        XCTAssertEqual(runCLI(["inspect", input]).code, 0)
        XCTAssertNotEqual(runCLI(["lint", input]).code, 65)
        XCTAssertEqual(runCLI(["dump", input]).code, 0)
    }

    // MARK: Every command

    func testInspectReportsTrueDurationAndFragments() throws {
        let folder = TemporaryFolder()
        let path = try Self.makeFlavour("inspect", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov"], in: folder)
        let moofs = try Movie.open(path: path).boxes.filter { $0.type == "moof" }.count
        let text = runCLI(["inspect", path])
        XCTAssertEqual(text.code, 0)
        XCTAssertTrue(text.out.contains("fragmented, \(moofs) fragments"), text.out)
        XCTAssertFalse(text.out.contains("0.00 s"), text.out)
        let json = runCLI(["inspect", "--json", path])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        XCTAssertEqual(object["fragmented"] as? Bool, true)
        XCTAssertEqual(object["fragments"] as? Int, moofs)
        let streams = try FFprobePackets.read(path)
        let tracks = try XCTUnwrap(object["tracks"] as? [[String: Any]])
        for (track, packets) in zip(tracks, streams) {
            XCTAssertEqual(track["samples"] as? Int, packets.count)
            XCTAssertEqual(track["bytes"] as? Int, Int(packets.reduce(0) { $0 + $1.size }))
        }
        let duration = try XCTUnwrap(object["duration"] as? Double)
        let probed = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])?.out
            .trimmingCharacters(in: .whitespacesAndNewlines)).flatMap(Double.init)
        XCTAssertEqual(duration, try XCTUnwrap(probed), accuracy: 0.01)
        let progressive = runCLI(["inspect", "--json", try RealFixtures.require(RealFixtures.iphone)])
        XCTAssertTrue(progressive.out.contains("\"fragmented\": false") || progressive.out.contains("\"fragmented\":false"), progressive.out.prefix(400).description)
    }

    func testCompareFragmentedWithItsRemuxIsIdenticalAndSeesChangedTimes() throws {
        let folder = TemporaryFolder()
        for flavour in Self.flavours where ["frag_keyframe+empty_moov", "frag_keyframe", "cmaf", "mov"].contains(flavour.name) {
            let input = try Self.makeFlavour(flavour.name, ext: flavour.ext, arguments: flavour.arguments, in: folder)
            let output = folder.path("copy-" + URL(fileURLWithPath: input).lastPathComponent)
            XCTAssertEqual(runCLI(["remux", input, output]).code, 0)
            let same = runCLI(["compare", input, output])
            XCTAssertEqual(same.code, 0, "\(flavour.name): \(same.out)")
            // One composition offset changed in the copy (same box size): compare says so.
            let copy = try Movie.open(path: output)
            let ctts = try XCTUnwrap(copy.tracks[0].box.find(["mdia", "minf", "stbl", "ctts"]))
            var bytes = [UInt8](try fileBytes(output))
            let value = Int(ctts.payloadOffset) + 8 + 4
            bytes[value + 3] ^= 0x01
            let changed = folder.path("changed-" + URL(fileURLWithPath: input).lastPathComponent)
            try Data(bytes).write(to: URL(fileURLWithPath: changed))
            let different = runCLI(["compare", input, changed])
            XCTAssertEqual(different.code, 1, "\(flavour.name): \(different.out)")
            XCTAssertTrue(different.out.contains("composition offset"), different.out)
        }
    }

    func testExtractSelectFixStripSpatialAndLevelsOnFragments() throws {
        let folder = TemporaryFolder()
        let input = try Self.makeFlavour("commands", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov"], in: folder,
            inputs: ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=f=440:duration=2",
                     "-f", "lavfi", "-i", "sine=f=880:duration=2", "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-bf", "2",
                     "-c:a", "aac", "-disposition:a:0", "default", "-disposition:a:1", "default"])
        // Both audio tracks into alternate group 1, both enabled: something for fix and select to do.
        var bytes = [UInt8](try fileBytes(input))
        let movie = try Movie.open(path: input)
        let tkhd = try XCTUnwrap(movie.tracks[2].box.first("tkhd"))
        XCTAssertEqual(tkhd.payload.first, 0)
        bytes[Int(tkhd.payloadOffset) + 35] = 1
        let grouped = folder.path("grouped.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: grouped))
        let source = try FFprobePackets.read(grouped)
        XCTAssertEqual(source.map(\.count).reduce(0, +), movie.tracks.map(\.sampleTable.sampleCount).reduce(0, +))

        let extracted = folder.path("video.mp4")
        XCTAssertEqual(runCLI(["extract", grouped, extracted, "--track", "1"]).code, 0)
        XCTAssertEqual(try FFprobePackets.read(extracted), [source[0]])
        let audio = folder.path("audio.m4a")
        XCTAssertEqual(runCLI(["extract", grouped, audio, "--track", "3"]).code, 0)
        XCTAssertEqual(try FFprobePackets.read(audio), [source[2]])
        XCTAssertEqual(try XCTUnwrap(Movie.open(path: audio).duration), try XCTUnwrap(movie.tracks[2].duration), accuracy: 0.001)

        let fixed = folder.path("fixed.mp4")
        let fix = runCLI(["fix", grouped, fixed])
        XCTAssertEqual(fix.code, 0, fix.error)
        XCTAssertEqual(try FFprobePackets.read(fixed), source)
        XCTAssertEqual(try Movie.open(path: fixed).tracks.map(\.isEnabled), [true, true, false])

        let selected = folder.path("selected.mp4")
        XCTAssertEqual(runCLI(["select", grouped, selected, "--prefer", "enabled"]).code, 0)
        XCTAssertEqual(try FFprobePackets.read(selected), Array(source.prefix(2)))

        XCTAssertEqual(runCLI(["strip-spatial", grouped, folder.path("stripped.mp4")]).code, 0)

        let levels = runCLI(["levels", "--json", grouped])
        XCTAssertEqual(levels.code, 0, levels.error)
        let measured = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(levels.out.utf8)) as? [String: Any])?["tracks"] as? [[String: Any]])
        XCTAssertEqual(measured.count, 2)
        for track in measured {
            // Every fragment decoded: two seconds of sound, not the first fragment's.
            let seconds = try XCTUnwrap((track["levels"] as? [String: Any])?["seconds"] as? Double)
            XCTAssertEqual(seconds, 2.0, accuracy: 0.1)
        }

        // --in-place still patches only moov's tkhd flag bytes.
        let inPlace = folder.path("in-place.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: inPlace))
        XCTAssertEqual(runCLI(["fix", "--in-place", inPlace]).code, 0)
        let after = [UInt8](try fileBytes(inPlace))
        let changed = zip(bytes, after).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        let flags = try XCTUnwrap(movie.tracks[2].box.first("tkhd")).payloadOffset + 3
        XCTAssertEqual(changed, [Int(flags)])
    }

    /// The writer's read-back checks the rebuilt tables against the planned samples: a planned
    /// dependency byte or sample duration that the written boxes do not hold fails the write.
    func testVerificationChecksRebuiltTables() throws {
        let folder = TemporaryFolder()
        let input = try Self.makeFlavour("verify", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov"], in: folder)
        let movie = try Movie.open(path: input)
        let writer = MovieWriter(passingThrough: movie)
        XCTAssertEqual(writer.tracks[0].table.dependencies.count, writer.tracks[0].table.sampleCount)
        XCTAssertNoThrow(try MovieOutput.write(writer, to: folder.path("good.mp4"), inputs: [input], overwrite: false))
        var wrongDependencies = writer
        wrongDependencies.tracks[0].table.dependencies[3] ^= 0x30
        XCTAssertThrowsError(try MovieOutput.write(wrongDependencies, to: folder.path("bad1.mp4"), inputs: [input], overwrite: false)) { error in
            XCTAssertTrue("\(error)".contains("sdtp"), "\(error)")
        }
        // A trak whose stts was rebuilt from another table than the one planned.
        var wrongTimes = writer
        let other = try Movie.open(path: Self.makeFlavour("other", ext: "mp4", arguments: ["-movflags", "frag_every_frame+empty_moov"], in: folder,
                                                          inputs: ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=3", "-c:v", "libx264", "-bf", "0"]))
        wrongTimes.tracks[0].trak = OutputTrack(other.tracks[0], in: other).trak
        XCTAssertThrowsError(try MovieOutput.write(wrongTimes, to: folder.path("bad2.mp4"), inputs: [input], overwrite: false))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("bad1.mp4")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("bad2.mp4")))
    }

    /// remux IN OUT, then: OUT is progressive (no moof, mvex, sidx, mfra), ffprobe's packets of every
    /// stream are IN's (size, SHA-256 of the data, key flag, pts and dts), and mediainfo's duration
    /// of OUT is the one keeptrack reports for IN.
    func assertRemuxKeepsEveryPacket(_ input: String, _ output: String, label: String, allowShift: Bool = false, checkKeys: Bool = true,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        let result = runCLI(["remux", input, output, "--verify-data"])
        XCTAssertEqual(result.code, 0, "\(label): \(result.error)", file: file, line: line)
        guard result.code == 0 else { return }
        let source = try Movie.open(path: input)
        let written = try Movie.open(path: output)
        XCTAssertFalse(written.isFragmented, label, file: file, line: line)
        XCTAssertEqual(written.boxes.filter { ["moof", "sidx", "mfra", "styp"].contains($0.type) }.count, 0, label, file: file, line: line)
        for (a, b) in zip(source.tracks, written.tracks) {
            XCTAssertEqual(a.sampleTable.sampleCount, b.sampleTable.sampleCount, "\(label) track \(a.id)", file: file, line: line)
            XCTAssertEqual(a.duration ?? -1, b.duration ?? -1, accuracy: 0.002, "\(label) track \(a.id) duration", file: file, line: line)
        }
        let before = try FFprobePackets.read(input)
        let after = try FFprobePackets.read(output)
        XCTAssertEqual(before.count, after.count, "\(label): streams", file: file, line: line)
        for (stream, (a, b)) in zip(before, after).enumerated() {
            XCTAssertEqual(a.count, b.count, "\(label): stream \(stream) packets", file: file, line: line)
            guard let x0 = a.first, let y0 = b.first else { continue }
            let shift = (x0.dts - y0.dts, x0.pts - y0.pts)
            if !allowShift { XCTAssertTrue(shift == (0, 0), "\(label): stream \(stream) shifted by \(shift)", file: file, line: line) }
            XCTAssertEqual(shift.0, shift.1, "\(label): stream \(stream) pts and dts shift alike", file: file, line: line)
            var mismatches = 0
            for (index, (x, y)) in zip(a, b).enumerated() {
                let same = x.size == y.size && x.hash == y.hash && (!checkKeys || x.key == y.key)
                    && x.dts - y.dts == shift.0 && x.pts - y.pts == shift.1
                if !same, mismatches < 3 { XCTFail("\(label): stream \(stream) packet \(index): \(x) became \(y)", file: file, line: line) }
                if !same { mismatches += 1 }
            }
        }
        // mediainfo's duration of every audio and video track of OUT is the one keeptrack reports for IN's.
        if let report = runToolData("mediainfo", ["--Output=JSON", output]),
           let json = try JSONSerialization.jsonObject(with: report) as? [String: Any],
           let tracks = (json["media"] as? [String: Any])?["track"] as? [[String: Any]] {
            for entry in tracks where ["Video", "Audio"].contains(entry["@type"] as? String ?? "") {
                guard let id = (entry["ID"] as? String).flatMap(UInt32.init), let track = source.track(id: id), track.sampleTable.sampleCount > 0,
                      let duration = track.duration,
                      let seconds = (entry["Duration"] as? String).flatMap(Double.init) else { continue }
                XCTAssertEqual(seconds, duration, accuracy: 0.002, "\(label): mediainfo duration of track \(id)", file: file, line: line)
            }
        }
    }

    // MARK: Helpers

    /// keeptrack's samples of every track against ffprobe's packets of the same stream: size, key
    /// flag, decode-time steps and composition offsets (ffprobe shifts whole timelines by edit lists,
    /// so times are compared relative to the first packet).
    func assertTablesMatchFFprobe(_ path: String, label: String, checkKeys: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
        let movie = try Movie.open(path: path)
        let streams = try FFprobePackets.read(path)
        XCTAssertEqual(streams.count, movie.tracks.count, "\(label): stream count", file: file, line: line)
        for (index, track) in movie.tracks.enumerated() where index < streams.count {
            let packets = streams[index]
            let samples = Array(track.sampleTable.samples)
            XCTAssertEqual(samples.count, packets.count, "\(label): track \(track.id) sample count", file: file, line: line)
            guard let firstSample = samples.first, let firstPacket = packets.first else { continue }
            // ffmpeg hands closed captions (c608) on without their box headers: other sizes.
            let sizes = track.format != "c608"
            var mismatches = 0
            for (sample, packet) in zip(samples, packets) {
                let dts = Int64(sample.decodeTime) - Int64(firstSample.decodeTime)
                let cto = sample.compositionOffset - firstSample.compositionOffset
                let same = (!sizes || Int64(sample.size) == packet.size) && (!checkKeys || sample.isSync == packet.key)
                    && dts == packet.dts - firstPacket.dts && cto == (packet.pts - packet.dts) - (firstPacket.pts - firstPacket.dts)
                if !same, mismatches < 3 {
                    XCTFail("\(label): track \(track.id) sample \(sample.index + 1): size \(sample.size) sync \(sample.isSync) dts \(dts) cto \(sample.compositionOffset); ffprobe \(packet)", file: file, line: line)
                }
                if !same { mismatches += 1 }
            }
        }
    }
}

/// ffprobe's packet list per stream (pts, dts, size, key flag, SHA-256 of the data), in stream order.
enum FFprobePackets {
    struct Packet: Equatable, CustomStringConvertible {
        var pts: Int64
        var dts: Int64
        var size: Int64
        var key: Bool
        var hash: String
        var description: String { "pts \(pts) dts \(dts) size \(size) key \(key)" }
    }

    static func read(_ path: String) throws -> [[Packet]] {
        guard let result = runTool("ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,pts,dts,size,flags,data_hash",
                                               "-show_data_hash", "sha256", "-of", "csv=p=0", path]) else {
            throw unavailable("ffprobe is not installed")
        }
        XCTAssertEqual(result.code, 0, "ffprobe \(path)")
        var streams: [[Packet]] = []
        for line in result.out.split(separator: "\n") {
            // stream_index,pts,dts,size,flags,data_hash (ffprobe's order of the packet section)
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6, let stream = Int(fields[0]) else { continue }
            while streams.count <= stream { streams.append([]) }
            streams[stream].append(Packet(pts: Int64(fields[1]) ?? Int64.min, dts: Int64(fields[2]) ?? Int64.min, size: Int64(fields[3]) ?? -1,
                                          key: fields[4].hasPrefix("K"), hash: fields[5]))
        }
        return streams
    }
}
