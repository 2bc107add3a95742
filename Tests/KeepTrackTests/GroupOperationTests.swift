import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

final class GroupOperationTests: XCTestCase {
    let stereo = FixtureBuilder.stereoID
    let spatial = FixtureBuilder.spatialID

    /// Fix result: lint passes, exactly the expected track plays, every sample as in the source, ffprobe agrees.
    func assertFixed(_ source: String, output: String, plays expected: UInt32, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(runCLI(["lint", output]).code, 0, file: file, line: line)
        let flags = try GroupCheck.flags(output)
        XCTAssertEqual(flags[stereo]?.enabled, expected == stereo, file: file, line: line)
        XCTAssertEqual(flags[spatial]?.enabled, expected == spatial, file: file, line: line)
        XCTAssertEqual(flags[stereo]?.group, 1, file: file, line: line)
        let ids = try Movie.open(path: source).tracks.map(\.id)
        XCTAssertEqual(try Movie.open(path: output).tracks.map(\.id).sorted(), ids.sorted(), file: file, line: line)
        try GroupCheck.assertSamplesIdentical(source, output, tracks: ids, file: file, line: line)
        let audio = try GroupCheck.probe(output).filter { $0.type == "audio" }
        XCTAssertEqual(audio.filter(\.isDefault).map(\.tag), [expected == stereo ? "mp4a" : "apac"], file: file, line: line)
    }

    func testFixChoosesTheFallbackWhenBothOrNoneAreEnabled() throws {
        let folder = TemporaryFolder()
        var spatialFirstBoth = FixtureOptions.variant("spatial-first")!
        spatialFirstBoth.enabled = .both
        var mp4None = FixtureOptions.variant("mp4")!
        mp4None.enabled = .none
        let sources = [try writeVariant("both-enabled", in: folder), try writeVariant("none-enabled", in: folder),
                       try GroupCheck.write(spatialFirstBoth, named: "spatial-first-both.mov", in: folder),
                       try GroupCheck.write(mp4None, named: "mp4-none.mp4", in: folder)]
        for source in sources {
            let output = source + ".fixed." + (source as NSString).pathExtension
            let result = runCLI(["fix", source, output])
            XCTAssertEqual(result.code, 0, result.error)
            XCTAssertTrue(result.out.contains("track"), result.out)
            try assertFixed(source, output: output, plays: stereo)
        }
    }

