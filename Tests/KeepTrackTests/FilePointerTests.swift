import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Boxes that hold absolute file offsets follow their data through every rewrite (or the command
/// refuses): CENC `saio` into `senc`, `iloc` items stored in the file; indexes of fragments (`sidx`,
/// `mfra`) are dropped with a note. Each check reads the bytes a pointer designates in the output and
/// in the source with a parser of its own, independent of keeptrack's.
final class FilePointerTests: XCTestCase {
    static let cenc = RealFixtures.folder.appendingPathComponent("wild/mozilla-mp4parse-rust/short-cenc.mp4").path

    /// (offset, length) of the auxiliary information of every track, by track id, read straight from
    /// the bytes of `path`: saio's single offset and the sum of saiz's sizes.
    static func auxiliaryInformation(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt32: (offset: UInt64, length: UInt64)] {
        let movie = try Movie.open(path: path)
        var result: [UInt32: (UInt64, UInt64)] = [:]
        for track in movie.tracks {
            guard let stbl = track.box.find(["mdia", "minf", "stbl"]), let saio = stbl.first("saio"), let saiz = stbl.first("saiz") else { continue }
            let o = saio.payload, z = saiz.payload
            func u32(_ bytes: [UInt8], _ at: Int) -> UInt64 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt64($1) } }
            var at = 4 + (o[3] & 1 != 0 ? 8 : 0)
            XCTAssertEqual(u32(o, at), 1, "one saio entry", file: file, line: line)
            at += 4
            let offset = o[0] == 0 ? u32(o, at) : u32(o, at) << 32 | u32(o, at + 4)
            var zat = 4 + (z[3] & 1 != 0 ? 8 : 0)
            let defaultSize = UInt64(z[zat]); zat += 1
            let count = u32(z, zat); zat += 4
            let length = defaultSize != 0 ? defaultSize * count : z[zat..<zat + Int(count)].reduce(0) { $0 + UInt64($1) }
            result[track.id] = (offset, length)
        }
        return result
    }

    static func bytes(_ path: String, at offset: UInt64, count: UInt64) throws -> Data {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        return handle.readData(ofLength: Int(count))
    }

    func testCENCAuxiliaryInformationFollowsItsSencThroughRemuxAndExtract() throws {
        let input = try RealFixtures.require(Self.cenc)
        let folder = TemporaryFolder()
        let source = try Self.auxiliaryInformation(input)
        XCTAssertEqual(Set(source.keys), [1, 2])
        let sourceProbe = try FFprobe.probe(input)
        let runs: [(name: String, arguments: [String], tracks: [UInt32])] = [
            ("remux.mp4", ["remux"], [1, 2]), ("remux-last.mp4", ["remux", "--moov-last"], [1, 2]),
            ("video.mp4", ["extract", "--track", "1"], [1]), ("audio.mp4", ["extract", "--track", "2"], [2]),
        ]
        var moved = 0
        for run in runs {
            let output = folder.path(run.name)
            let result = runCLI(run.arguments + [input, output])
            XCTAssertEqual(result.code, 0, "\(run.name): \(result.error)")
            let written = try Self.auxiliaryInformation(output)
            XCTAssertEqual(Set(written.keys), Set(run.tracks), run.name)
            for id in run.tracks {
                let (before, after) = (try XCTUnwrap(source[id]), try XCTUnwrap(written[id]))
                XCTAssertEqual(after.length, before.length, "\(run.name) track \(id)")
                XCTAssertEqual(try Self.bytes(output, at: after.offset, count: after.length), try Self.bytes(input, at: before.offset, count: before.length),
                               "\(run.name) track \(id): saio points at other bytes than in the source")
                if after.offset != before.offset { moved += 1 }
                // ffprobe sees the same packets (the encrypted bytes, their times and flags).
                let probe = try FFprobe.probe(output)
                FFprobe.assertSamePackets(try XCTUnwrap(sourceProbe.stream(track: id)), try XCTUnwrap(probe.stream(track: id)), run.name)
            }
            if run.arguments[0] == "remux" {
                let compare = runCLI(["compare", input, output])
                XCTAssertEqual(compare.code, 0, "\(run.name): \(compare.out)")
            }
        }
        XCTAssertGreaterThanOrEqual(moved, 4, "the runs move senc, so the test can tell a stale saio")
    }

    /// A saio left pointing at the old place is caught by the write's verification and by compare.
    func testStaleAuxiliaryOffsetIsCaught() throws {
        let input = try RealFixtures.require(Self.cenc)
        let folder = TemporaryFolder()
        var options = MovieWriter.Options()
        options.moovFirst = false
        let writer = MovieWriter(passingThrough: try Movie.open(path: input), options: options)
        let output = try OutputFile(destination: folder.path("stale.mp4"), overwrite: false)
        defer { output.discard() }
        _ = try writer.write(to: output)
        try output.finishWriting()
        XCTAssertNoThrow(try WriteVerification.verify(writer, writtenAt: output.temporaryPath, hashData: false))
        // Put the source's offset back into the written saio of track 1 (what a byte-exact copy does).
        let sourceOffset = try XCTUnwrap(Self.auxiliaryInformation(input)[1]).offset
        let written = try Movie.open(path: output.temporaryPath)
        let saio = try XCTUnwrap(written.track(id: 1)?.box.find(["mdia", "minf", "stbl", "saio"]))
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: output.temporaryPath))
        try handle.seek(toOffset: saio.offset + saio.size - 4)
        handle.write(Data([UInt8(sourceOffset >> 24 & 255), UInt8(sourceOffset >> 16 & 255), UInt8(sourceOffset >> 8 & 255), UInt8(sourceOffset & 255)]))
        try handle.close()
        XCTAssertThrowsError(try WriteVerification.verify(writer, writtenAt: output.temporaryPath, hashData: false)) { error in
            XCTAssertEqual((error as? KeepTrackError)?.exitCode, 74)
            XCTAssertTrue("\(error)".contains("saio"), "\(error)")
        }
        let copy = folder.path("copy.mp4")
        try fileBytes(output.temporaryPath).write(to: URL(fileURLWithPath: copy))  // the temporary may be an unnamed O_TMPFILE
        let compare = runCLI(["compare", input, copy])
        XCTAssertEqual(compare.code, 1, compare.out)
        XCTAssertTrue(compare.out.contains("saio"), compare.out)
    }

    // MARK: iloc

    /// An iloc (version 1, 4-byte fields) with one item per (offset, length), construction method 0.
    static func itemLocations(_ extents: [(offset: UInt64, length: UInt64)]) -> Box {
        var writer = ByteWriter()
        writer.u32(1 << 24)              // version 1, flags 0
        writer.u16(0x4440)               // offset_size 4, length_size 4, base_offset_size 4, index_size 0
        writer.u16(UInt16(extents.count))
        for (index, extent) in extents.enumerated() {
            writer.u16(UInt16(index + 1)) // item_ID
            writer.u16(0)                 // construction_method 0: file offset
            writer.u16(0)                 // data_reference_index 0: this file
            writer.u32(UInt32(extent.offset - 16)) // base_offset
            writer.u16(1)
            writer.u32(16)                // extent_offset: base + 16 is the item
            writer.u32(UInt32(extent.length))
        }
        return Box(type: "iloc", bytes: writer.bytes)
    }

    /// The fixture (moov last) with an iloc in moov/meta and a `kTst` box after moov; `extents(kTstPayload)`
    /// gives the items. Returns the path.
    static func movieWithItems(in folder: TemporaryFolder, name: String, payload: [UInt8],
                               extents: (UInt64, Movie) -> [(offset: UInt64, length: UInt64)]) throws -> String {
        let fixture = try FixtureBuilder().write(to: folder.path("fixture-\(name)"))
        let movie = try Movie.open(path: fixture)
        XCTAssertEqual(movie.boxes.last?.type, "moov")
        func moov(with iloc: Box) -> Box {
            var moov = movie.moov
            moov.modifyChildren { children in
                let index = children.firstIndex { $0.type == "meta" }!
                children[index].modifyChildren { $0.append(iloc) }
            }
            return moov
        }
        let sizing = moov(with: itemLocations(extents(0, movie)))
        let payloadOffset = movie.moov.offset + sizing.size + 8
        let final = moov(with: itemLocations(extents(payloadOffset, movie)))
        XCTAssertEqual(final.size, sizing.size)
        var bytes = try fileBytes(fixture).prefix(Int(movie.moov.offset))
        bytes.append(contentsOf: try final.serialized())
        var header = ByteWriter()
        header.u32(UInt32(8 + payload.count))
        header.fourCC("kTst")
        bytes.append(contentsOf: header.bytes + payload)
        let path = folder.path(name)
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// (offset, length) of every item of the output's moov/meta/iloc, read with this test's own parser.
    static func items(_ path: String) throws -> [(offset: UInt64, length: UInt64)] {
        let iloc = try XCTUnwrap(Movie.open(path: path).moov.first("meta")?.first("iloc")).payload
        func u(_ at: Int, _ width: Int) -> UInt64 { iloc[at..<at + width].reduce(0) { $0 << 8 | UInt64($1) } }
        var at = 8, result: [(UInt64, UInt64)] = []
        for _ in 0..<u(6, 2) {
            let base = u(at + 6, 4), offset = u(at + 12, 4), length = u(at + 16, 4)
            result.append((base + offset, length))
            at += 20
        }
        return result
    }

    func testItemLocationsFollowTheirBytes() throws {
        let folder = TemporaryFolder()
        let payload = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let input = try Self.movieWithItems(in: folder, name: "items.mov", payload: payload) { start, _ in
            [(start + 100, 500), (start + 2000, 1000)]
        }
        let before = try Self.items(input)
        for arguments in [["remux"], ["remux", "--moov-last"], ["strip-spatial"], ["select", "--prefer", "spatial"]] {
            let output = folder.path("\(arguments.joined(separator: "-")).mov")
            let result = runCLI(arguments + [input, output])
            XCTAssertEqual(result.code, 0, "\(arguments): \(result.error)")
            let after = try Self.items(output)
            XCTAssertEqual(after.count, 2)
            for (old, new) in zip(before, after) {
                XCTAssertNotEqual(new.offset, old.offset, "\(arguments): the kTst box moved before moov")
                XCTAssertEqual(new.length, old.length)
                XCTAssertEqual(try Self.bytes(output, at: new.offset, count: new.length), try Self.bytes(input, at: old.offset, count: old.length), "\(arguments)")
            }
            XCTAssertEqual(runTool("ffprobe", ["-v", "error", output])?.code, 0)
        }
    }

    /// A top-level meta (written before moov) with an item stored in a box after moov: both move.
    func testTopLevelMetaItemFollowsItsBytes() throws {
        let folder = TemporaryFolder()
        let fixture = try FixtureBuilder().write(to: folder.path("plain.mov"))
        var bytes = try fileBytes(fixture)
        let payload = (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        var handler = ByteWriter()
        handler.u32(0); handler.u32(0); handler.fourCC("pict"); handler.append([UInt8](repeating: 0, count: 13))
        func meta(_ itemOffset: UInt64) throws -> [UInt8] {
            try Box(type: "meta", prefix: [0, 0, 0, 0], children: [Box(type: "hdlr", bytes: handler.bytes),
                                                                   Self.itemLocations([(itemOffset, 700)])]).serialized()
        }
        let sizing = try meta(16)
        let start = UInt64(bytes.count + sizing.count + 8)
        bytes.append(contentsOf: try meta(start + 300))
        bytes.append(contentsOf: try Box(type: "kTst", bytes: payload).serialized())
        let input = folder.path("top-meta.mov")
        try bytes.write(to: URL(fileURLWithPath: input))
        let output = folder.path("out.mov")
        let result = runCLI(["remux", input, output])
        XCTAssertEqual(result.code, 0, result.error)
        let written = try Movie.open(path: output)
        let iloc = try XCTUnwrap(written.boxes.first { $0.type == "meta" }?.first("iloc")).payload
        let base = iloc[14..<18].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, offset = iloc[20..<24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        XCTAssertNotEqual(base + offset, start + 300)
        XCTAssertEqual(try Self.bytes(output, at: base + offset, count: 700), Data(payload[300..<1000]))
    }

    /// Item bytes in mdat outside every sample are not carried: the rewrite refuses (65) naming iloc.
    func testItemInTheMediaDataIsRefused() throws {
        let folder = TemporaryFolder()
        let input = try Self.movieWithItems(in: folder, name: "mdat-item.mov", payload: [1, 2, 3]) { _, movie in
            let mdat = movie.boxes.first { $0.type == "mdat" }!
            return [(mdat.payloadOffset + 4, 64)]
        }
        let output = folder.path("out.mov")
        let result = runCLI(["remux", input, output])
        XCTAssertEqual(result.code, 65, result.error)
        XCTAssertTrue(result.error.contains("moov/meta/iloc item 1"), result.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    // MARK: indexes of fragments

    /// An init segment's trailing sidx counts from its own end, where the segments follow: it stays
    /// the output's last box (once moved before moov it made ffprobe see 30 s of nothing, and was then dropped).
    func testSegmentIndexOfAnInitSegmentStaysLast() throws {
        let input = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/eyevinn-mp4ff/init_with_colr.mp4").path)
        XCTAssertEqual(try Movie.open(path: input).boxes.last?.type, "sidx")
        let folder = TemporaryFolder()
        let output = folder.path("out.mp4")
        let result = runCLI(["remux", input, output])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertFalse(result.error.contains("dropped sidx"), result.error)
        XCTAssertEqual(try Movie.open(path: output).boxes.map(\.type), ["ftyp", "moov", "mdat", "sidx"])
        let durations = [input, output].map { runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", $0])?.out }
        XCTAssertNotNil(durations[0])
        XCTAssertEqual(durations[0], durations[1])
    }

    /// sidx and mfra (tfra/mfro) appended to a progressive movie: remux, strip-spatial (note in --report
    /// JSON too), select and extract drop them and say so.
    func testFragmentIndexesAreDroppedByEveryRewrite() throws {
        let folder = TemporaryFolder()
        let fixture = try FixtureBuilder().write(to: folder.path("plain.mov"))
        var sidx = ByteWriter()
        sidx.u32(0); sidx.u32(1); sidx.u32(600); sidx.u32(0); sidx.u32(0); sidx.u16(0); sidx.u16(1)
        sidx.u32(1000); sidx.u32(1200); sidx.u32(0x9000_0000)
        var mfro = ByteWriter()
        mfro.u32(0); mfro.u32(24)
        var bytes = try fileBytes(fixture)
        bytes.append(contentsOf: try Box(type: "sidx", bytes: sidx.bytes).serialized())
        bytes.append(contentsOf: try Box(type: "mfra", children: [Box(type: "mfro", bytes: mfro.bytes)]).serialized())
        let input = folder.path("indexed.mov")
        try bytes.write(to: URL(fileURLWithPath: input))
        let runs = [["remux"], ["strip-spatial", "--report", folder.path("report.json")], ["select"], ["extract", "--track", "2"]]
        for arguments in runs {
            let output = folder.path("\(arguments[0]).mov")
            let result = runCLI(Array(arguments.prefix(1)) + [input, output] + arguments.dropFirst())
            XCTAssertEqual(result.code, 0, "\(arguments): \(result.error)")
            XCTAssertTrue(result.error.contains("note: dropped sidx at byte"), "\(arguments): \(result.error)")
            XCTAssertTrue(result.error.contains("note: dropped mfra at byte") && result.error.contains("tfra/mfro"), "\(arguments): \(result.error)")
            let types = try Movie.open(path: output).boxes.map(\.type)
            XCTAssertFalse(types.contains("sidx") || types.contains("mfra"), "\(arguments): \(types)")
        }
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: fileBytes(folder.path("report.json"))) as? [String: Any])
        let rows = try XCTUnwrap(report["rows"] as? [[String: Any]])
        let notes = try XCTUnwrap(rows.first?["notes"] as? [String])
        XCTAssertEqual(notes.filter { $0.hasPrefix("dropped sidx") || $0.hasPrefix("dropped mfra") }.count, 2, "\(notes)")
    }
}
