import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Hostile inputs: each file is a valid synthetic movie corrupted in one way. Every one must end
/// with exit 65 and a message naming the box path and a byte offset inside that box, within a
/// second, without crashing.
final class MalformedInputTests: XCTestCase {
    struct Case {
        let name: String
        let bytes: [UInt8]
        /// Text the message must contain: the box path (or what the file is, for non-movies).
        let expected: String
        /// The reported offset must lie in this range (the box named, or 0 for whole-file errors).
        let offsets: ClosedRange<UInt64>
        /// Part of the reason, where a specific one is expected.
        var reason: String? = nil
    }

    /// The file range of `box`, for the offset check.
    static func extent(_ box: Box) -> ClosedRange<UInt64> { box.offset...(box.offset + box.size) }

    static func makeCases() throws -> [Case] {
        var cases: [Case] = []
        func add(_ name: String, variant: String = "iphone", expected: String, at boxPath: String?, reason: String? = nil,
                 _ corrupt: (inout MovieBytes) throws -> Void) throws {
            var movie = try MovieBytes(variant: variant)
            let offsets = try boxPath.map { try extent(movie.box($0)) } ?? 0...UInt64.max
            try corrupt(&movie)
            cases.append(Case(name: name, bytes: movie.bytes, expected: expected, offsets: offsets, reason: reason))
        }
        let stbl = "mdia/minf/stbl"

        cases.append(Case(name: "empty file", bytes: [], expected: "the file is empty", offsets: 0...0))
        cases.append(Case(name: "text file", bytes: Array(String(repeating: "Hello, this is a text file, not a movie.\n", count: 20).utf8),
                          expected: "not a QuickTime/MP4 movie", offsets: 0...0))
        cases.append(Case(name: "tiny text file", bytes: Array("hi\n".utf8), expected: "not a QuickTime/MP4 movie", offsets: 0...0))
        try add("truncated in moov", expected: "moov", at: "moov") { movie in
            let moov = try movie.box("moov")
            movie.truncate(to: moov.offset + moov.size / 2)
        }
        // A file cut inside mdat (moov whole) is not malformed: it is read as truncated (TruncatedMovieTests).
        try add("box larger than its parent", expected: "moov/trak/tkhd", at: "moov/trak/tkhd") { movie in
            movie.setUInt(try movie.box("moov/trak").size, at: try movie.box("moov/trak/tkhd").offset, width: 4)
        }
        try add("box larger than the file", variant: "moov-first", expected: "moov", at: "moov") { movie in
            movie.setUInt(UInt64(movie.bytes.count) * 2, at: try movie.box("moov").offset, width: 4)
        }
        try add("top-level box smaller than its header", expected: "mdat", at: "mdat") { movie in
            movie.setUInt(3, at: try movie.box("mdat").offset, width: 4)
        }
        try add("size 0 inside moov", expected: "moov/trak/tkhd", at: "moov/trak/tkhd") { movie in
            movie.setUInt(0, at: try movie.box("moov/trak/tkhd").offset, width: 4)
        }
        try add("size 1 with a 64-bit size beyond the parent", expected: "moov/trak/tkhd", at: "moov/trak/tkhd") { movie in
            let tkhd = try movie.box("moov/trak/tkhd")
            movie.setUInt(1, at: tkhd.offset, width: 4)
            movie.setUInt(1 << 40, at: tkhd.offset + 8, width: 8)
        }
        try add("size 1 with a 64-bit size smaller than its header", expected: "moov/trak/tkhd", at: "moov/trak/tkhd") { movie in
            let tkhd = try movie.box("moov/trak/tkhd")
            movie.setUInt(1, at: tkhd.offset, width: 4)
            movie.setUInt(8, at: tkhd.offset + 8, width: 8)
        }
        try add("zero-length child that would loop", expected: "moov/trak[2]/mdia", at: "moov/trak[2]/mdia/mdhd") { movie in
            movie.setUInt(4, at: try movie.box("moov/trak[2]/mdia/mdhd").offset, width: 4)
        }
        cases.append(try deepNesting())
        try add("60000 empty top-level boxes", expected: "more than \(BoxParser.maximumTopLevelBoxes) top-level boxes", at: nil) { movie in
            for _ in 0..<60_000 { movie.bytes += [0, 0, 0, 8] + FourCC("free").bytes }
        }
        try add("stsz sample count 2^31 with a short table", expected: "moov/trak[2]/\(stbl)/stsz", at: "moov/trak[2]/\(stbl)/stsz") { movie in
            try movie.setField("moov/trak[2]/\(stbl)/stsz", at: 8, 1 << 31, width: 4)
        }
        try add("stsz constant size with 2^31 samples", expected: "moov/trak[2]/\(stbl)/stts", at: "moov/trak[2]/\(stbl)/stts") { movie in
            try movie.setField("moov/trak[2]/\(stbl)/stsz", at: 4, 1, width: 4)
            try movie.setField("moov/trak[2]/\(stbl)/stsz", at: 8, 1 << 31, width: 4)
        }
        try add("stts entry count lying", expected: "moov/trak/\(stbl)/stts", at: "moov/trak/\(stbl)/stts") { movie in
            try movie.setField("moov/trak/\(stbl)/stts", at: 4, 0x7FFF_FFFF, width: 4)
        }
        try add("stts sample total lying", expected: "moov/trak/\(stbl)/stts", at: "moov/trak/\(stbl)/stts") { movie in
            let path = "moov/trak/\(stbl)/stts"
            let first = movie.uint(at: try movie.box(path).payloadOffset + 8, width: 4)
            try movie.setField(path, at: 8, first + 5, width: 4)
        }
        try add("stsc entry count lying", expected: "moov/trak[2]/\(stbl)/stsc", at: "moov/trak[2]/\(stbl)/stsc") { movie in
            try movie.setField("moov/trak[2]/\(stbl)/stsc", at: 4, 0x1000_0000, width: 4)
        }
        try add("stsc pointing at chunks that do not exist", expected: "moov/trak[2]/\(stbl)/stsc", at: "moov/trak[2]/\(stbl)/stsc",
                reason: "points at chunk 1000, there are 4") { movie in
            try movie.setField("moov/trak[2]/\(stbl)/stsc", at: 44, 1000, width: 4) // the last of 4 entries
        }
        try add("stsc samples per chunk lying", expected: "moov/trak/\(stbl)/stsc", at: "moov/trak/\(stbl)/stsc") { movie in
            try movie.setField("moov/trak/\(stbl)/stsc", at: 12, 0xFFFF_FFFF, width: 4)
        }
        try add("stsc naming a sample description that does not exist", expected: "moov/trak/\(stbl)/stsc", at: "moov/trak/\(stbl)/stsc") { movie in
            try movie.setField("moov/trak/\(stbl)/stsc", at: 16, 9, width: 4)
        }
        try add("chunk offset past the end", expected: "moov/trak[3]/\(stbl)/stco", at: "moov/trak[3]/\(stbl)/stco") { movie in
            try movie.setField("moov/trak[3]/\(stbl)/stco", at: 8, 0xFFFF_FF00, width: 4)
        }
        try add("overlapping sample ranges of two tracks", expected: "overlaps chunk", at: "moov/trak[2]/\(stbl)/stco") { movie in
            let videoFirst = movie.uint(at: try movie.box("moov/trak/\(stbl)/stco").payloadOffset + 8, width: 4)
            try movie.setField("moov/trak[2]/\(stbl)/stco", at: 8, videoFirst + 10, width: 4)
        }
        try add("tkhd too short for its version", expected: "moov/trak/tkhd", at: "moov/trak/tkhd", reason: "version 1 needs 92") { movie in
            try movie.setField("moov/trak/tkhd", at: 0, 1, width: 1)
        }
        try add("mvhd too short for its version", expected: "moov/mvhd", at: "moov/mvhd", reason: "too short for version 1") { movie in
            try movie.setField("moov/mvhd", at: 0, 1, width: 1)
        }
        try add("duplicate track ids", expected: "moov/trak[2]/tkhd", at: "moov/trak[2]") { movie in
            try movie.setField("moov/trak[2]/tkhd", at: 12, 1, width: 4)
        }
        try add("trak without mdia", expected: "moov/trak[2]", at: "moov/trak[2]") { movie in
            movie.setUInt(UInt64(FourCC("xdia").rawValue), at: try movie.box("moov/trak[2]/mdia").offset + 4, width: 4)
        }
        try add("elst entry count lying", expected: "moov/trak/edts/elst", at: "moov/trak/edts/elst") { movie in
            try movie.setField("moov/trak/edts/elst", at: 4, 0x0FFF_FFFF, width: 4)
        }
        // An external data reference: the media is in another file, which the message names.
        try add("external data reference (url )", variant: "mp4", expected: "moov/trak/mdia/minf/dinf/dref/url ", at: "moov/trak/mdia/minf/dinf/dref",
                reason: "media data is in another file, 'file:///Volumes/Media/clip-video.mp4'") { movie in
            try movie.rebuild("moov/trak/mdia/minf/dinf/dref") { dref in
                dref.modifyChildren { $0[0] = Box(type: "url ", bytes: [0, 0, 0, 0] + Array("file:///Volumes/Media/clip-video.mp4".utf8) + [0]) }
            }
        }
        try add("external data reference (alis)", expected: "moov/trak[2]/mdia/minf/dinf/dref/alis", at: "moov/trak[2]/mdia/minf/dinf/dref",
                reason: "media data is in another file, 'A001_C002_audio.mov'") { movie in
            // A QuickTime alias record: its file name is a Pascal string at byte 50.
            var record = [UInt8](repeating: 0, count: 150)
            let name = Array("A001_C002_audio.mov".utf8)
            record[4] = 0; record[5] = 150; record[7] = 2
            record[50] = UInt8(name.count)
            record.replaceSubrange(51..<51 + name.count, with: name)
            try movie.rebuild("moov/trak[2]/mdia/minf/dinf/dref") { dref in
                dref.modifyChildren { $0[0] = Box(type: "alis", bytes: [0, 0, 0, 0] + record) }
            }
        }
        // A compressed movie header: moov holds only cmov (dcom names the compressor, cmvd the data).
        try add("compressed movie header", expected: "moov/cmov", at: "moov", reason: "compressed movie header (cmov) is not supported") { movie in
            try movie.rebuild("moov") { moov in
                var compressed = ByteWriter()
                compressed.u32(4096) // uncompressed size
                compressed.append([0x78, 0x9C] + [UInt8](repeating: 0x55, count: 200))
                moov.modifyChildren { $0 = [Box(type: "cmov", children: [Box(type: "dcom", bytes: FourCC("zlib").bytes),
                                                                         Box(type: "cmvd", bytes: compressed.bytes)])] }
            }
        }
        try add("stss sample number outside the track", expected: "moov/trak/\(stbl)/stss", at: "moov/trak/\(stbl)/stss") { movie in
            try movie.setField("moov/trak/\(stbl)/stss", at: 8, 0xFFFF_FFF0, width: 4)
        }
        return cases
    }

