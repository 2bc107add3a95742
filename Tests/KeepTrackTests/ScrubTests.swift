import Foundation
import XCTest
@testable import KeepTrack

/// `scrub`: every copy of the location goes (exiftool finds none, a byte search finds none of the
/// source's coordinates), faces and devices on request, and nothing else changes: the same packets
/// (ffprobe), the same bytes outside the items, lint clean; in place, any prefix of the writes leaves
/// a movie ffprobe reads holding each item whole or already free.
final class ScrubTests: XCTestCase {
    static var goPro: String { RealFixtures.folder.appendingPathComponent("wild/gopro-gpmf-parser/max-heromode.mp4").path }

    /// exiftool's location lines (`GPS …`, `Location …`) with every embedded document (`-ee`).
    static func exifLocationLines(_ path: String) throws -> [String] {
        guard let result = runTool("exiftool", ["-a", "-G1", "-ee", path]) else { throw unavailable("exiftool not installed") }
        XCTAssertEqual(result.code, 0, "exiftool on \(path)")
        return result.out.split(separator: "\n").map(String.init).filter { line in
            let name = line.split(separator: ":").first.map(String.init)?.lowercased() ?? ""
            return name.contains("gps") || name.contains("location")
        }
    }

    /// The coordinate texts a movie holds: every location item's value as text, as found by `inspect`.
    static func coordinateStrings(_ movie: Movie) -> [String] {
        PrivacyItems.find(in: movie).filter { $0.kind == .location && $0.value.contains(where: \.isNumber) && $0.value.count >= 6 }.map(\.value)
    }

    static func contains(_ path: String, _ text: String) throws -> Bool {
        try fileBytes(path).range(of: Data(text.utf8)) != nil
    }

    /// Every stream of `output` has the packets (sizes, times, flags, SHA-256) of the source's track with its id;
    /// `overwritten` tracks (text blanked inside their samples) keep their packets' sizes and times.
    static func assertKeptStreamsIdentical(_ input: String, _ output: String, dropped: Set<UInt32> = [], overwritten: Set<UInt32> = []) throws {
        let (a, b) = (try FFprobe.probe(input), try FFprobe.probe(output))
        XCTAssertEqual(b.streams.count, a.streams.filter { !dropped.contains($0.trackID ?? 0) }.count, "ffprobe streams of \(output)")
        for stream in b.streams {
            let original = try XCTUnwrap(a.stream(track: try XCTUnwrap(stream.trackID)), "track \(stream.trackID ?? 0) of \(output)")
            if overwritten.contains(stream.trackID ?? 0) {
                XCTAssertEqual(stream.packets.map { "\($0.size) \($0.pts ?? -1) \($0.dts ?? -1)" }, original.packets.map { "\($0.size) \($0.pts ?? -1) \($0.dts ?? -1)" }, stream.label)
                XCTAssertNotEqual(stream.packets.map(\.hash), original.packets.map(\.hash), "\(stream.label): the text was blanked")
            } else {
                FFprobe.assertSamePackets(original, stream, "scrub")
            }
        }
    }

    /// The output is the input's bytes except inside the plan's patch ranges.
    static func assertOnlyPatchesDiffer(_ input: String, _ output: String, plan: Scrub.Plan) throws {
        var expected = [UInt8](try fileBytes(input))
        for patch in plan.patches { expected.replaceSubrange(Int(patch.offset)..<Int(patch.offset) + patch.new.count, with: patch.new) }
        let written = [UInt8](try fileBytes(output))
        XCTAssertEqual(written.count, expected.count, "length unchanged")
        XCTAssertTrue(written == expected, "only the items' bytes changed")
    }

    func testRealRecordingHasNoLocationLeftAnywhere() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let movie = try Movie.open(path: input)
        let coordinates = Self.coordinateStrings(movie)
        XCTAssertTrue(coordinates.contains("+48.4270-123.3603+025.813/"), "inspect finds the ISO 6709 point")
        let items = PrivacyItems.find(in: movie)
        XCTAssertEqual(items.filter { $0.kind == .location && $0.path == "free" && $0.offset == 2518236 }.count, 2,
                       "the trailing free box holds a stale copy of the location and its accuracy")
        XCTAssertFalse(try Self.exifLocationLines(input).isEmpty, "exiftool sees the source's location")
        for text in coordinates { XCTAssertTrue(try Self.contains(input, text)) }

