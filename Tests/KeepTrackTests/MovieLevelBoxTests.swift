import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures
@testable import KeepTrackReframePipeline

/// Boxes of the movie itself (ftyp, moov's own children, top-level boxes keeptrack does not know) come
/// out of every rewrite with their own bytes, whatever the tracks' data come from.
final class MovieLevelBoxTests: XCTestCase {
    /// An unknown top-level box larger than the parser loads (so its payload stays in the file), random bytes.
    static let unknownPayload: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<(BoxParser.loadLimit + 4099)).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }()

    /// `source` with a `kTst` box holding `payload` appended after its last box; returns the new file's path.
    static func appendingUnknownBox(to source: String, payload: [UInt8], as name: String, in folder: TemporaryFolder,
                                    runningToTheEnd: Bool = false) throws -> String {
        var bytes = try fileBytes(source)
        var header = ByteWriter()
        header.u32(runningToTheEnd ? 0 : UInt32(8 + payload.count))
        header.fourCC("kTst")
        bytes.append(contentsOf: header.bytes)
        bytes.append(contentsOf: payload)
        let path = folder.path(name)
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The payload of the one `kTst` box of `path`, read from that file.
    static func unknownPayload(of path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        let movie = try Movie.open(path: path)
        let boxes = movie.boxes.filter { $0.type == "kTst" }
        XCTAssertEqual(boxes.count, 1, "kTst boxes in \(path)", file: file, line: line)
        let box = try XCTUnwrap(boxes.first, file: file, line: line)
        return try movie.source.read(at: box.payloadOffset, count: Int(box.payloadSize))
    }

    func testUnknownTopLevelBoxKeepsItsBytesThroughRemuxAndStripSpatial() throws {
        let folder = TemporaryFolder()
        let fixture = try FixtureBuilder().write(to: folder.path("plain.mov"))
        let source = try Self.appendingUnknownBox(to: fixture, payload: Self.unknownPayload, as: "source.mov", in: folder)
        XCTAssertEqual(try Self.unknownPayload(of: source), Self.unknownPayload)
        for (command, arguments) in [("remux", [String]()), ("remux", ["--moov-last"]), ("strip-spatial", [])] {
            let output = folder.path("\(command)\(arguments.joined()).mov")
            let result = runCLI([command] + arguments + [source, output])
            XCTAssertEqual(result.code, 0, "\(command): \(result.error)")
            XCTAssertTrue(try Self.unknownPayload(of: output) == Self.unknownPayload, "\(command) \(arguments): kTst bytes changed")
            let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-show_entries", "stream=index", "-of", "csv=p=0", output]))
            XCTAssertEqual(probe.code, 0, "ffprobe reads the \(command) output")
            XCTAssertEqual(probe.out.split(separator: "\n").count, try Movie.open(path: output).tracks.count)
        }
        // A last box of size 0 (to the end of the file) is written with its real size before moov.
        let toEnd = try Self.appendingUnknownBox(to: fixture, payload: Array(Self.unknownPayload.prefix(5000)), as: "to-end.mov",
                                                 in: folder, runningToTheEnd: true)
        let output = folder.path("to-end-remux.mov")
        XCTAssertEqual(runCLI(["remux", toEnd, output]).code, 0)
        XCTAssertEqual(try Self.unknownPayload(of: output), Array(Self.unknownPayload.prefix(5000)))
        XCTAssertEqual(try Movie.open(path: output).tracks.count, try Movie.open(path: fixture).tracks.count)
    }

    /// reframe writes the re-encoded video from its own data file; the movie's boxes still come from the source.
    func testUnknownTopLevelBoxKeepsItsBytesThroughReframe() throws {
        let folder = TemporaryFolder()
        var scene = try XCTUnwrap(ReframeScene.standard(duration: 1).first { $0.name == "still" })
        scene.name = "tiny"
        let clip = try writeScene(scene, in: folder)
        let unknown = try Self.appendingUnknownBox(to: clip, payload: Self.unknownPayload, as: "unknown.mov", in: folder)
        // And a fragment index after it, which the output must drop and name.
        var mfro = ByteWriter()
        mfro.u32(0); mfro.u32(24)
        let source = folder.path("source.mov")
        try (fileBytes(unknown) + Box(type: "mfra", children: [Box(type: "mfro", bytes: mfro.bytes)]).serialized())
            .write(to: URL(fileURLWithPath: source))
        let output = folder.path("vertical.mov")
        var options = ReframeOptions()
        options.preset = "ultrafast"
        let summary = try Reframer.run(input: source, output: output, options: options)
        XCTAssertFalse(summary.passthrough)
        XCTAssertTrue(summary.notes.contains { $0.hasPrefix("dropped mfra at byte") }, "\(summary.notes)")
        XCTAssertFalse(try Movie.open(path: output).boxes.contains { $0.type == "mfra" })
        // The output was read back before it replaced OUT, as remux's is.
        let verification = try XCTUnwrap(summary.verification)
        let written = try Movie.open(path: output)
        XCTAssertEqual(verification.tracks, written.tracks.count)
        XCTAssertEqual(verification.samples, written.tracks.reduce(0) { $0 + $1.sampleTable.sampleCount })
        XCTAssertTrue(summary.json.rendered().contains("\"verified\""))
        XCTAssertTrue(try Self.unknownPayload(of: output) == Self.unknownPayload, "reframe: kTst bytes changed")
        let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", output]))
        XCTAssertEqual(probe.code, 0)
        XCTAssertTrue(probe.out.contains("h264,608,1080"), probe.out)
    }

    /// Verification reads the movie's own boxes back: one changed byte in ftyp, in a kept top-level box
    /// (one left in the file and compared piece by piece) or in moov's metadata fails the write.
    func testVerificationCatchesChangedMovieBoxes() throws {
        let folder = TemporaryFolder()
        let fixture = try FixtureBuilder().write(to: folder.path("plain.mov"))
        let source = try Self.appendingUnknownBox(to: fixture, payload: Self.unknownPayload, as: "source.mov", in: folder)
        let writer = MovieWriter(passingThrough: try Movie.open(path: source))
        for target in ["ftyp", "kTst", "moov/meta", "none"] {
            let output = try OutputFile(destination: folder.path("\(target.replacingOccurrences(of: "/", with: "-")).mov"), overwrite: false)
            defer { output.discard() }
            _ = try writer.write(to: output)
            try output.finishWriting()
            let written = try Movie.open(path: output.temporaryPath)
            let box: Box?
            switch target {
            case "ftyp": box = written.boxes.first { $0.type == "ftyp" }
            case "kTst": box = written.boxes.first { $0.type == "kTst" }
            case "moov/meta": box = written.moov.first("meta")?.children.last
            default: box = nil
            }
            if let box {
                // The last payload byte: deep inside the box, past every header.
                let at = box.offset + box.size - 1
                let handle = try FileHandle(forUpdating: URL(fileURLWithPath: output.temporaryPath))
                try handle.seek(toOffset: at)
                let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
                try handle.seek(toOffset: at)
                handle.write(Data([~byte]))
                try handle.close()
                XCTAssertThrowsError(try WriteVerification.verify(writer, writtenAt: output.temporaryPath, hashData: false), target) { error in
                    XCTAssertEqual((error as? KeepTrackError)?.exitCode, 74)
                    XCTAssertTrue("\(error)".contains("differ"), "\(target): \(error)")
                }
            } else {
                XCTAssertNoThrow(try WriteVerification.verify(writer, writtenAt: output.temporaryPath, hashData: false))
            }
        }
    }
}