    /// ftyp, then moov holding `trak` boxes nested 100 000 deep: unbounded recursion would exhaust the stack.
    static func deepNesting() throws -> Case {
        let depth = 100_000
        var writer = ByteWriter(capacity: depth * 8 + 40)
        writer.u32(20); writer.fourCC("ftyp"); writer.fourCC("qt  "); writer.u32(0); writer.fourCC("qt  ")
        for level in 0...depth {
            writer.u32(UInt32((depth + 1 - level) * 8))
            writer.fourCC(level == 0 ? "moov" : "trak")
        }
        return Case(name: "nesting 100000 deep", bytes: writer.bytes, expected: "nested more than \(BoxParser.maximumDepth) deep",
                    offsets: 20...UInt64(20 + 8 * BoxParser.maximumDepth + 8))
    }

    func testEveryMalformedFileEndsWithExit65NamingBoxAndOffset() throws {
        let folder = TemporaryFolder()
        let cases = try Self.makeCases()
        XCTAssertGreaterThanOrEqual(cases.count, 30)
        for (index, testCase) in cases.enumerated() {
            let path = folder.path("case-\(index).mov")
            try Data(testCase.bytes).write(to: URL(fileURLWithPath: path))
            let started = Date()
            let result = runCLI(["inspect", path])
            let elapsed = Date().timeIntervalSince(started)
            let message = result.error
            if ProcessInfo.processInfo.environment["KEEPTRACK_SHOW_MESSAGES"] != nil {
                print("[\(testCase.name)] \(Int(elapsed * 1000)) ms: \(message)")
            }
            XCTAssertEqual(result.code, 65, "\(testCase.name): \(message)")
            XCTAssertTrue(message.contains(testCase.expected), "\(testCase.name): message lacks '\(testCase.expected)': \(message)")
            if let reason = testCase.reason { XCTAssertTrue(message.contains(reason), "\(testCase.name): reason lacks '\(reason)': \(message)") }
            // A hang or quadratic blow-up guard, not a speed measurement (that is bench/'s job, and a loaded
            // machine must not fail the suite): every case takes well under a second when the machine is idle.
            XCTAssertLessThan(elapsed, 15.0, "\(testCase.name) took \(elapsed) s: a hang or a blow-up in the parser")
            guard let range = message.range(of: #"at byte (\d+)"#, options: .regularExpression),
                  let offset = UInt64(message[range].dropFirst("at byte ".count)) else {
                XCTFail("\(testCase.name): no byte offset in \(message)")
                continue
            }
            XCTAssertTrue(testCase.offsets.contains(offset), "\(testCase.name): offset \(offset) outside \(testCase.offsets): \(message)")
        }
    }

    /// The built `keeptrack` next to the test bundle, run as its own process so its peak memory can be measured.
    static var executable: String? {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [folder, folder.deletingLastPathComponent()].map { $0.appendingPathComponent("keeptrack").path }
        return candidates.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// Runs `executable` under GNU time with output discarded; returns its exit status and peak resident memory.
    /// (GNU time forks from its own small process, so the child's peak is not inflated by this test process.)
    static func runMeasured(_ executable: String, _ arguments: [String], folder: TemporaryFolder) throws -> (status: Int32, peakBytes: Int) {
        let report = folder.path("time-\(UUID().uuidString).txt")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M", "-o", report, executable] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let kibibytes = text.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last ?? Int.max / 1024
        return (process.terminationStatus, kibibytes * 1024)
    }

    /// Each malformed file, inspected by the real executable: exit 65 (not a signal) with peak memory under 64 MiB.
    func testPeakMemoryOfEveryMalformedFileStaysUnder64MiB() throws {
        guard let executable = Self.executable else { throw unavailable("keeptrack executable not found next to the test bundle") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else { throw unavailable("GNU time is not installed (scripts/setup.sh installs it)") }
        let folder = TemporaryFolder()
        var peaks: [(String, Int)] = []
        for (index, testCase) in try Self.makeCases().enumerated() {
            let path = folder.path("measured-\(index).mov")
            try Data(testCase.bytes).write(to: URL(fileURLWithPath: path))
            let result = try Self.runMeasured(executable, ["inspect", path], folder: folder)
            XCTAssertEqual(result.status, 65, "\(testCase.name)")
            XCTAssertLessThan(result.peakBytes, 64 << 20, "\(testCase.name) peaked at \(result.peakBytes >> 20) MiB")
            peaks.append((testCase.name, result.peakBytes))
        }
        if ProcessInfo.processInfo.environment["KEEPTRACK_SHOW_MESSAGES"] != nil {
            for (name, bytes) in peaks { print("[\(name)] peak \(bytes >> 10) KiB") }
        }
    }

    func testTextFileMessageNamesNoBoxType() throws {
        let folder = TemporaryFolder()
        let path = folder.path("notes.mov")
        try Data("Hello, this is a text file.\n".utf8).write(to: URL(fileURLWithPath: path))
        let result = runCLI(["inspect", path])
        XCTAssertEqual(result.code, 65)
        // Whole-file error (no box path): bytes 4..<8 ("o, t") must not be named as a box type.
        XCTAssertTrue(result.error.contains("file at byte 0: not a QuickTime/MP4 movie"), result.error)
    }

    /// Every case is also a valid-looking movie for `dump` up to the broken box: dump must not crash either.
    func testDumpSurvivesEveryMalformedFile() throws {
        let folder = TemporaryFolder()
        for (index, testCase) in try Self.makeCases().enumerated() {
            let path = folder.path("dump-\(index).mov")
            try Data(testCase.bytes).write(to: URL(fileURLWithPath: path))
            let result = runCLI(["dump", path])
            XCTAssertTrue(result.code == 0 || result.code == 65, "\(testCase.name): dump exit \(result.code) \(result.error)")
        }
    }

    /// A SoundDescription v2 whose float64 rate is NaN must not trap when printed; the rate falls back to mdhd.
    func testNotANumberSampleRateDoesNotCrash() throws {
        var movie = try MovieBytes(variant: "iphone")
        let entry = try movie.box("moov/trak[3]/mdia/minf/stbl/stsd/apac")
        movie.setUInt(Double.nan.bitPattern, at: entry.payloadOffset + 32, width: 8)
        let folder = TemporaryFolder()
        let path = try movie.write(to: folder.path("nan.mov"))
        let result = runCLI(["inspect", path, "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        let track = try XCTUnwrap(Movie.open(path: path).track(id: FixtureBuilder.spatialID))
        XCTAssertEqual(track.audio?.sampleRate, 48000)
    }
}

/// Damage an independent sweep found mishandled (2026-12-05): each case copies a wild file, damages it as the sweep did
/// and checks what every command then does.
final class SweptDamageTests: XCTestCase {
    func damaged(_ name: String, in folder: TemporaryFolder, _ change: (inout [UInt8]) -> Void) throws -> String {
        let source = try RealFixtures.require(RealFixtures.folder.appendingPathComponent(name.hasPrefix("footage/") ? name : "wild/" + name).path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        change(&bytes)
        let path = folder.path("damaged-" + (name as NSString).lastPathComponent)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A first tfdt of 2^64 - 1: transcode died of SIGILL (a decode time converted to Int64), inspect printed a
    /// duration of 204963823041218 s. Now every command refuses it, naming the box and its offset.
    func testDecodeTimePast2To62IsRefused() throws {
        let folder = TemporaryFolder()
        let path = try damaged("abema-go-mp4/sample_fragmented.mp4", in: folder) { bytes in
            XCTAssertEqual(String(decoding: bytes[1291..<1295], as: UTF8.self), "tfdt", "the first tfdt is at byte 1287")
            for index in 1299..<1307 { bytes[index] = 0xFF }
        }
        for arguments in [["inspect", path], ["remux", path, folder.path("r.mp4")], ["transcode", path, folder.path("t.mp4"), "--preset", "ultrafast"]] {
            let result = runCLI(arguments)
            XCTAssertEqual(result.code, 65, "\(arguments[0]): \(result.error)")
            XCTAssertTrue(result.error.contains("tfdt at byte 1287"), "\(arguments[0]): \(result.error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("t.mp4")))
    }

    /// Cut one byte before its first mdat ends, the fragmented movie's only whole video samples come after the tracks'
    /// common end: salvage wrote a movie of no sample and exited 0. Now 65, nothing written.
    func testSalvageOfNothingShownIsRefused() throws {
        let folder = TemporaryFolder()
        let path = try damaged("abema-go-mp4/sample_fragmented.mp4", in: folder) { bytes in bytes = Array(bytes.prefix(2416)) }
        let output = folder.path("salvaged.mp4")
        let result = runCLI(["salvage", path, output])
        XCTAssertEqual(result.code, 65, result.out + result.error)
        XCTAssertTrue(result.error.contains("nothing to salvage"), result.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    /// The video stsd saying 0 entries with its avc1 present, the audio dref saying 0xFFFFFFFF with its url present:
    /// ffprobe refuses the file, lint called it clean, and remux, transcode and repair copied both counts. lint now
    /// reports each (an error, exit 1) and a remux writes the counts of the entries present, which ffprobe reads with
    /// every packet of the undamaged movie; `fix --in-place` (it said "nothing to fix") overwrites the counts.
    func testWrongEntryCountsAreReportedAndWrittenRight() throws {
        let folder = TemporaryFolder()
        let path = try damaged("footage/two_people_apart.mp4", in: folder) { bytes in
            XCTAssertEqual(String(decoding: bytes[331698..<331702], as: UTF8.self), "stsd", "the video stsd is at byte 331694")
            XCTAssertEqual(String(decoding: bytes[333146..<333150], as: UTF8.self), "dref", "the audio dref is at byte 333142")
            for index in 331706..<331710 { bytes[index] = 0 }
            for index in 333154..<333158 { bytes[index] = 0xFF }
        }
        XCTAssertThrowsError(try FFprobe.probe(path), "ffprobe reads the damaged counts as they say")
        let lint = runCLI(["lint", path])
        XCTAssertEqual(lint.code, 1, lint.out + lint.error)
        XCTAssertTrue(lint.out.contains("error entry-count-wrong: moov/trak/mdia/minf/stbl/stsd at byte 331694: says 0 entries and holds 1"), lint.out)
        XCTAssertTrue(lint.out.contains("error entry-count-wrong: moov/trak[2]/mdia/minf/dinf/dref at byte 333142: says 4294967295 entries and holds 1"), lint.out)
        let output = folder.path("remuxed.mp4")
        let remux = runCLI(["remux", path, output])
        XCTAssertEqual(remux.code, 0, remux.error)
        let original = try FFprobe.probe(RealFixtures.require(RealFixtures.folder.appendingPathComponent("footage/two_people_apart.mp4").path))
        let written = try FFprobe.probe(output)
        XCTAssertEqual(written.streams.map(\.packets), original.streams.map(\.packets), "every packet, its time and hash")
        XCTAssertEqual(runCLI(["lint", output]).code, 0)
        // fix --in-place overwrites the two counts and nothing else: the file is the undamaged movie again.
        let fixed = runCLI(["fix", "--in-place", path])
        XCTAssertEqual(fixed.code, 0, fixed.error)
        XCTAssertTrue(fixed.out.contains("stsd entry count 0 → 1") && fixed.out.contains("dref entry count 4294967295 → 1"), fixed.out)
        let undamaged = try Data(contentsOf: URL(fileURLWithPath: RealFixtures.folder.appendingPathComponent("footage/two_people_apart.mp4").path))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), undamaged)
    }

    /// The iPhone recording without its last byte, which lies in the free padding after its moov: every command,
    /// salvage included, refused it ("box claims 2352 bytes but only 2351 remain"), while ffprobe read every frame.
    /// salvage now says nothing is missing (64) and names remux.
    /// Padding is read as what is there (a lint warning); a padding box that hides the moov is still refused by name.
    func testPaddingShortOfItsSizeIsReadAsWhatIsThere() throws {
        let folder = TemporaryFolder()
        let source = try RealFixtures.require(RealFixtures.iphone)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        XCTAssertEqual(String(decoding: bytes[2518240..<2518244], as: UTF8.self), "free", "the last box is free padding at byte 2518236")
        let path = folder.path("short.mov")
        try Data(bytes.dropLast()).write(to: URL(fileURLWithPath: path))
        let lint = runCLI(["lint", path])
        XCTAssertEqual(lint.code, 0, lint.out + lint.error)
        XCTAssertTrue(lint.out.contains("warning padding-past-end-of-file: free at byte 2518236: the last box, padding, claims 2352 bytes, 1 past the end of the file"), lint.out)
        let original = try FFprobe.probe(source)
        let salvage = runCLI(["salvage", path, folder.path("salvage.mov")])
        XCTAssertEqual(salvage.code, 64, "nothing is missing: " + salvage.error)
        XCTAssertTrue(salvage.error.contains("nothing to salvage; `remux` copies it"), salvage.error)
        for (command, extra) in [("remux", [String]()), ("strip-spatial", [])] {
            let output = folder.path("\(command).mov")
            let result = runCLI([command, path, output] + extra)
            XCTAssertEqual(result.code, 0, "\(command): \(result.error)")
            let written = try FFprobe.probe(output)
            XCTAssertEqual(written.streams.filter { $0.codecTag != "apac" }.map(\.packets),
                           original.streams.filter { $0.codecTag != "apac" }.map(\.packets), command)
        }
        XCTAssertEqual(runCLI(["compare", folder.path("remux.mov"), source]).code, 0)

        // The free box after ftyp made to claim 2^31 - 1 bytes covers the mdat and the moov: refused, naming the box.
        let covering = try damaged("footage/two_people_apart.mp4", in: folder) { bytes in
            XCTAssertEqual(String(decoding: bytes[36..<40], as: UTF8.self), "free")
            bytes.replaceSubrange(32..<36, with: [0x7F, 0xFF, 0xFF, 0xFF])
        }
        let refused = runCLI(["remux", covering, folder.path("covering.mp4")])
        XCTAssertEqual(refused.code, 65)
        XCTAssertTrue(refused.error.contains("free at byte 32: box claims 2147483647 bytes but only 334732 remain in the file, and no moov box comes before it"), refused.error)
    }

    /// Inputs whose damage only the read-back of the output found: the command exited 74 ("I/O error: verification of
    /// the written file failed") naming no box. Each is now refused on reading (65), naming the box, nothing written.
    func testDamageTheReadBackFoundIsRefusedByName() throws {
        let folder = TemporaryFolder()
        // A fragmented movie with its moov copied to the end: remux read back 10 samples where the source had 0.
        let twoMovies = try damaged("abema-go-mp4/sample_fragmented.mp4", in: folder) { bytes in
            XCTAssertEqual(String(decoding: bytes[28..<32], as: UTF8.self), "moov")
            bytes += bytes[24..<1227]
        }
        let remux = runCLI(["remux", twoMovies, folder.path("remux.mp4")])
        XCTAssertEqual(remux.code, 65, remux.error)
        XCTAssertTrue(remux.error.contains("moov at byte 5894: is a second moov (the first at byte 24)"), remux.error)

        // The video's stsd renamed free: join wrote an entry the clips did not have.
        let undescribed = try damaged("footage/two_people_apart.mp4", in: folder) { bytes in
            XCTAssertEqual(String(decoding: bytes[331698..<331702], as: UTF8.self), "stsd")
            bytes.replaceSubrange(331698..<331702, with: Array("free".utf8))
        }
        let join = runCLI(["join", undescribed, undescribed, folder.path("join.mp4")])
        XCTAssertEqual(join.code, 65, join.error)
        XCTAssertTrue(join.error.contains("moov/trak/mdia/minf/stbl at byte 331686: track 1 has 56 samples but no sample description"), join.error)

        // The video's only edit at rate 0: transcode planned every frame and the output showed them for less time.
        let stillEdit = try damaged("footage/two_people_apart.mp4", in: folder) { bytes in
            XCTAssertEqual(String(decoding: bytes[331513..<331517], as: UTF8.self), "elst")
            XCTAssertEqual(Array(bytes[331533..<331537]), [0, 1, 0, 0], "rate 1.0")
            bytes.replaceSubrange(331533..<331537, with: [0, 0, 0, 0])
        }
        let transcode = runCLI(["transcode", stillEdit, folder.path("transcode.mp4"), "--preset", "ultrafast", "--max-size", "320x320"])
        XCTAssertEqual(transcode.code, 65, transcode.error)
        XCTAssertTrue(transcode.error.contains("moov/trak/edts/elst at byte 331509: the source's timing cannot be carried (the video's edit list is not followed (edit 1 plays at rate 0.0 from 2048)"), transcode.error)
        for name in ["remux.mp4", "join.mp4", "transcode.mp4"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path(name)), name)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasPrefix("damaged-") }, [], "no temporary file left")
    }

    /// Decoder configurations FFmpeg cannot open (damage sweeps): lint called each file clean, every command copied it, and
    /// join added a broken one beside the first clip's as a second stsd entry, so ffprobe refused the whole joined movie.
    /// Now lint reports each (`decoder-config-broken`, an error), writing commands copy it with a note, join refuses it
    /// naming the box. The independent account is ffmpeg's: it decodes the undamaged streams and fails on each damaged one.
    func testBrokenDecoderConfigurationsAreReportedAndJoinRefusesThem() throws {
        let folder = TemporaryFolder()
        let name = "footage/two_people_apart.mp4"
        let avcC = 331796, esds = 333230  // payloads at +8
        let original = folder.path("original.mp4")
        try FileManager.default.moveItem(atPath: try damaged(name, in: folder) { _ in }, toPath: original)
        XCTAssertGreaterThan(try Shown.frames(original, stream: 0, audio: false).count, 50)
        XCTAssertGreaterThan(try Shown.frames(original, stream: 1, audio: true).count, 50)
        XCTAssertEqual(runCLI(["lint", original]).out, original + ": clean\n")
        let cases: [(name: String, stream: Int, at: Int, bytes: [UInt8], box: String, offset: Int, reason: String)] = [
            ("sps-length", 0, avcC + 14, [0xFF, 0xFF], "stsd/avc1/avcC", avcC, "sequence parameter set 1 of 1 claims 65535 bytes, 37 remain in the configuration"),
            ("length-size", 0, avcC + 12, [0xFD], "stsd/avc1/avcC", avcC, "is not NAL units with the 2-byte lengths avcC says: NAL unit 1 has a length of 0"),
            ("asc-zero", 1, esds + 43, [0, 0], "stsd/mp4a/esds", esds, "the AAC AudioSpecificConfig names audio object type 0, which is null"),
        ]
        for item in cases {
            XCTAssertEqual(String(decoding: try fileBytes(original)[item.offset + 4..<item.offset + 8], as: UTF8.self), String(item.box.suffix(4)))
            let path = try damaged(name, in: folder) { bytes in bytes.replaceSubrange(item.at..<item.at + item.bytes.count, with: item.bytes) }
            let renamed = folder.path(item.name + ".mp4")
            try FileManager.default.moveItem(atPath: path, toPath: renamed)
            let decoded = try? Shown.frames(renamed, stream: item.stream, audio: item.stream == 1)
            XCTAssertTrue(decoded?.isEmpty ?? true, "\(item.name): ffmpeg decodes nothing of the damaged stream")
            let lint = runCLI(["lint", renamed])
            XCTAssertEqual(lint.code, 1, "\(item.name): \(lint.out)")
            XCTAssertTrue(lint.out.contains("error decoder-config-broken: ") && lint.out.contains(item.box + " at byte \(item.offset): ") && lint.out.contains(item.reason),
                          "\(item.name): \(lint.out)")
            let remux = runCLI(["remux", renamed, folder.path(item.name + "-remux.mp4")])
            XCTAssertEqual(remux.code, 0, remux.error)
            XCTAssertTrue(remux.error.contains("note: copied as it is, broken: ") && remux.error.contains(item.reason), remux.error)
            let joined = folder.path(item.name + "-joined.mp4")
            let join = runCLI(["join", original, renamed, joined])
            XCTAssertEqual(join.code, 65, "\(item.name): \(join.error)")
            XCTAssertTrue(join.error.contains(item.box + " at byte \(item.offset): clip 2 (\(item.name).mp4): ") && join.error.contains(item.reason), join.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: joined))
            // The decoder failed on some packet with "Invalid data"; transcode now names the box first.
            if item.stream == 0 {
                let transcoded = folder.path(item.name + "-transcoded.mp4")
                let transcode = runCLI(["transcode", renamed, transcoded, "--preset", "ultrafast"])
                XCTAssertEqual(transcode.code, 65, transcode.error)
                XCTAssertTrue(transcode.error.contains(item.box + " at byte \(item.offset): ") && transcode.error.contains("transcode needs its pictures decoded"), transcode.error)
                XCTAssertFalse(FileManager.default.fileExists(atPath: transcoded))
            }
        }
    }

    /// Edit lists join misread (second damage sweep): a second elst in the video's edts was copied beside join's own and
    /// ffprobe could not open the output; an edit from media time -2, or from past the last sample, was joined as an
    /// empty edit and the output showed no video frame, exit 0. Each is refused on reading or by join, naming the elst.
    func testEditListsJoinCannotFollowAreRefusedByName() throws {
        let folder = TemporaryFolder()
        let elst = 331509  // the video's elst in footage/two_people_apart.mp4: one edit, media time 2048
        let secondList = try damaged("footage/two_people_apart.mp4", in: folder) { bytes in
            XCTAssertEqual(String(decoding: bytes[elst + 4..<elst + 8], as: UTF8.self), "elst")
            let edts = elst - 8
            XCTAssertEqual(String(decoding: bytes[edts + 4..<edts + 8], as: UTF8.self), "edts")
            bytes.insert(contentsOf: bytes[elst..<elst + 28], at: elst + 28)
            func grow(_ at: Int) { let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } + 28; bytes.replaceSubrange(at..<at + 4, with: [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]) }
            grow(edts); grow(edts - 92 - 8)  // edts, then trak (its header, then a tkhd of 92 bytes, before edts)
            grow(331285)  // moov
        }
        let second = runCLI(["join", secondList, secondList, folder.path("second.mp4")])
        XCTAssertEqual(second.code, 65, second.error)
        XCTAssertTrue(second.error.contains("moov/trak/edts/elst[2] at byte 331537: is a second elst in the edit box (the first at byte 331509)"), second.error)
        for (name, mediaTime, expected) in [("before", [UInt8](repeating: 0xFF, count: 3) + [0xFE], "edit 1 starts at media time -2: only -1 (an empty edit) may be negative"),
                                            ("after", [0x7F, 0xFF, 0xFF, 0xFF], "edit 1 starts at media time 2147483647, at or after the end of the track's samples")] {
            let path = try damaged("footage/two_people_apart.mp4", in: folder) { bytes in bytes.replaceSubrange(elst + 20..<elst + 24, with: mediaTime) }
            let run = runCLI(["join", path, path, folder.path("\(name).mp4")])
            XCTAssertEqual(run.code, 65, "\(name): \(run.error)")
            XCTAssertTrue(run.error.contains("moov/trak/edts/elst at byte 331509: " + expected), run.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("\(name).mp4")))
        }
    }

    /// A last moov of size 0 ("to the end of the file") is valid; written first, it swallowed the media data after
    /// it, the read-back found no mdat and every writing command exited 74. ffprobe reads every packet of the output.
    func testMovieBoxRunningToTheEndIsWrittenWithItsSize() throws {
        let folder = TemporaryFolder()
        let path = try damaged("footage/two_people_apart.mp4", in: folder) { bytes in
            XCTAssertEqual(String(decoding: bytes[331289..<331293], as: UTF8.self), "moov", "moov is the last box, at byte 331285")
            for index in 331285..<331289 { bytes[index] = 0 }
        }
        let counts = { (file: String) in try FFprobe.probe(file).streams.map(\.packets.count) }
        XCTAssertEqual(try counts(path), [56, 220], "ffprobe reads the damaged movie whole")
        for (command, extra) in [("remux", [String]()), ("trim", ["--start", "0", "--end", "4"])] {
            let output = folder.path("\(command).mp4")
            let result = runCLI([command, path, output] + extra)
            XCTAssertEqual(result.code, 0, "\(command): \(result.error)")
            XCTAssertEqual(try counts(output).reduce(0, +) > 200, true, command)
        }
        XCTAssertEqual(try counts(folder.path("remux.mp4")), [56, 220])
    }

    /// mvhd's time scale set to 0: the edits' durations were read at the fallback scale (48000), so a 4.667 s edit
    /// lasted 0.097 s, and the remux showed 6 of 220 audio packets. Each edit now presents its media to the end of its
    /// samples, as ffprobe plays the damaged file: the output lasts what the undamaged movie lasts.
    func testUnknownMovieTimeScaleKeepsTheEditsWhole() throws {
        let folder = TemporaryFolder()
        let original = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("footage/two_people_apart.mp4").path)
        let path = try damaged("footage/two_people_apart.mp4", in: folder) { bytes in
            guard let at = (0..<(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual("mvhd".utf8) }) else { return XCTFail("no mvhd") }
            let scale = at + 4 + 4 + (bytes[at + 4] == 1 ? 16 : 8)
            for index in scale..<(scale + 4) { bytes[index] = 0 }
        }
        let output = folder.path("remux.mp4")
        let result = runCLI(["remux", path, output])
        XCTAssertEqual(result.code, 0, result.error)
        let durations = { (file: String) in try FFprobe.probe(file, packets: false).streams.map { $0.duration ?? -1 } }
        let expected = try durations(original)
        XCTAssertEqual(expected.count, 2)
        for (got, want) in zip(try durations(output), expected) { XCTAssertEqual(got, want, accuracy: 0.001, "stream durations as in the undamaged movie") }
        // transcode follows the edit as read in the fallback scale (it planned every frame at its media time, 0.083 s
        // late, and refused its own output, exit 74): every frame decoded, for as long as in the undamaged movie.
        let transcoded = folder.path("transcode.mp4")
        let transcode = runCLI(["transcode", path, transcoded, "--preset", "ultrafast", "--max-size", "320x320"])
        XCTAssertEqual(transcode.code, 0, transcode.error)
        for (got, want) in zip(try durations(transcoded), expected) { XCTAssertEqual(got, want, accuracy: 0.001, "transcoded stream durations") }
        let shownTimes = { (file: String) in try Shown.frames(file, stream: 0, audio: false).map { ($0.time * 1000).rounded() } }
        XCTAssertEqual(try shownTimes(transcoded).count, 56)
        XCTAssertEqual(try shownTimes(transcoded), try shownTimes(original), "every frame at its time in the undamaged movie (ms)")
    }

    /// A second ctts appended to a stbl that has one: keeptrack read the first, remux copied both and ffprobe could not
    /// read the copy ("Cannot allocate memory"). Every table box is now refused when it comes twice, naming both.
    func testASecondCopyOfATableIsRefused() throws {
        let folder = TemporaryFolder()
        let path = try damaged("footage/two_people_apart.mp4", in: folder) { bytes in
            func find(_ type: String, from start: Int) -> Int {
                (start..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual(type.utf8) }! - 4
            }
            let ancestors = ["moov", "trak", "mdia", "minf", "stbl"].reduce(into: [Int]()) { found, type in found.append(find(type, from: found.last ?? 0)) }
            func size(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
            let ctts: [UInt8] = [0, 0, 0, 24] + Array("ctts".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF]
            let end = ancestors[4] + size(ancestors[4])
            for at in ancestors {
                let grown = size(at) + ctts.count
                bytes.replaceSubrange(at..<(at + 4), with: [UInt8(grown >> 24 & 0xFF), UInt8(grown >> 16 & 0xFF), UInt8(grown >> 8 & 0xFF), UInt8(grown & 0xFF)])
            }
            bytes.insert(contentsOf: ctts, at: end)   // moov is last in this file: no chunk offset moves
        }
        for arguments in [["inspect", path], ["remux", path, folder.path("r.mp4")]] {
            let result = runCLI(arguments)
            XCTAssertEqual(result.code, 65, "\(arguments[0]): \(result.error)")
            XCTAssertTrue(result.error.contains("is a second ctts in the sample table (the first at byte"), result.error)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("r.mp4")))
    }
}