        let output = folder.path("scrubbed.mov")
        let result = runCLI(["scrub", input, output])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertEqual(try Self.exifLocationLines(output), [], "exiftool -ee finds no location")
        for text in coordinates { XCTAssertFalse(try Self.contains(output, text), "\(text) is still in the bytes") }
        XCTAssertFalse(try Self.contains(output, "14.806988"), "the accuracy value is gone")
        let plan = try Scrub.plan(movie, selection: .location)
        try Self.assertOnlyPatchesDiffer(input, output, plan: plan)
        try Self.assertKeptStreamsIdentical(input, output)
        let scrubbed = try Movie.open(path: output)
        XCTAssertEqual(Linter.lint(scrubbed).map(\.rule.id), Linter.lint(movie).map(\.rule.id), "lint finds what it found before")
        XCTAssertEqual(scrubbed.metadata, movie.metadata.filter { !$0.key.hasPrefix("location.") }, "every other metadata item kept")
        XCTAssertEqual(scrubbed.tracks.map { $0.metadata }, movie.tracks.map { $0.metadata }, "track metadata kept")
        // compare: the tracks agree; the movie differs only in the removed items (now free boxes).
        let comparison = runCLI(["compare", input, output]).out
        XCTAssertFalse(comparison.contains("sample data  differ"), comparison)
        let differing = comparison.split(separator: "\n").first { $0.hasPrefix("Movie boxes that differ:") }.map(String.init) ?? ""
        let onlyInSource = differing.components(separatedBy: ", ").filter { $0.contains("(only in A)") }
            .map { $0.replacingOccurrences(of: "Movie boxes that differ: ", with: "").replacingOccurrences(of: " (only in A)", with: "") }
        XCTAssertEqual(Set(onlyInSource), Set(plan.items.map(\.path).filter { $0 != "free" }), comparison)
        XCTAssertEqual(comparison.components(separatedBy: "boxes that differ  none").count - 1, movie.tracks.count, "every track's boxes agree")
    }

    /// The copy is the input's bytes with the patches and nothing reads the samples back, so a patch that
    /// would land in a sample (an item misplaced by a reader bug) is refused before anything is written;
    /// the recording's real plan touches no sample.
    func testAPatchInsideASampleIsRefused() throws {
        let movie = try Movie.open(path: try RealFixtures.require(RealFixtures.iphone))
        let plan = try Scrub.plan(movie, selection: .all)
        XCTAssertNoThrow(try Scrub.checkSamplesUntouched(movie, patches: plan.patches, overwrittenTracks: []))
        let sample = try XCTUnwrap(movie.tracks.first { $0.kind == .audio }?.sampleTable.samples.first { _ in true })
        let misplaced = InPlacePatch(offset: sample.offset + 1, old: try movie.source.read(at: sample.offset + 1, count: 2), new: [0, 0], what: "a misplaced item")
        XCTAssertThrowsError(try Scrub.checkSamplesUntouched(movie, patches: plan.patches + [misplaced], overwrittenTracks: [])) { error in
            XCTAssertTrue("\(error)".contains("inside a sample of track 2"), "\(error)")
        }
    }

    func testInPlaceEqualsTheCopyAndKeepsTheLength() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let copy = folder.path("copy.mov"), inPlace = folder.path("in-place.mov")
        XCTAssertEqual(runCLI(["scrub", input, copy, "--location", "--device"]).code, 0)
        try FileManager.default.copyItem(atPath: input, toPath: inPlace)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: inPlace)
        let first = runCLI(["scrub", "--in-place", "--location", "--device", inPlace])
        XCTAssertEqual(first.code, 0, first.error)
        XCTAssertTrue(try ChildProcess.identical(copy, inPlace), "in place writes what the copy holds")
        XCTAssertEqual(try fileBytes(inPlace).count, try fileBytes(input).count)
        let exif = try XCTUnwrap(runTool("exiftool", ["-a", "-G1", "-ee", inPlace])).out
        for removed in ["Make", "Model", "Software", "Camera Lens Model", "GPS"] {
            XCTAssertFalse(exif.contains("] \(removed)"), "exiftool still shows \(removed)")
        }
        XCTAssertTrue(exif.contains("Creation Date"), "the creation date is kept")
        let again = runCLI(["scrub", "--in-place", "--location", "--device", inPlace])
        XCTAssertTrue(again.out.contains("nothing to remove"), again.out)
    }

    /// A track to remove cannot go in place: `--in-place` replaces the input with a rewritten movie in one
    /// rename (the GoPro's GPS telemetry), and says so.
    func testInPlaceWithATrackToRemoveReplacesTheInput() throws {
        let input = try RealFixtures.require(Self.goPro)
        let folder = TemporaryFolder()
        let path = folder.path("gopro.mp4")
        try FileManager.default.copyItem(atPath: input, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let result = runCLI(["scrub", "--in-place", path, "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertTrue(result.out.contains("rewritten"), result.out)
        XCTAssertEqual(try Self.exifLocationLines(path), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path), ["gopro.mp4"], "no temporary left")
        let gps = Set(try Movie.open(path: input).tracks.filter { $0.format == "gpmd" }.map(\.id))
        try Self.assertKeptStreamsIdentical(input, path, dropped: gps, overwritten: Set(try Movie.open(path: input).tracks.filter { $0.format == "fdsc" }.map(\.id)))
    }

    /// Interruption simulated at every write step: each prefix of the in-place writes leaves a movie
    /// that keeptrack and ffprobe read, where each location item reads as its old value or is gone.
    func testEveryPrefixOfInPlaceWritesIsReadable() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let movie = try Movie.open(path: input)
        let plan = try Scrub.plan(movie, selection: .location)
        XCTAssertGreaterThanOrEqual(plan.patches.count, 4)
        let original = Dictionary(uniqueKeysWithValues: movie.metadata.map { ($0.key, $0.value) })
        let streamCount = try FFprobe.probe(input, packets: false).streams.count
        for count in 0...plan.patches.count {
            let partial = folder.path("partial-\(count).mov")
            try FileManager.default.copyItem(atPath: input, toPath: partial)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: partial)
            try InPlacePatching.write(Array(plan.patches.prefix(count)), to: partial)
            let opened = try Movie.open(path: partial)
            for item in opened.metadata { XCTAssertEqual(item.value, original[item.key], "prefix \(count): \(item.key) is old or gone, never mixed") }
            XCTAssertEqual(try FFprobe.probe(partial, packets: false).streams.count, streamCount, "prefix \(count): ffprobe reads it")
            XCTAssertEqual(runCLI(["scrub", "--in-place", partial]).code, 0, "prefix \(count)")
            XCTAssertEqual(try Self.exifLocationLines(partial), [], "prefix \(count): a rerun finishes the job")
        }
    }

    /// A real SIGKILL after the first write (the test hook pauses between writes).
    func testInPlaceKilledBetweenWritesLeavesAReadableFile() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let path = folder.path("victim.mov")
        try FileManager.default.copyItem(atPath: input, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let plan = try Scrub.plan(try Movie.open(path: path), selection: .location)
        let process = try ChildProcess.start(["scrub", "--in-place", path], environment: ["KEEPTRACK_TEST_PAUSE_BETWEEN_PATCHES_MS": "5000"])
        func bytes(_ patch: InPlacePatch) throws -> [UInt8] { try FileByteSource(path: path).read(at: patch.offset, count: patch.new.count) }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, try bytes(plan.patches[0]) != plan.patches[0].new { usleep(2000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(try bytes(plan.patches[0]), plan.patches[0].new, "the first write reached the file")
        for patch in plan.patches.dropFirst() { XCTAssertEqual(try bytes(patch), patch.old, "killed before \(patch.what)") }
        XCTAssertEqual(try FFprobe.probe(path, packets: false).streams.count, try FFprobe.probe(input, packets: false).streams.count)
        XCTAssertFalse(try Movie.open(path: path).metadata.contains { $0.key == "location.accuracy.horizontal" }, "the first item is free")
        XCTAssertEqual(try ChildProcess.run(["scrub", "--in-place", path]).code, 0)
        XCTAssertEqual(try Self.exifLocationLines(path), [])
    }

    func testFacesTrackAndItsReferencesGo() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let movie = try Movie.open(path: input)
        let faces = Set(movie.tracks.filter { $0.timedMetadataKeys.contains { $0.contains("detected-face") } }.map(\.id))
        XCTAssertEqual(faces.count, 1)
        let output = folder.path("no-faces.mov")
        let result = runCLI(["scrub", input, output, "--faces"])
        XCTAssertEqual(result.code, 0, result.error)
        let scrubbed = try Movie.open(path: output)
        XCTAssertEqual(Set(scrubbed.tracks.map(\.id)), Set(movie.tracks.map(\.id)).subtracting(faces))
        XCTAssertFalse(scrubbed.tracks.contains { $0.references.contains { !Set($0.trackIDs).isDisjoint(with: faces) } })
        for track in scrubbed.tracks {
            let source = try XCTUnwrap(movie.tracks.first { $0.id == track.id })
            XCTAssertEqual([track.isEnabled, track.alternateGroup == source.alternateGroup], [source.isEnabled, true], "track \(track.id)")
            XCTAssertEqual(track.references.map(\.type), source.references.map(\.type), "track \(track.id) references")
        }
        XCTAssertEqual(scrubbed.metadata, movie.metadata, "--faces alone keeps the location")
        try Self.assertKeptStreamsIdentical(input, output, dropped: faces)
    }

    func testGoProGPSTrackAndUserDataGo() throws {
        let input = try RealFixtures.require(Self.goPro)
        let folder = TemporaryFolder()
        let movie = try Movie.open(path: input)
        let coordinates = Self.coordinateStrings(movie)
        XCTAssertFalse(coordinates.isEmpty)
        XCTAssertFalse(try Self.exifLocationLines(input).isEmpty)
        let output = folder.path("gopro.mp4")
        let result = runCLI(["scrub", input, output])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertEqual(try Self.exifLocationLines(output), [], "no GPS in udta nor in the telemetry")
        for text in coordinates { XCTAssertFalse(try Self.contains(output, text), text) }
        let gps = Set(movie.tracks.filter { $0.format == "gpmd" }.map(\.id))
        XCTAssertEqual(Set(try Movie.open(path: output).tracks.map(\.id)), Set(movie.tracks.map(\.id)).subtracting(gps))
        let description = Set(movie.tracks.filter { $0.format == "fdsc" }.map(\.id))
        try Self.assertKeptStreamsIdentical(input, output, dropped: gps, overwritten: description)
        let exif = try XCTUnwrap(runTool("exiftool", ["-a", "-G1", input])).out
        XCTAssertTrue(exif.contains("Camera Serial Number"), "the camera serial is in the source")
        let device = folder.path("device.mp4")
        XCTAssertEqual(runCLI(["scrub", input, device, "--device"]).code, 0)
        let after = try XCTUnwrap(runTool("exiftool", ["-a", "-G1", device])).out
        for value in ["C3353424500199", "C33632245042171", "H19.03.01.30.00", "GoPro Max"] {
            XCTAssertTrue(exif.contains(value), "the source shows \(value)")
            XCTAssertFalse(after.contains(value), "--device left \(value) for exiftool")
        }
        // The serial numbers and firmware are gone from the bytes too; the model's name stays inside the
        // telemetry samples (a device name in every GPMF packet), which --location removes with the track.
        for value in ["C3353424500199", "C33632245042171", "H19.03.01.30.00"] {
            XCTAssertFalse(try Self.contains(device, value), "--device left \(value) in the bytes")
        }
        XCTAssertFalse(try Self.exifLocationLines(device).isEmpty, "--device alone keeps the location")
    }

    /// What ffmpeg writes for `-metadata location=…` (udta ©xyz; mdta keys with use_metadata_tags).
    func testFFmpegWrittenLocationGoes() throws {
        let folder = TemporaryFolder()
        for (name, extra) in [("plain.mov", [String]()), ("plain.mp4", []), ("keys.mov", ["-movflags", "use_metadata_tags"])] {
            let input = folder.path(name)
            let made = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-f", "lavfi",
                                                        "-i", "sine=frequency=440", "-t", "1", "-c:v", "mpeg4", "-c:a", "aac",
                                                        "-metadata", "location=+12.3456-065.4321/", "-metadata", "title=kept"] + extra + [input]),
                                 "ffmpeg installed by scripts/setup.sh")
            XCTAssertEqual(made.code, 0, name)
            XCTAssertFalse(try Self.exifLocationLines(input).isEmpty, "\(name): exiftool sees ffmpeg's location")
            let output = folder.path("scrubbed-" + name)
            let result = runCLI(["scrub", input, output, "--json"])
            XCTAssertEqual(result.code, 0, result.error)
            XCTAssertTrue(result.out.contains("\"action\" : \"scrubbed\"") || result.out.contains("\"action\": \"scrubbed\""), result.out)
            XCTAssertEqual(try Self.exifLocationLines(output), [], name)
            XCTAssertFalse(try Self.contains(output, "12.3456"), name)
            XCTAssertTrue(try XCTUnwrap(runTool("exiftool", ["-Title", "-s3", output])).out.contains("kept"), "\(name): the title stays")
            try Self.assertKeptStreamsIdentical(input, output)
            try Self.assertOnlyPatchesDiffer(input, output, plan: try Scrub.plan(try Movie.open(path: input), selection: .location))
        }
    }

    /// Folder mode: outputs mirror the tree, a report is written, and a rerun keeps what is done.
    func testFolderRunWithReportResumes() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let source = folder.path("in")
        try FileManager.default.createDirectory(atPath: source + "/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: input, toPath: source + "/a.mov")
        try FileManager.default.copyItem(atPath: input, toPath: source + "/sub/b.mov")
        let out = folder.path("out"), report = folder.path("report.json")
        let first = runCLI(["scrub", source, "-r", "--out-dir", out, "-j", "2", "--report", report])
        XCTAssertEqual(first.code, 0, first.error)
        for name in ["a.mov", "sub/b.mov"] { XCTAssertEqual(try Self.exifLocationLines(out + "/" + name), [], name) }
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: try fileBytes(report)) as? [String: Any])
        XCTAssertTrue(String(describing: rows).contains("scrubbed"), "\(rows)")
        let second = runCLI(["scrub", source, "-r", "--out-dir", out, "-j", "2"])
        XCTAssertEqual(second.code, 0, second.error)
        XCTAssertEqual(second.out.components(separatedBy: "holds nothing to remove").count - 1, 2, second.out)
    }

    /// XMP written by exiftool (udta/XMP_ in .mov, the XMP uuid box in .mp4): the GPS properties become
    /// whitespace, the rest of the packet (the title) stays and still parses.
    func testXMPLocationPropertiesGoTheRestStays() throws {
        let folder = TemporaryFolder()
        for name in ["xmp.mov", "xmp.mp4"] {
            let input = folder.path(name)
            XCTAssertEqual(try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "1",
                                                            "-c:v", "mpeg4", input])).code, 0)
            guard let tagged = runTool("exiftool", ["-q", "-overwrite_original", "-XMP-exif:GPSLatitude=12.3456", "-XMP-exif:GPSLongitude=65.4321",
                                                    "-XMP-dc:Title=kept", input]) else { throw unavailable("exiftool not installed") }
            XCTAssertEqual(tagged.code, 0)
            XCTAssertFalse(try Self.exifLocationLines(input).isEmpty, "\(name): exiftool reads the XMP GPS")
            let output = folder.path("scrubbed-" + name)
            XCTAssertEqual(runCLI(["scrub", input, output]).code, 0)
            XCTAssertEqual(try Self.exifLocationLines(output), [], name)
            XCTAssertEqual(try XCTUnwrap(runTool("exiftool", ["-XMP-dc:Title", "-s3", output])).out.trimmingCharacters(in: .whitespacesAndNewlines), "kept")
            XCTAssertFalse(try Self.contains(output, "GPSLatitude"), name)
            try Self.assertOnlyPatchesDiffer(input, output, plan: try Scrub.plan(try Movie.open(path: input), selection: .location))
        }
    }

    /// `inspect --json` lists each identifying item with its kind, box path, byte offset and removal.
    func testInspectJSONListsWhereEachItemLives() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let result = runCLI(["inspect", "--json", input])
        XCTAssertEqual(result.code, 0)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let rows = try XCTUnwrap(object["identifying"] as? [[String: Any]])
        func row(_ name: String, path: String) -> [String: Any]? {
            rows.first { $0["name"] as? String == name && $0["path"] as? String == path }
        }
        let point = try XCTUnwrap(row("com.apple.quicktime.location.ISO6709", path: "moov/meta/ilst/0x00000003"))
        XCTAssertEqual(point["offset"] as? Int, 2518044)
        XCTAssertEqual(point["value"] as? String, "+48.4270-123.3603+025.813/")
        XCTAssertEqual(point["removal"] as? String, "free box")
        XCTAssertEqual(row("com.apple.quicktime.location.ISO6709 (stale copy)", path: "free")?["offset"] as? Int, 2518236)
        XCTAssertNotNil(row("com.apple.quicktime.location.accuracy.horizontal", path: "moov/meta/ilst/0x00000001"))
        XCTAssertEqual(row("com.apple.quicktime.model", path: "moov/meta/ilst/0x00000005")?["kind"] as? String, "device")
        XCTAssertEqual(row("com.apple.quicktime.camera.lens_model", path: "moov/trak/meta/ilst/0x00000001")?["kind"] as? String, "device")
        XCTAssertEqual(row("com.apple.quicktime.creationdate", path: "moov/meta/ilst/0x00000007")?["removal"] as? String, "kept")
        XCTAssertEqual(rows.filter { $0["kind"] as? String == "face" }.map { $0["removal"] as? String }, ["drop track"])
        let text = runCLI(["inspect", input]).out
        XCTAssertTrue(text.contains("location  com.apple.quicktime.location.ISO6709: +48.4270-123.3603+025.813/  [moov/meta/ilst/0x00000003 at byte 2518044; free box]"), text)
    }

    /// Usage errors are 64, a missing input 66, an existing output 73 without --force; nothing is written.
    func testBadInvocationsWriteNothing() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        XCTAssertEqual(runCLI(["scrub", input]).code, 64, "IN alone")
        XCTAssertEqual(runCLI(["scrub", input, "--in-place", "--out-dir", folder.path("o")]).code, 64)
        XCTAssertEqual(runCLI(["scrub", folder.path("missing.mov"), folder.path("out.mov")]).code, 66)
        let existing = folder.path("exists.mov")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: existing))
        let refused = runCLI(["scrub", input, existing])
        XCTAssertEqual(refused.code, 73, refused.error)
        XCTAssertEqual(try fileBytes(existing), Data("keep".utf8))
        XCTAssertEqual(runCLI(["scrub", input, existing, "--force"]).code, 0)
        XCTAssertEqual(try Self.exifLocationLines(existing), [])
    }

    /// The stale-copy scanner reads bytes nobody validated: the real recording with its trailing free box
    /// damaged at random (sizes, counts, key indexes) must give items or nothing, never a crash, and every
    /// planned patch must lie inside the file.
    func testDamagedFreeBoxCopiesAreReadSafely() throws {
        let input = try RealFixtures.require(RealFixtures.iphone)
        let original = [UInt8](try fileBytes(input))
        let free = 2518236..<original.count
        var generator = SeededGenerator(seed: 33)
        for round in 0..<200 {
            var bytes = original
            for _ in 0..<(1 + round % 12) {
                let position = Int.random(in: free.lowerBound + 8..<free.upperBound, using: &generator)
                bytes[position] = round % 3 == 0 ? 0xFF : UInt8.random(in: 0...255, using: &generator)
            }
            let movie = try Movie(source: MemoryByteSource(bytes))
            _ = PrivacyItems.find(in: movie)
            guard let plan = try? Scrub.plan(movie, selection: .all) else { continue }
            for patch in plan.patches { XCTAssertLessThanOrEqual(Int(patch.offset) + patch.new.count, bytes.count, "round \(round)") }
        }
    }
}

/// A repeatable random sequence (SplitMix64), so a failing round replays.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
