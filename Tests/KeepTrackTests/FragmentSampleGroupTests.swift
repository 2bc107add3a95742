import Foundation
import XCTest
@testable import KeepTrack

/// Sample groups and the other traf/moof boxes of fragmented movies: groups in moov and in each
/// traf (sbgp indexes above 0x10000 naming the traf's own sgpd) come out as one stbl sbgp + sgpd per
/// grouping with every sample in the same group description; what cannot be carried exactly is
/// refused (65, box path and offset); boxes that only describe a fragment are dropped with a note.
final class FragmentSampleGroupTests: XCTestCase {
    // MARK: Building fragmented movies with groups

    /// ffmpeg's fragmented AAC (frag_keyframe+empty_moov+default_base_moof, a fragment every 0.5 s:
    /// 6 fragments), one traf each; trun data offsets are relative to their moof.
    static func makeSource(_ folder: TemporaryFolder, name: String = "source.mp4") throws -> String {
        let path = folder.path(name)
        let result = runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3",
                                        "-c:a", "aac", "-b:a", "64k", "-frag_duration", "500000",
                                        "-movflags", "frag_keyframe+empty_moov+default_base_moof", path])
        guard let result, result.code == 0 else { throw unavailable("ffmpeg is not installed") }
        return path
    }

    /// `source` with `stbl` boxes appended to the first track's stbl, `traf(i)` appended to the i-th
    /// traf (their data offsets moved by what the moof grew) and `topLevel` after moov.
    static func withBoxes(_ source: String, to output: String, stbl: [Box] = [], topLevel: [Box] = [],
                          traf: (Int) throws -> [Box]) throws {
        let movie = try Movie.open(path: source)
        let bytes = [UInt8](try fileBytes(source))
        var out: [UInt8] = []
        var moofIndex = 0
        for box in movie.boxes {
            switch box.type {
            case "moov":
                var moov = box
                moov.modifyChildren { children in
                    for index in children.indices where children[index].type == "trak" {
                        children[index].modifySampleTable { $0 += stbl }
                        break
                    }
                }
                out += try moov.serialized()
                for extra in topLevel { out += try extra.serialized() }
            case "moof":
                let added = try traf(moofIndex)
                moofIndex += 1
                let growth = try added.reduce(0) { $0 + (try $1.serialized()).count }
                var moof = box
                try moof.modifyChildren { children in
                    for index in children.indices where children[index].type == "traf" {
                        try children[index].modifyChildren { trafChildren in
                            for t in trafChildren.indices where trafChildren[t].type == "trun" {
                                var run = try! TrackRunBox(box: trafChildren[t])
                                run.dataOffsetValue += Int32(growth)
                                trafChildren[t] = Box(type: "trun", bytes: try run.encoded())
                            }
                            trafChildren += added
                        }
                    }
                }
                out += try moof.serialized()
            default:
                out += bytes[Int(box.offset)..<Int(box.offset + box.size)]
            }
        }
        try Data(out).write(to: URL(fileURLWithPath: output))
    }

    static func sgpd(_ type: FourCC, version: UInt8 = 1, defaultLength: UInt32? = nil, entries: [[UInt8]]) throws -> Box {
        var view = SampleGroupDescriptionBox()
        view.header.version = version
        view.groupingType = type
        let length = defaultLength ?? UInt32(entries.first?.count ?? 0)
        view.defaultLength = length
        view.entryCount = UInt32(entries.count)
        view.entries = entries.flatMap { entry in
            version >= 1 && length == 0 ? [0, 0, 0, UInt8(entry.count)] + entry : entry
        }
        return Box(type: "sgpd", bytes: try view.encoded())
    }

    static func sbgp(_ type: FourCC, parameter: UInt32? = nil, _ pairs: [UInt32]) throws -> Box {
        var view = SampleToGroupBox()
        view.groupingType = type
        if let parameter { view.header.version = 1; view.groupingTypeParameter = parameter }
        view.pairs = pairs
        return Box(type: "sbgp", bytes: try view.encoded())
    }

    /// Samples of each traf, in file order (the test's own count from the trun boxes).
    static func fragmentSampleCounts(_ path: String) throws -> [Int] {
        try Movie.open(path: path).boxes.filter { $0.type == "moof" }.map { moof in
            try moof.first("traf")!.all("trun").reduce(0) { $0 + Int(try TrackRunBox(box: $1).sampleCount) }
        }
    }

    /// Every sample's description bytes in one grouping, read from a progressive track's stbl with
    /// the test's own reading of sbgp and sgpd (one sgpd per type; entries by default_length or
    /// their own length fields).
    static func stblGroups(_ path: String, type: FourCC, parameter: UInt32? = nil) throws -> [[UInt8]?] {
        let track = try Movie.open(path: path).tracks[0]
        let stbl = try XCTUnwrap(track.box.find(["mdia", "minf", "stbl"]))
        let descriptions = try stbl.all("sgpd").map { try SampleGroupDescriptionBox(box: $0) }.filter { $0.groupingType == type }
        XCTAssertLessThanOrEqual(descriptions.count, 1, "one sgpd of type \(type)")
        var entries: [[UInt8]] = []
        if let sgpd = descriptions.first {
            var rest = sgpd.entries[...]
            for _ in 0..<sgpd.entryCount {
                var length = Int(sgpd.defaultLength)
                if length == 0 {
                    length = rest.prefix(4).reduce(0) { $0 << 8 | Int($1) }
                    rest = rest.dropFirst(4)
                }
                entries.append(Array(rest.prefix(length)))
                rest = rest.dropFirst(length)
            }
        }
        let mappings = try stbl.all("sbgp").map { try SampleToGroupBox(box: $0) }
            .filter { $0.groupingType == type && ($0.header.version >= 1 ? $0.groupingTypeParameter : nil) == parameter }
        XCTAssertLessThanOrEqual(mappings.count, 1, "one sbgp of \(type)")
        var result: [[UInt8]?] = []
        if let sbgp = mappings.first {
            for index in stride(from: 0, to: sbgp.pairs.count, by: 2) {
                let number = Int(sbgp.pairs[index + 1])
                result += Array(repeating: number == 0 ? nil : entries[number - 1], count: Int(sbgp.pairs[index]))
            }
        }
        let count = track.sampleTable.sampleCount
        return Array(result.prefix(count)) + Array(repeating: nil, count: max(0, count - result.count))
    }

    // MARK: Carried

    /// The grouped movie of the tests: groups in moov's stbl and in trafs (traf-local descriptions,
    /// one with explicit entry lengths, one version 2, entries equal to moov's, partly mapped trafs,
    /// a second grouping with a parameter), and what the test put in, sample by sample.
    static func makeGroupedMovie(_ folder: TemporaryFolder) throws -> (path: String, counts: [Int], roll: [[UInt8]?], prol: [[UInt8]?]) {
        let source = try Self.makeSource(folder)
        let counts = try Self.fragmentSampleCounts(source)
        XCTAssertGreaterThanOrEqual(counts.count, 5)
        let (minusOne, minusTwo, three, five): ([UInt8], [UInt8], [UInt8], [UInt8]) = ([0xFF, 0xFF], [0xFF, 0xFE], [0x00, 0x03], [0x00, 0x05])
        let input = folder.path("grouped.mp4")
        try Self.withBoxes(source, to: input, stbl: [Self.sgpd("roll", entries: [minusTwo])]) { index in
            let n = UInt32(counts[index])
            switch index {
            case 0: return [try Self.sgpd("roll", entries: [minusOne]), try Self.sbgp("roll", [n, 0x10001])]
            case 1: return [try Self.sgpd("roll", defaultLength: 0, entries: [minusOne, three]), try Self.sbgp("roll", [2, 0x10002, 3, 0x10001])]
            case 2: return [try Self.sbgp("roll", [n, 1]), try Self.sgpd("prol", version: 0, entries: [five]), try Self.sbgp("prol", parameter: 7, [1, 0x10001, n - 1, 0])]
            case 4: return [try Self.sgpd("roll", version: 2, entries: [minusTwo]), try Self.sbgp("roll", [1, 0, 1, 0x10001])]
            default: return []
            }
        }
        var roll: [[UInt8]?] = [], prol: [[UInt8]?] = []
        for (index, n) in counts.enumerated() {
            var part = [[UInt8]?](repeating: nil, count: n)
            switch index {
            case 0: part = Array(repeating: minusOne, count: n)
            case 1: part = [three, three, minusOne, minusOne, minusOne] + Array(repeating: nil, count: n - 5)
            case 2: part = Array(repeating: minusTwo, count: n)
            case 4: part[1] = minusTwo
            default: break
            }
            roll += part
            prol += index == 2 ? [five] + Array(repeating: nil, count: n - 1) : Array(repeating: nil, count: n)
        }
        return (input, counts, roll, prol)
    }

    /// The grouped movie's remux puts every sample in the description the test built it with (one
    /// sgpd per type, entries with equal bytes one description); ffprobe's packets and mediainfo's
    /// durations are the source's; compare says identical and sees a changed group.
    func testGroupsOfMoovAndTrafsAreMergedIntoStbl() throws {
        let folder = TemporaryFolder()
        let (input, counts, roll, prol) = try Self.makeGroupedMovie(folder)
        let output = folder.path("remux.mp4")
        let result = runCLI(["remux", input, output, "--verify-data"])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertEqual(try Self.stblGroups(output, type: "roll"), roll)
        XCTAssertEqual(try Self.stblGroups(output, type: "prol", parameter: 7), prol)
        let stbl = try XCTUnwrap(try Movie.open(path: output).tracks[0].box.find(["mdia", "minf", "stbl"]))
        // Entries equal to moov's (or another traf's) are one description: FFFE, FFFF, 0003 for roll.
        XCTAssertEqual(try stbl.all("sgpd").map { try SampleGroupDescriptionBox(box: $0) }.first { $0.groupingType == "roll" }?.entryCount, 3)
        XCTAssertEqual(try Movie.open(path: output).tracks[0].sampleGroups(), try Movie.open(path: input).tracks[0].sampleGroups())

        let before = try FFprobe.probe(input), after = try FFprobe.probe(output)
        XCTAssertEqual(before.streams.count, after.streams.count)
        for (a, b) in zip(before.streams, after.streams) { XCTAssertNil(FFprobe.difference(fragmented: a, b)) }
        let info = try MediaInfo.report(output)
        let duration = try XCTUnwrap(Movie.open(path: input).tracks[0].duration)
        XCTAssertEqual(try XCTUnwrap(info.tracks.first?.duration), duration, accuracy: 0.002)

        XCTAssertEqual(runCLI(["compare", input, output]).code, 0)
        // A copy whose sbgp puts one sample in another group: compare names the grouping.
        let changed = folder.path("changed.mp4")
        var bytes = [UInt8](try fileBytes(output))
        let written = try XCTUnwrap(stbl.all("sbgp").first { (try? SampleToGroupBox(box: $0))?.groupingType == "prol" })
        XCTAssertEqual(try SampleToGroupBox(box: written).pairs.prefix(2), [UInt32(counts[0] + counts[1]), 0])
        // The first pair's index (0) becomes 1: samples that were in no prol group now are.
        let at = Int(written.payloadOffset) + 4 + 4 + 4 + 4 + 4
        bytes[at + 3] = 1
        try Data(bytes).write(to: URL(fileURLWithPath: changed))
        let difference = runCLI(["compare", input, changed])
        XCTAssertEqual(difference.code, 1, difference.out + difference.error)
        XCTAssertTrue((difference.out + difference.error).contains("sample group prol (parameter 7)"), difference.out)
    }

    /// trim of a fragmented movie with traf groups keeps each kept sample's group.
    func testTrimOfFragmentedGroupsKeepsEachSamplesGroup() throws {
        let folder = TemporaryFolder()
        let (input, _, roll, prol) = try Self.makeGroupedMovie(folder)
        let output = folder.path("trim.mp4")
        let result = runCLI(["trim", input, output, "--start", "0.7", "--end", "2.1", "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let track = try XCTUnwrap((json["tracks"] as? [[String: Any]])?.first)
        // firstSample counts from 1.
        let first = try XCTUnwrap(track["firstSample"] as? Int) - 1, count = try XCTUnwrap(track["samples"] as? Int)
        XCTAssertGreaterThan(first, 0)
        XCTAssertEqual(try Self.stblGroups(output, type: "roll"), Array(roll[first..<first + count]))
        XCTAssertEqual(try Self.stblGroups(output, type: "prol", parameter: 7), Array(prol[first..<first + count]))
    }

    /// Verification compares the written groups with the source's, sample by sample.
    func testVerificationCatchesAWrongGroup() throws {
        let folder = TemporaryFolder()
        let source = try Self.makeSource(folder)
        let counts = try Self.fragmentSampleCounts(source)
        let input = folder.path("grouped.mp4")
        try Self.withBoxes(source, to: input) { index in
            index == 1 ? [try Self.sgpd("roll", entries: [[0xFF, 0xFF]]), try Self.sbgp("roll", [UInt32(counts[1]), 0x10001])] : []
        }
        let movie = try Movie.open(path: input)
        let writer = MovieWriter(passingThrough: movie)
        XCTAssertNotNil(writer.tracks[0].expectedGroups)
        XCTAssertNoThrow(try MovieOutput.write(writer, to: folder.path("good.mp4"), inputs: [input], overwrite: false))
        var wrong = writer
        let grouping = SampleGroupMembership.Grouping(type: "roll", parameter: nil)
        let total = UInt32(writer.tracks[0].table.sampleCount)
        wrong.tracks[0].expectedGroups?.runs[grouping] = [1, 1, total - 1, 0]
        XCTAssertThrowsError(try MovieOutput.write(wrong, to: folder.path("bad.mp4"), inputs: [input], overwrite: false)) { error in
            XCTAssertTrue("\(error)".contains("sample group roll: sample 1"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("bad.mp4")))
    }

    /// ffmpeg's own groups: libopus with frag_keyframe (no empty_moov) writes a roll sgpd/sbgp in
    /// moov for the first fragment's samples only; the fragments have none. The remux keeps them
    /// for those samples, every other sample in no group, as the source says.
    func testFFmpegOpusRollGroupsInMoovStayWithTheirSamples() throws {
        let folder = TemporaryFolder()
        let input = folder.path("opus.mp4")
        guard let made = runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", "libopus",
                                            "-movflags", "frag_keyframe", "-frag_duration", "500000", input]), made.code == 0 else {
            throw unavailable("ffmpeg with libopus is not installed")
        }
        let source = try Movie.open(path: input)
        let fragments = try XCTUnwrap(source.tracks[0].fragments)
        XCTAssertGreaterThan(fragments.stblSampleCount, 0)
        XCTAssertTrue(fragments.addsSamples)
        let stbl = try XCTUnwrap(source.tracks[0].box.find(["mdia", "minf", "stbl"]))
        XCTAssertEqual(try SampleToGroupBox(box: XCTUnwrap(stbl.first("sbgp"))).totalSamples, UInt64(fragments.stblSampleCount))
        let output = folder.path("remux.mp4")
        XCTAssertEqual(runCLI(["remux", input, output, "--verify-data"]).code, 0)
        let groups = try Self.stblGroups(output, type: "roll")
        XCTAssertEqual(groups.count, source.tracks[0].sampleTable.sampleCount)
        XCTAssertTrue(groups[fragments.stblSampleCount...].allSatisfy { $0 == nil })
        let pairs = try SampleToGroupBox(box: XCTUnwrap(stbl.first("sbgp"))).pairs
        let grouped = stride(from: 0, to: pairs.count, by: 2).filter { pairs[$0 + 1] != 0 }.reduce(0) { $0 + Int(pairs[$1]) }
        XCTAssertGreaterThan(grouped, 0)
        XCTAssertEqual(groups.prefix(fragments.stblSampleCount).compactMap { $0 }.count, grouped)
        XCTAssertEqual(try Movie.open(path: output).tracks[0].sampleGroups(), try source.tracks[0].sampleGroups())
        let before = try FFprobe.probe(input), after = try FFprobe.probe(output)
        XCTAssertNil(FFprobe.difference(fragmented: before.streams[0], after.streams[0]))
        XCTAssertEqual(runCLI(["compare", input, output]).code, 0)
    }

    // MARK: Refused

    /// Combinations keeptrack cannot carry exactly: exit 65 naming the box and its offset, no output.
    func testGroupsThatCannotBeCarriedAreRefused() throws {
        let folder = TemporaryFolder()
        let source = try Self.makeSource(folder)
        let counts = try Self.fragmentSampleCounts(source)
        let cases: [(name: String, boxes: [Box], expect: String)] = [
            ("local index past the entries", [try Self.sgpd("roll", entries: [[0xFF, 0xFF]]), try Self.sbgp("roll", [1, 0x10002])],
             "moof[2]/traf/sbgp"),
            ("global index without a stbl sgpd", [try Self.sbgp("roll", [1, 1])], "moof[2]/traf/sbgp"),
            ("version 0 entries of unknown length", [try Self.sgpd("abcd", version: 0, entries: [[1, 2, 3], [4, 5, 6]]), try Self.sbgp("abcd", [1, 0x10002])],
             "moof[2]/traf/sgpd"),
            ("more samples than the fragment", [try Self.sgpd("roll", entries: [[0xFF, 0xFF]]), try Self.sbgp("roll", [UInt32(counts[1] + 1), 0x10001])],
             "moof[2]/traf/sbgp"),
            ("sub-sample information", [Box(type: "subs", bytes: [0, 0, 0, 0, 0, 0, 0, 0])], "moof[2]/traf/subs"),
            ("auxiliary information located by file offset (not encryption)",
             [Box(type: "saiz", bytes: [0, 0, 0, 1] + Array("abcd".utf8) + [0, 0, 0, 0, 4, 0, 0, 0, UInt8(counts[1])]),
              Box(type: "saio", bytes: [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 64])], "moof[2]/traf/saiz"),
            ("sdtp disagreeing with trun flags", [Box(type: "sdtp", bytes: [0, 0, 0, 0] + Array(repeating: 0x10, count: counts[1]))], "moof[2]/traf/sdtp"),
        ]
        for (index, item) in cases.enumerated() {
            let input = folder.path("refused\(index).mp4")
            try Self.withBoxes(source, to: input) { $0 == 1 ? item.boxes : [] }
            let movie = try Movie.open(path: input)
            XCTAssertEqual(runCLI(["inspect", input]).code, 0, item.name)
            let output = folder.path("out\(index).mp4")
            let result = runCLI(["remux", input, output])
            XCTAssertEqual(result.code, 65, "\(item.name): \(result.out)")
            XCTAssertTrue(result.error.contains(item.expect), "\(item.name): \(result.error)")
            let named = FourCC(String(item.expect.split(separator: "/").last!))
            let box = try XCTUnwrap(movie.boxes.filter { $0.type == "moof" }[1].first("traf")?.first(named))
            XCTAssertTrue(result.error.contains("\(item.expect) at byte \(box.offset)"), "\(item.name): \(result.error)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), item.name)
        }
    }

    // MARK: Other traf and top-level boxes

    /// A traf's sdtp adds what the trun flags leave unsaid (is-depended-on here): carried into stbl/sdtp.
    func testTrafSampleDependenciesAreCarried() throws {
        let folder = TemporaryFolder()
        let source = try Self.makeSource(folder)
        let counts = try Self.fragmentSampleCounts(source)
        let plain = try Movie.open(path: source).tracks[0].sampleTable.dependencies
        let input = folder.path("sdtp.mp4")
        try Self.withBoxes(source, to: input) { $0 == 2 ? [Box(type: "sdtp", bytes: [0, 0, 0, 0] + Array(repeating: 0x08, count: counts[2]))] : [] }
        let output = folder.path("out.mp4")
        XCTAssertEqual(runCLI(["remux", input, output, "--verify-data"]).code, 0)
        let written = try XCTUnwrap(try Movie.open(path: output).tracks[0].box.find(["mdia", "minf", "stbl", "sdtp"]))
        let bytes = Array(written.payload.dropFirst(4))
        let start = counts[0] + counts[1]
        XCTAssertEqual(bytes.count, counts.reduce(0, +))
        for index in bytes.indices {
            let fromFlags = index < plain.count ? plain[index] : 0
            let expected = (start..<start + counts[2]).contains(index) ? fromFlags | 0x08 : fromFlags
            XCTAssertEqual(bytes[index], expected, "sample \(index + 1)")
        }
    }

    /// ffmpeg's ISMV writes Smooth Streaming's tfxd (and with a lookahead tfrf) uuid boxes in traf: the remux drops
    /// them and says so; a top-level emsg and unknown traf/moof boxes are named the same way.
    func testBoxesThatDescribeOneFragmentAreDroppedWithANote() throws {
        let folder = TemporaryFolder()
        let ismv = try FragmentedTests.makeFlavour("ismv", ext: "ismv", arguments: ["-f", "ismv", "-ism_lookahead", "1"], in: folder)
        let uuids = try Movie.open(path: ismv).boxes.filter { $0.type == "moof" }.flatMap { $0.first("traf")?.all("uuid") ?? [] }
        XCTAssertFalse(uuids.isEmpty, "ffmpeg's ismv writes uuid boxes in traf")
        let result = runCLI(["remux", ismv, folder.path("ismv.mp4")])
        XCTAssertEqual(result.code, 0, result.error)
        let said = result.out + result.error
        XCTAssertTrue(said.contains("Smooth Streaming fragment times (uuid tfxd)"), said)
        XCTAssertTrue(said.contains("Smooth Streaming next-fragment times (uuid tfrf)"), said)

        let source = try Self.makeSource(folder)
        var emsg = [UInt8](repeating: 0, count: 4)
        emsg += Array("urn:test\u{0}".utf8) + Array("1\u{0}".utf8) + [0, 0, 0x03, 0xE8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
        let input = folder.path("extras.mp4")
        try Self.withBoxes(source, to: input, topLevel: [Box(type: "emsg", bytes: emsg)]) { index in
            index == 0 ? [Box(type: "zzzz", bytes: [1, 2, 3])] : []
        }
        let report = runCLI(["remux", input, folder.path("extras-out.mp4"), "--verify-data"])
        XCTAssertEqual(report.code, 0, report.error)
        let text = report.out + report.error
        XCTAssertTrue(text.contains("dropped emsg at byte "), text)
        XCTAssertTrue(text.contains("zzzz boxes (unknown to keeptrack) of track fragments: moof/traf/zzzz at byte "), text)
        let out = try Movie.open(path: folder.path("extras-out.mp4"))
        XCTAssertFalse(out.boxes.contains { $0.type == "emsg" })
    }
}
