import Foundation
import XCTest
@testable import KeepTrack

/// Files that metadata taggers rewrote (Debian's python3-mutagen 1.46, TagLib 1.13 through python3-taglib,
/// AtomicParsley, exiftool): they grow the movie box and move what follows it, so every box that holds a
/// file offset must follow. mutagen and TagLib (the library of most music players and of kid3) update
/// `stco`/`co64` and only the first fragment's `tfhd`; AtomicParsley rewrites each
/// `tfhd` base offset wrongly (and may put padding between a moof and its mdat); ffmpeg's own
/// `+global_sidx` leaves them all behind the sidx it inserts. ffmpeg then reads other bytes as the
/// samples. keeptrack must refuse to read such a file as recorded, say why, and `fix` must repair it
/// so that ffmpeg reads exactly the untagged file's packets — and must leave valid layouts alone.
final class TaggerFlavourTests: XCTestCase {
    /// H.264 with B-frames and two AAC tracks of one alternate group, the second disabled (the
    /// iPhone's layout with a stereo stand-in for APAC), 3 s: three fragments with `frag_keyframe`.
    static let inputs = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3",
                         "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=3",
                         "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-bf", "2", "-g", "25",
                         "-c:a", "aac", "-b:a", "64k", "-disposition:a:1", "0"]

    static let mutagen = """
    import sys, mutagen.mp4
    movie = mutagen.mp4.MP4(sys.argv[1]); movie["\\xa9nam"] = ["A day at the beach " * 200]; movie.save()
    """

    /// TagLib picks its format by the file name (it refuses `.mov`).
    static let taglib = """
    import sys, taglib
    movie = taglib.File(sys.argv[1]); movie.tags["TITLE"] = ["A day at the beach " * 200]; movie.tags["ARTIST"] = ["Me"]
    unsaved = movie.save(); assert not unsaved, unsaved
    """

    enum Tagger: String, CaseIterable { case mutagen, taglib, atomicParsley }

    static func tag(_ path: String, with tagger: Tagger) throws {
        let result: (code: Int32, out: String)?
        switch tagger {
        case .mutagen: result = runTool("/usr/bin/python3", ["-c", mutagen, path])
        case .taglib: result = runTool("/usr/bin/python3", ["-c", taglib, path])
        case .atomicParsley: result = runTool("AtomicParsley", [path, "--title", "A day at the beach", "--artist", "Me", "--overWrite"])
        }
        guard let result else { throw unavailable("\(tagger.rawValue) is installed by scripts/setup.sh") }
        XCTAssertEqual(result.code, 0, "\(tagger.rawValue) on \(path): \(result.out)")
    }

    static func copy(_ path: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.copyItem(atPath: path, toPath: destination)
    }

    /// ffprobe's packets of every stream, by track id.
    static func packets(_ path: String) throws -> [UInt32: FFprobe.Stream] {
        var streams: [UInt32: FFprobe.Stream] = [:]
        for stream in try FFprobe.probe(path).streams { streams[try XCTUnwrap(stream.trackID)] = stream }
        return streams
    }

    func testStaleFragmentOffsetsAreRefusedAndRepaired() throws {
        let folder = TemporaryFolder()
        var cases: [(name: String, original: String, broken: String)] = []
        for flags in ["frag_keyframe+empty_moov", "frag_keyframe"] {
            let original = try FragmentedTests.makeFlavour(flags, ext: "mp4", arguments: ["-movflags", flags], in: folder, inputs: Self.inputs)
            for tagger in Tagger.allCases {
                let broken = folder.path("\(tagger.rawValue)-\(flags.replacingOccurrences(of: "+", with: "_")).mp4")
                try Self.copy(original, to: broken)
                try Self.tag(broken, with: tagger)
                cases.append(("\(tagger.rawValue) on \(flags)", original, broken))
            }
        }
        // ffmpeg's own: the sidx goes in front of fragments whose offsets were already written.
        let sidx = try FragmentedTests.makeFlavour("global_sidx", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov+global_sidx"],
                                                   in: folder, inputs: Self.inputs)
        cases.append(("ffmpeg +global_sidx", cases[0].original, sidx))

        for (name, original, broken) in cases {
            let expected = try Self.packets(original)
            XCTAssertEqual(expected.count, 3, name)
            // The harm: ffmpeg reads other bytes as the samples of the broken file.
            let misread = try Self.packets(broken)
            XCTAssertTrue(expected.keys.contains { FFprobe.difference(expected[$0]!, misread[$0]!) != nil }, "\(name): ffmpeg reads it right, so nothing was broken")

            let lint = runCLI(["lint", "--json", broken])
            XCTAssertEqual(lint.code, 1, "\(name): \(lint.out)")
            XCTAssertTrue(lint.out.contains("\"fragment-offsets-stale\""), "\(name): \(lint.out)")
            let before = try fileBytes(broken)
            let remux = runCLI(["remux", broken, folder.path("refused.mp4")])
            XCTAssertEqual(remux.code, 65, "\(name)")
            XCTAssertTrue(remux.error.contains("/tfhd") && remux.error.contains("keeptrack fix"), "\(name): \(remux.error)")
            XCTAssertThrowsError(try Movie.open(path: broken), name) { error in
                // The library's refusal says a repair exists without naming a command or option (the CLI adds `keeptrack fix`).
                XCTAssertTrue((error as? KeepTrackError).map(FragmentOffsetRepair.isRefusal) ?? false, "\(name): \(error)")
                XCTAssertFalse("\(error)".contains("keeptrack") || "\(error)".contains("--"), "\(name): \(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("refused.mp4")))
            let check = runCLI(["fix", broken])
            XCTAssertEqual(check.code, 0, "\(name): \(check.error)")
            XCTAssertTrue(check.out.contains("would change: repaired fragment offsets"), "\(name): \(check.out)")
            XCTAssertEqual(try fileBytes(broken), before, "\(name): a check wrote to its input")

            // In place: only offset fields change, and ffmpeg now reads the untagged file's packets.
            let patched = folder.path("patched.mp4")
            try Self.copy(broken, to: patched)
            let inPlace = runCLI(["fix", "--in-place", patched])
            XCTAssertEqual(inPlace.code, 0, "\(name): \(inPlace.error)")
            let after = try fileBytes(patched)
            XCTAssertEqual(after.count, before.count, name)
            let changed = zip(before, after).filter { $0 != $1 }.count
            XCTAssertGreaterThan(changed, 0, name)
            let repaired = try Self.packets(patched)
            for (id, stream) in expected { FFprobe.assertSamePackets(stream, try XCTUnwrap(repaired[id]), "\(name) fixed in place") }
            XCTAssertEqual(runCLI(["lint", patched]).code, 0, name)
            let movie = try Movie.open(path: patched)
            let moofs = Set(movie.boxes.filter { $0.type == "moof" }.map(\.offset))
            for tfra in movie.boxes.first(where: { $0.type == "mfra" })?.all("tfra") ?? [] {
                for entry in try TrackFragmentRandomAccessBox(box: tfra).entries {
                    XCTAssertTrue(moofs.contains(entry.moofOffset), "\(name): mfra/tfra entry points at byte \(entry.moofOffset), not at a moof")
                }
            }

            // Into a new file: a progressive copy with every packet ffmpeg reads from the untagged file.
            let output = folder.path("fixed.mp4")
            try? FileManager.default.removeItem(atPath: output)
            let fix = runCLI(["fix", broken, output])
            XCTAssertEqual(fix.code, 0, "\(name): \(fix.error)")
            XCTAssertEqual(try fileBytes(broken), before, "\(name): fix IN OUT wrote to its input")
            let written = try Self.packets(output)
            for (id, stream) in expected {
                if let difference = FFprobe.difference(fragmented: stream, try XCTUnwrap(written[id])) { XCTFail("\(name) fixed into a new file: track \(id): \(difference)") }
            }
            let flags = try Movie.open(path: output).tracks.map(\.isEnabled)
            XCTAssertEqual(flags, [true, true, false], name)
        }
    }

    /// ffmpeg's fragmented flavours as written, and base data offsets that are not the moof's own
    /// yet right (the same layout counted from elsewhere). (AtomicParsley refuses `default_base_moof`
    /// files: their `iso5` brand.)
    func testValidFragmentLayoutsAreLeftAlone() throws {
        let folder = TemporaryFolder()
        var files: [String] = []
        for flags in ["frag_keyframe+empty_moov", "frag_keyframe", "frag_keyframe+empty_moov+default_base_moof", "frag_keyframe+separate_moof",
                      "dash+frag_keyframe+global_sidx"] {
            files.append(try FragmentedTests.makeFlavour(flags, ext: "mp4", arguments: ["-movflags", flags], in: folder, inputs: Self.inputs))
        }
        // Every base moved 8 bytes on and every run's data offset 8 bytes back: the same layout.
        let rebased = folder.path("rebased.mp4")
        var bytes = [UInt8](try fileBytes(files[0]))
        for moof in try Movie.open(path: files[0]).boxes where moof.type == "moof" {
            for traf in moof.all("traf") {
                let tfhd = try XCTUnwrap(traf.first("tfhd")), base = Int(tfhd.payloadOffset) + 8
                let value = bytes[base..<base + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } + 8
                bytes.replaceSubrange(base..<base + 8, with: (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) })
                for trun in traf.all("trun") {
                    let field = Int(trun.payloadOffset) + 8
                    let offset = bytes[field..<field + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } - 8
                    bytes.replaceSubrange(field..<field + 4, with: (0..<4).map { UInt8(truncatingIfNeeded: offset >> (24 - 8 * UInt32($0))) })
                }
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: rebased))
        files.append(rebased)
        let reference = try Movie.open(path: files[0])
        for path in files {
            XCTAssertNil(try FragmentOffsetRepair.find(in: FileByteSource(path: path)), path)
            let lint = runCLI(["lint", path])
            XCTAssertEqual(lint.code, 0, "\(path): \(lint.out)")
            XCTAssertEqual(runCLI(["fix", path]).out.contains("nothing to fix"), true, path)
        }
        let moved = try Movie.open(path: rebased)
        XCTAssertEqual(moved.tracks.map { Array($0.sampleTable.samples.map(\.offset)) }, reference.tracks.map { Array($0.sampleTable.samples.map(\.offset)) })
        for (id, stream) in try Self.packets(files[0]) { FFprobe.assertSamePackets(stream, try XCTUnwrap(try Self.packets(rebased)[id]), "rebased") }
    }

    /// mutagen or TagLib on `default_base_moof` fragments: the samples still read right (offsets count
    /// from each moof), but the `mfra` index still names where the moofs were — a warning, and `fix
    /// --in-place` rewrites only those entries, each then naming the moof whose tfdt is its time.
    func testStaleFragmentIndexIsAWarningAndRepaired() throws {
        let folder = TemporaryFolder()
        let original = try FragmentedTests.makeFlavour("dbm", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov+default_base_moof"],
                                                       in: folder, inputs: Self.inputs)
        for tagger in [Tagger.mutagen, .taglib] {
            let tagged = folder.path("\(tagger.rawValue).mp4")
            try Self.copy(original, to: tagged)
            try Self.tag(tagged, with: tagger)
            let lint = runCLI(["lint", "--json", tagged])
            XCTAssertEqual(lint.code, 0, "\(tagger.rawValue): \(lint.out)")
            XCTAssertTrue(lint.out.contains("\"fragment-index-stale\""), lint.out)
            let expected = try Self.packets(original)
            for (id, stream) in expected { FFprobe.assertSamePackets(stream, try XCTUnwrap(try Self.packets(tagged)[id]), "\(tagger.rawValue)-tagged") }
            let before = try fileBytes(tagged)
            let fix = runCLI(["fix", "--in-place", tagged])
            XCTAssertEqual(fix.code, 0, fix.error)
            XCTAssertTrue(fix.out.contains("repaired the fragment index: 9 mfra/tfra entries"), fix.out)
            let after = try fileBytes(tagged)
            XCTAssertEqual(after.count, before.count)
            let movie = try Movie.open(path: tagged)
            let mfra = try XCTUnwrap(movie.boxes.first { $0.type == "mfra" })
            let changed = zip(before, after).enumerated().filter { $0.element.0 != $0.element.1 }.map { UInt64($0.offset) }
            XCTAssertFalse(changed.isEmpty)
            XCTAssertTrue(changed.allSatisfy { mfra.offset <= $0 && $0 < mfra.offset + mfra.size }, "bytes outside mfra changed")
            let moofs = movie.boxes.filter { $0.type == "moof" }
            for tfra in mfra.all("tfra") {
                let view = try TrackFragmentRandomAccessBox(box: tfra)
                for entry in view.entries {
                    let moof = try XCTUnwrap(moofs.first { $0.offset == entry.moofOffset }, "entry points at byte \(entry.moofOffset), not at a moof")
                    XCTAssertTrue(moof.all("traf").contains { $0.first("tfhd").flatMap(FragmentOffsetRepair.trackID) == view.trackID }, "entry's moof has no fragment of track \(view.trackID)")
                }
            }
            XCTAssertEqual(runCLI(["lint", tagged]).out.contains("clean"), true)
            for (id, stream) in expected { FFprobe.assertSamePackets(stream, try XCTUnwrap(try Self.packets(tagged)[id]), "\(tagger.rawValue): index repaired") }
        }
    }

    /// TagLib on the real iPhone recording (named .mp4: TagLib refuses .mov): its movie box is last, so
    /// the tags grow it in place; every track, flag, group, fallback and packet stays.
    func testTagLibOnTheRealRecording() throws {
        let folder = TemporaryFolder()
        let tagged = folder.path("tagged.mp4")
        try Self.copy(try RealFixtures.require(RealFixtures.iphone), to: tagged)
        _ = chmod(tagged, 0o644)
        try Self.tag(tagged, with: .taglib)
        XCTAssertNotEqual(try fileBytes(tagged).count, try fileBytes(RealFixtures.iphone).count, "TagLib wrote no tag")
        let source = try Movie.open(path: RealFixtures.iphone), movie = try Movie.open(path: tagged)
        XCTAssertEqual(movie.tracks.map(\.isEnabled), source.tracks.map(\.isEnabled))
        XCTAssertEqual(movie.tracks.map(\.alternateGroup), source.tracks.map(\.alternateGroup))
        XCTAssertEqual(movie.tracks.map { $0.referencedIDs("fall") }, source.tracks.map { $0.referencedIDs("fall") })
        XCTAssertEqual(runCLI(["lint", tagged]).code, 0)
        let expected = try Self.packets(RealFixtures.iphone), streams = try Self.packets(tagged)
        XCTAssertEqual(streams.count, expected.count)
        for (id, stream) in expected { FFprobe.assertSamePackets(stream, try XCTUnwrap(streams[id]), "TagLib-tagged") }
    }

    /// exiftool, the tool most people tag camera files with, rewrites the real iPhone recording with
    /// its movie box first: every track, flag, group, fallback and sample stays, and keeptrack reads
    /// and copies it as ffprobe does. (It refuses fragmented files and `saio` itself.)
    func testExiftoolRewriteOfTheRealRecording() throws {
        let folder = TemporaryFolder()
        let tagged = folder.path("tagged.mov")
        try Self.copy(try RealFixtures.require(RealFixtures.iphone), to: tagged)
        _ = chmod(tagged, 0o644)
        let result = try XCTUnwrap(runTool("exiftool", ["-q", "-overwrite_original", "-Keys:Title=A day at the beach",
                                                        "-GPSCoordinates=48.85, 2.35, 30", tagged]), "exiftool is installed by scripts/setup.sh")
        XCTAssertEqual(result.code, 0)
        let source = try Movie.open(path: RealFixtures.iphone), movie = try Movie.open(path: tagged)
        XCTAssertLessThan(try XCTUnwrap(movie.boxes.firstIndex { $0.type == "moov" }), try XCTUnwrap(movie.boxes.firstIndex { $0.type == "mdat" }), "exiftool moved the movie box first")
        XCTAssertEqual(movie.tracks.map(\.isEnabled), source.tracks.map(\.isEnabled))
        XCTAssertEqual(movie.tracks.map(\.alternateGroup), source.tracks.map(\.alternateGroup))
        XCTAssertEqual(movie.tracks.map { $0.referencedIDs("fall") }, source.tracks.map { $0.referencedIDs("fall") })
        XCTAssertEqual(movie.metadata.first { $0.key == "title" }?.value, "A day at the beach")
        XCTAssertEqual(runCLI(["lint", tagged]).code, 0)
        let output = folder.path("copy.mov")
        XCTAssertEqual(runCLI(["remux", tagged, output]).code, 0)
        let expected = try Self.packets(RealFixtures.iphone)
        for (label, path) in [("tagged", tagged), ("its remux", output)] {
            let streams = try Self.packets(path)
            XCTAssertEqual(streams.count, expected.count, label)
            for (id, stream) in expected { FFprobe.assertSamePackets(stream, try XCTUnwrap(streams[id]), "exiftool: \(label)") }
        }
    }
}