    func testFixKeepsTheSourcesSingleChoiceAndSaysNothingToFix() throws {
        let folder = TemporaryFolder()
        for name in ["iphone", "spatial-enabled", "five-channel"] {
            let source = try writeVariant(name, in: folder)
            let output = folder.path(name + "-out.mov")
            let result = runCLI(["fix", source, output])
            XCTAssertEqual(result.code, 0, result.error)
            XCTAssertTrue(result.out.contains("nothing to fix"), result.out)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), "\(name): nothing should be written")
        }
        let real = try RealFixtures.require(RealFixtures.iphone)
        XCTAssertTrue(runCLI(["fix", real, folder.path("real.mov")]).out.contains("nothing to fix"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("real.mov")))
    }

    func testFixRemovesDanglingReferences() throws {
        let folder = TemporaryFolder()
        var options = FixtureOptions.variant("both-enabled")!
        options.danglingReference = 77
        let source = try GroupCheck.write(options, named: "dangling.mov", in: folder)
        let output = folder.path("out.mov")
        let result = runCLI(["fix", source, output])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("removed tref/folw → 77"), result.out)
        XCTAssertEqual(GroupCheck.ruleIDs(output), [])
        let fixed = try XCTUnwrap(try Movie.open(path: output).track(id: spatial))
        XCTAssertEqual(fixed.referencedIDs("fall"), [stereo])
        XCTAssertEqual(fixed.referencedIDs("folw"), [])
        try assertFixed(source, output: output, plays: stereo)
    }

    func testFixInPlaceChangesOnlyTheFlagBytes() throws {
        let folder = TemporaryFolder()
        let path = try writeVariant("both-enabled", in: folder)
        let before = try fileBytes(path)
        let tkhd = try XCTUnwrap(try Movie.open(path: path).track(id: spatial)?.box.first("tkhd"))
        let flagRange = Int(tkhd.payloadOffset) + TrackHeaderBox.flagsPayloadRange.lowerBound ..< Int(tkhd.payloadOffset) + TrackHeaderBox.flagsPayloadRange.upperBound
        let result = runCLI(["fix", "--in-place", path])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("track 3: disabled"), result.out)
        let after = try fileBytes(path)
        XCTAssertEqual(after.count, before.count)
        var outsideBefore = before, outsideAfter = after
        outsideBefore.removeSubrange(flagRange)
        outsideAfter.removeSubrange(flagRange)
        XCTAssertEqual(outsideAfter, outsideBefore, "bytes outside the tkhd flags changed")
        XCTAssertEqual(Array(after[flagRange]), [0, 0, 0x0E])
        XCTAssertEqual(Array(before[flagRange]), [0, 0, 0x0F])
        XCTAssertEqual(GroupCheck.ruleIDs(path), [])
        XCTAssertTrue(runCLI(["fix", "--in-place", path]).out.contains("nothing to fix"))
    }

    func testFixInPlaceRestoresARealRecordingByteForByte() throws {
        let real = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let copy = folder.path("both-enabled-real.mov")
        let original = try fileBytes(real)
        // What an enable-every-track writer does to the recording: APAC track 3 enabled too.
        let tkhd = try XCTUnwrap(try Movie.open(path: real).track(id: spatial)?.box.first("tkhd"))
        let flagIndex = Int(tkhd.payloadOffset) + TrackHeaderBox.flagsPayloadRange.upperBound - 1
        var broken = original
        broken[flagIndex] |= 0x01
        try broken.write(to: URL(fileURLWithPath: copy))
        XCTAssertEqual(GroupCheck.ruleIDs(copy), ["group-multiple-enabled"])
        let result = runCLI(["fix", "--in-place", copy])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertEqual(try fileBytes(copy), original, "fix --in-place should give back the recording exactly")
    }

    func testFixInPlaceRefusesARewrite() throws {
        let folder = TemporaryFolder()
        var options = FixtureOptions.variant("both-enabled")!
        options.danglingReference = 9
        let path = try GroupCheck.write(options, named: "dangling.mov", in: folder)
        let before = try fileBytes(path)
        let result = runCLI(["fix", "--in-place", path])
        XCTAssertEqual(result.code, 65)
        XCTAssertTrue(result.error.contains("--in-place only patches flags"), result.error)
        XCTAssertEqual(try fileBytes(path), before)
        // The library says why without naming command-line options; the CLI added the hint above.
        let movie = try Movie.open(path: path)
        XCTAssertThrowsError(try GroupFix.applyInPlace(GroupFix.plan(movie), to: movie, path: path)) { error in
            guard case KeepTrackError.refused(let refusal) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(refusal.kind, .needsRewrite)
            XCTAssertFalse("\(error)".contains("--"), "\(error)")
            XCTAssertEqual((error as? KeepTrackError)?.exitCode, 65)
        }
    }

    func testFixWithoutOutputOnlyReports() throws {
        let folder = TemporaryFolder()
        let path = try writeVariant("none-enabled", in: folder)
        let before = try fileBytes(path)
        let result = runCLI(["fix", path])
        XCTAssertEqual(result.code, 0)
        XCTAssertTrue(result.out.contains("would change: track 2: enabled"), result.out)
        XCTAssertEqual(try fileBytes(path), before)
        XCTAssertEqual(runCLI(["fix", folder.url.path]).code, 64)
    }

    // MARK: strip-spatial

    func testStripSpatialKeepsTheFallbackAlone() throws {
        let folder = TemporaryFolder()
        var sources = try ["iphone", "spatial-first", "five-channel", "mp4", "lpcm-spatial", "spatial-enabled"].map { try writeVariant($0, in: folder) }
        if FileManager.default.fileExists(atPath: RealFixtures.iphone) { sources.append(RealFixtures.iphone) }
        for source in sources {
            let output = folder.path((source as NSString).lastPathComponent + ".stripped." + (source as NSString).pathExtension)
            let result = runCLI(["strip-spatial", source, output])
            XCTAssertEqual(result.code, 0, result.error)
            XCTAssertTrue(result.out.contains("removed track 3"), result.out)
            XCTAssertEqual(runCLI(["lint", output]).code, 0)
            XCTAssertEqual(GroupCheck.ruleIDs(output), [], source)
            let input = try Movie.open(path: source)
            let movie = try Movie.open(path: output)
            XCTAssertFalse(movie.tracks.contains(where: \.isSpatialAudio), source)
            XCTAssertEqual(movie.tracks.map(\.id), input.tracks.map(\.id).filter { $0 != spatial }, source)
            let kept = try XCTUnwrap(movie.track(id: stereo))
            XCTAssertTrue(kept.isEnabled, source)
            XCTAssertEqual(kept.alternateGroup, 0, source)
            XCTAssertTrue(movie.tracks.allSatisfy { track in track.references.allSatisfy { !$0.trackIDs.contains(self.spatial) } })
            try GroupCheck.assertSamplesIdentical(source, output, tracks: movie.tracks.map(\.id))
            // Every other track's box is byte-identical.
            for track in movie.tracks where track.id != stereo {
                XCTAssertEqual(try track.box.find(["mdia", "minf", "stbl", "stsd"])?.serialized(),
                               try input.track(id: track.id)?.box.find(["mdia", "minf", "stbl", "stsd"])?.serialized())
            }
            let streams = try GroupCheck.probe(output)
            XCTAssertEqual(streams.filter { $0.type == "audio" }, [GroupCheck.ProbedStream(type: "audio", tag: "mp4a", isDefault: true)], source)
        }
    }

    func testStripSpatialRefusesSilenceUnlessAllowed() throws {
        let folder = TemporaryFolder()
        let source = try writeVariant("no-fall", in: folder)
        let refused = runCLI(["strip-spatial", source, folder.path("out.mov")])
        XCTAssertEqual(refused.code, 65)
        XCTAssertTrue(refused.error.contains("no stereo fallback"), refused.error)
        XCTAssertTrue(refused.error.contains("use --allow-silence"), refused.error)
        XCTAssertThrowsError(try StripSpatial.edit(Movie.open(path: source), allowSilence: false)) { error in
            guard case KeepTrackError.refused(let refusal) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(refusal.kind, .wouldLeaveSilence)
            XCTAssertFalse("\(error)".contains("--"), "library messages name no command-line option: \(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.mov")))
        let allowed = runCLI(["strip-spatial", "--allow-silence", source, folder.path("out.mov")])
        XCTAssertEqual(allowed.code, 0, allowed.error)
        let movie = try Movie.open(path: folder.path("out.mov"))
        XCTAssertNil(movie.track(id: spatial))
        // The stereo track was in the group with the spatial one; left alone, it leaves the group and plays.
        XCTAssertEqual(movie.track(id: stereo)?.alternateGroup, 0)
        XCTAssertEqual(movie.track(id: stereo)?.isEnabled, true)
        let writer = try RealFixtures.require(RealFixtures.avAssetWriter)
        XCTAssertEqual(runCLI(["strip-spatial", writer, folder.path("w.mp4")]).code, 65)
    }

    // MARK: select

    func testSelectKeepsOneTrackPerGroup() throws {
        let folder = TemporaryFolder()
        var sources = [try writeVariant("iphone", in: folder), try writeVariant("both-enabled", in: folder), try writeVariant("spatial-first", in: folder)]
        if FileManager.default.fileExists(atPath: RealFixtures.iphone) { sources.append(RealFixtures.iphone) }
        for source in sources {
            for (prefer, kept, tag) in [("enabled", stereo, "mp4a"), ("stereo", stereo, "mp4a"), ("spatial", spatial, "apac")] {
                let output = folder.path("\((source as NSString).lastPathComponent)-\(prefer).mov")
                let result = runCLI(["select", source, output, "--prefer", prefer])
                XCTAssertEqual(result.code, 0, result.error)
                XCTAssertEqual(runCLI(["lint", output]).code, 0)
                let movie = try Movie.open(path: output)
                let audio = movie.tracks.filter { $0.kind == .audio }
                XCTAssertEqual(audio.map(\.id), [kept], "\(source) \(prefer)")
                XCTAssertEqual(audio.first?.isEnabled, true)
                XCTAssertEqual(audio.first?.alternateGroup, 0)
                XCTAssertTrue(movie.alternateGroups.isEmpty)
                try GroupCheck.assertSamplesIdentical(source, output, tracks: movie.tracks.map(\.id))
                XCTAssertEqual(try GroupCheck.probe(output).filter { $0.type == "audio" }, [GroupCheck.ProbedStream(type: "audio", tag: tag, isDefault: true)])
            }
        }
        XCTAssertEqual(runCLI(["select", sources[0], folder.path("x.mov"), "--prefer", "loud"]).code, 64)
    }

    func testSelectByLanguage() throws {
        let folder = TemporaryFolder()
        let source = try writeVariant("iphone", in: folder)
        // Both audio tracks say "und": an unknown language changes nothing, "und" narrows to both.
        let unmatched = runCLI(["select", source, folder.path("a.mov"), "--prefer", "spatial", "--language", "fra"])
        XCTAssertEqual(unmatched.code, 0)
        XCTAssertEqual(try Movie.open(path: folder.path("a.mov")).tracks.filter { $0.kind == .audio }.map(\.id), [spatial])
        XCTAssertTrue(unmatched.out.contains("not selected (preferring spatial)"), "no track is in French: the preference chose\n\(unmatched.out)")
        // A language that matches is named as what chose (ffmpeg groups its English and French AAC tracks).
        let languages = folder.path("languages.mp4")
        guard let made = runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=1", "-f", "lavfi", "-i", "sine=frequency=600:duration=1",
                                            "-map", "0", "-map", "1", "-c:a", "aac", "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra",
                                            languages]), made.code == 0 else { throw unavailable("ffmpeg cannot make \(languages)") }
        let matched = runCLI(["select", languages, folder.path("b.mp4"), "--language", "fra"])
        XCTAssertEqual(matched.code, 0, matched.error)
        XCTAssertTrue(matched.out.contains("removed track 1 (audio mp4a): not selected (language fra, then preferring enabled)"), matched.out)
        let movie = try Movie.open(path: source)
        let group = try XCTUnwrap(movie.alternateGroups.first).tracks
        XCTAssertEqual(SelectTracks.choose(from: group, prefer: .stereo, language: "und")?.id, stereo)
    }

    // MARK: extract

    func testExtractAACToM4AKeepsTiming() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("stereo.m4a")
        let result = runCLI(["extract", source, output, "--track", "2"])
        XCTAssertEqual(result.code, 0, result.error)
        let movie = try Movie.open(path: output)
        XCTAssertEqual(movie.fileType?.majorBrand, "M4A ")
        XCTAssertEqual(movie.tracks.map(\.id), [2])
        let original = try XCTUnwrap(try Movie.open(path: source).track(id: 2))
        let extracted = movie.tracks[0]
        XCTAssertEqual(extracted.editList?.entries, original.editList?.entries)
        XCTAssertEqual(extracted.mediaHeader.timescale, original.mediaHeader.timescale)
        XCTAssertEqual(try extracted.sampleEntries.first?.serialized(), try original.sampleEntries.first?.serialized())
        XCTAssertEqual(movie.header.duration, original.header.duration)
        XCTAssertTrue(extracted.isEnabled)
        try GroupCheck.assertSamplesIdentical(source, output, tracks: [2])
        XCTAssertEqual(try GroupCheck.probe(output), [GroupCheck.ProbedStream(type: "audio", tag: "mp4a", isDefault: true)])
        XCTAssertTrue(runTool("ffprobe", ["-v", "error", "-show_format", output])?.out.contains("major_brand=M4A") ?? false)
        XCTAssertEqual(runCLI(["lint", output]).code, 0)
    }

    func testExtractAPAC() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let refused = runCLI(["extract", source, folder.path("spatial.m4a"), "--track", "3"])
        XCTAssertEqual(refused.code, 64)
        XCTAssertTrue(refused.error.contains("name the output .mov"), refused.error)
        let output = folder.path("spatial.mov")
        XCTAssertEqual(runCLI(["extract", source, output, "--track", "3"]).code, 0)
        let movie = try Movie.open(path: output)
        XCTAssertEqual(movie.tracks.map(\.format), ["apac"])
        XCTAssertEqual(movie.tracks[0].references.count, 0)
        XCTAssertEqual(movie.tracks[0].audio?.channels, 4)
        try GroupCheck.assertSamplesIdentical(source, output, tracks: [3])
        XCTAssertEqual(try GroupCheck.probe(output), [GroupCheck.ProbedStream(type: "audio", tag: "apac", isDefault: true)])

        // The AVAssetWriter file's ISO sample entry may go to .m4a; its priming edit list survives.
        let writer = try RealFixtures.require(RealFixtures.avAssetWriter)
        let m4a = folder.path("writer.m4a")
        XCTAssertEqual(runCLI(["extract", writer, m4a, "--track", "1"]).code, 0)
        XCTAssertEqual(try Movie.open(path: m4a).tracks[0].editList?.entries, try Movie.open(path: writer).tracks[0].editList?.entries)
        XCTAssertNotNil(try Movie.open(path: m4a).tracks[0].editList)
        try GroupCheck.assertSamplesIdentical(writer, m4a, tracks: [1])
        XCTAssertEqual(runCLI(["extract", writer, folder.path("x.m4a"), "--track", "9"]).code, 64)
    }
}
