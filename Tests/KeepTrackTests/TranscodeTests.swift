import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackFixtures
import KeepTrackFraming
@testable import KeepTrackTranscode

/// `keeptrack transcode`: the video re-encoded, everything else as it was. Checked with ffprobe (packets with
/// their SHA-256 per stream, video times), mediainfo (profile, bit depth, colour), `keeptrack compare` and `lint`.
final class TranscodeTests: XCTestCase {
    private func transcode(_ arguments: [String]) -> (code: Int32, out: String, error: String) {
        runCLI(["transcode"] + arguments)
    }

    private func videoStream(_ path: String) throws -> [String: Any] {
        let result = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-of", "json", "-show_streams", path]))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        return try XCTUnwrap((json["streams"] as? [[String: Any]])?.first)
    }

    /// ffprobe's fields of the first video stream that `expected` names, as ffprobe spells their values.
    private func assertVideoStream(_ path: String, _ expected: [String: String], _ context: String = "", file: StaticString = #filePath, line: UInt = #line) throws {
        let stream = try videoStream(path)
        for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(stream[key].map { "\($0)" }, value, "\(context) \(key)", file: file, line: line)
        }
    }

    private func mediaInfoVideo(_ path: String) throws -> [String: Any] {
        let result = try XCTUnwrap(runTool("mediainfo", ["--Output=JSON", path]), "mediainfo is installed by scripts/setup.sh")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let tracks = (json["media"] as? [String: Any])?["track"] as? [[String: Any]] ?? []
        return try XCTUnwrap(tracks.first { $0["@type"] as? String == "Video" })
    }

    private func summary(_ out: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], out)
    }

    private func droppedItems(_ summary: [String: Any]) -> [String] {
        (summary["dropped"] as? [[String: Any]] ?? []).compactMap { $0["item"] as? String }
    }

    /// The iPhone 16 Pro recording (HEVC Main 10 HLG + Dolby Vision, rotated 90°, APAC + AAC, six mebx tracks) to
    /// H.264: 8-bit High, tone-mapped to SDR and tagged BT.709; Dolby Vision's box and the HDR-only amve named as dropped.
    func testIPhoneRecordingToH264IsToneMappedEightBitHighAndEverythingElsePassesThrough() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("web.mov")
        let result = transcode([source, output, "--preset", "veryfast", "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        try assertOnlyVideoChanged(source, output)
        try assertVideoStream(output, ["codec_name": "h264", "profile": "High", "pix_fmt": "yuv420p", "color_transfer": "bt709",
                                       "color_primaries": "bt709", "color_space": "bt709"])
        let info = try mediaInfoVideo(output)
        XCTAssertEqual(info["Format_Profile"] as? String, "High")
        XCTAssertEqual(info["BitDepth"] as? String, "8")
        XCTAssertEqual(info["transfer_characteristics"] as? String, "BT.709")
        XCTAssertNil(info["HDR_Format"], "no Dolby Vision claimed any more")
        // exiftool (an independent reader of every tag): the same tags and values but for the file system's, the media
        // data's place and size, the bitrate and the video track's codec and colour fields.
        let expectedToChange = ["[System]", "[QuickTime] MediaDataSize", "[QuickTime] MediaDataOffset", "[Composite] AvgBitrate",
                                "[Track1] CompressorID", "[Track1] CompressorName", "[Track1] ColorProfiles", "[Track1] ColorPrimaries",
                                "[Track1] TransferCharacteristics", "[Track1] MatrixCoefficients"]
        func tags(_ path: String) throws -> [String] {
            let out = try XCTUnwrap(runTool("exiftool", ["-a", "-G1", "-s", path]), "exiftool is installed by scripts/setup.sh").out
            return out.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
                .filter { line in !expectedToChange.contains { line.hasPrefix($0 + " ") } }
                .sorted()
        }
        let sourceTags = try tags(source)
        XCTAssertGreaterThan(sourceTags.count, 200)
        XCTAssertEqual(try tags(output), sourceTags)
        let json = try summary(result.out)
        XCTAssertTrue(droppedItems(json).contains("sample entry box dvvC"), "\(json)")
        XCTAssertTrue(droppedItems(json).contains("sample entry box amve"), "\(json)")
        XCTAssertEqual((json["video"] as? [String: Any])?["hdr"] as? String, "HLG tone-mapped to SDR BT.709")
    }

    /// To HEVC, scaled to fit 960x960: Main 10 with the source's HLG description (ffprobe and mediainfo), the
    /// HDR-only amve box carried byte for byte, tkhd and tapt scaled with the picture, never upscaled.
    func testIPhoneRecordingToHEVCStaysHLGMainTenAndScalesItsApertures() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("small.mov")
        let result = transcode([source, output, "--video", "hevc", "--preset", "ultrafast", "--max-size", "960x960", "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        try assertOnlyVideoChanged(source, output)
        try assertVideoStream(output, ["profile": "Main 10", "pix_fmt": "yuv420p10le", "color_transfer": "arib-std-b67",
                                       "color_primaries": "bt2020", "width": "960", "height": "540"])
        let info = try mediaInfoVideo(output)
        XCTAssertEqual(info["BitDepth"] as? String, "10")
        XCTAssertEqual(info["transfer_characteristics"] as? String, "HLG")
        let before = try XCTUnwrap(try Movie.open(path: source).tracks.first { $0.kind == .video })
        let after = try XCTUnwrap(try Movie.open(path: output).track(id: before.id))
        XCTAssertEqual(try after.sampleEntries.first?.first("amve")?.serialized(), try before.sampleEntries.first?.first("amve")?.serialized())
        XCTAssertNotNil(after.sampleEntries.first?.first("amve"))
        XCTAssertNil(after.sampleEntries.first?.first("dvvC"))
        XCTAssertEqual(after.header.width, before.header.width / 2)
        XCTAssertEqual(after.header.height, before.header.height / 2)
        let apertures = { (track: Track) in track.box.first("tapt")?.children.map { Array($0.payload.suffix(8)) } ?? [] }
        XCTAssertEqual(apertures(after).count, 3)
        for (new, old) in zip(apertures(after), apertures(before)) {
            let value = { (bytes: [UInt8], at: Int) in bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
            XCTAssertEqual(value(new, 0), value(old, 0) / 2)
            XCTAssertEqual(value(new, 4), value(old, 4) / 2)
        }
        let json = try summary(result.out)
        XCTAssertEqual((json["video"] as? [String: Any])?["hdr"] as? String, "HLG kept (10-bit)")
        XCTAssertFalse(droppedItems(json).contains("sample entry box amve"))

        let larger = transcode([source, folder.path("larger.mov"), "--video", "hevc", "--preset", "ultrafast", "--max-size", "4000x4000", "--json"])
        XCTAssertEqual(larger.code, 0, larger.error)
        try assertVideoStream(folder.path("larger.mov"), ["width": "1920"], "never upscaled")
        XCTAssertTrue((try summary(larger.out)["notApplied"] as? [[String: Any]] ?? []).contains { $0["item"] as? String == "max-size" })
    }

    /// A real H.264 clip with AAC in .mp4: scaled down, every frame at its time, the audio byte for byte.
    func testFootageClipIntoMP4KeepsItsAudioAndFrameTimes() throws {
        let source = try PersonDetectorTests.footage("talking_head_720p.mp4")
        let folder = TemporaryFolder()
        let output = folder.path("small.mp4")
        let result = transcode([source, output, "--preset", "ultrafast", "--max-size", "640x640"])
        XCTAssertEqual(result.code, 0, result.error)
        try assertOnlyVideoChanged(source, output)
        try assertVideoStream(output, ["width": "640", "height": "360"])
    }

    /// An odd-sized source (Motion JPEG 321x241) is scaled to even sizes, which 4:2:0 H.264 needs, and says so.
    func testOddSizedSourceIsScaledToEvenSizes() throws {
        let folder = TemporaryFolder()
        let source = folder.path("odd.mov")
        guard runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=10:d=0.5", "-vf", "scale=321:241",
                                 "-c:v", "mjpeg", "-pix_fmt", "yuvj444p", source])?.code == 0 else { throw unavailable("ffmpeg is needed") }
        try assertVideoStream(source, ["width": "321", "height": "241"], "source")
        let output = folder.path("even.mov")
        let result = transcode([source, output, "--preset", "ultrafast"])
        XCTAssertEqual(result.code, 0, result.error)
        try assertOnlyVideoChanged(source, output)
        XCTAssertTrue(result.out.contains("picture size: 321x241 to 320x240"), result.out)
        // Full range kept (the stream says pc), and the pixels are full range too: as close to the source, in RGB, as
        // ffmpeg's own conversion of it (a video-range picture tagged full once came out 7 dB further).
        try assertVideoStream(output, ["width": "320", "height": "240", "pix_fmt": "yuvj420p", "color_range": "pc"])
        let reference = folder.path("ffmpeg.mov")
        XCTAssertEqual(runTool("ffmpeg", ["-v", "error", "-nostdin", "-i", source, "-vf", "scale=320:240", "-c:v", "libx264", "-preset", "ultrafast",
                                          "-pix_fmt", "yuv420p", reference])?.code, 0)
        let ours = try psnr(output, against: source, chain: "scale=320:240,format=rgb24", format: "rgb24")
        let theirs = try psnr(reference, against: source, chain: "scale=320:240,format=rgb24", format: "rgb24")
        XCTAssertGreaterThan(ours, theirs - 1, "ours \(ours) dB, ffmpeg's \(theirs) dB")
    }

    /// Non-square pixels (an anamorphic 4:3 pixel aspect): the pasp box kept and the new stream's VUI saying the same.
    func testPixelAspectIsKeptInTheBoxAndTheStream() throws {
        let folder = TemporaryFolder()
        let source = folder.path("anamorphic.mov")
        guard runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=240x180:r=10:d=1", "-vf", "setsar=4/3", "-c:v", "libx264", source])?.code == 0 else {
            throw unavailable("ffmpeg is needed")
        }
        try assertVideoStream(source, ["sample_aspect_ratio": "4:3"], "source")
        let output = folder.path("out.mov")
        XCTAssertEqual(transcode([source, output, "--video", "hevc", "--preset", "ultrafast"]).code, 0)
        try assertVideoStream(output, ["sample_aspect_ratio": "4:3", "display_aspect_ratio": "16:9"])
        // ffprobe takes the aspect from pasp; the stream's own VUI, traced by ffmpeg, must agree (aspect_ratio_idc 14 is 4:3).
        let trace = try XCTUnwrap(runToolStandardError("ffmpeg", ["-v", "trace", "-nostdin", "-i", output, "-map", "0:v", "-c", "copy",
                                                                  "-bsf:v", "trace_headers", "-f", "null", "-"]))
        let idc = try XCTUnwrap(trace.split(separator: "\n").first { $0.contains(" aspect_ratio_idc ") }, "no VUI aspect in the stream")
        XCTAssertTrue(idc.hasSuffix("= 14"), String(idc))
        let pasp = { (path: String) in try Movie.open(path: path).tracks.first { $0.kind == .video }?.sampleEntries.first?.first("pasp")?.payload }
        XCTAssertEqual(try pasp(output), try pasp(source))
        XCTAssertNotNil(try pasp(source))
    }

    /// An iPhone-layout .mp4 from real parts: ffmpeg's H.264 and AAC (movie time scale 48000) and the AVAssetWriter
    /// file's APAC track (ISO sample entry with dapa) as track 3, disabled, in the AAC track's alternate group, falling back to it.
    private func makeSpatialMP4(in folder: TemporaryFolder) throws -> String {
        let parts = folder.path("parts.mp4")
        guard runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=0.4", "-f", "lavfi", "-i", "sine=r=48000:d=0.4",
                                 "-c:v", "libx264", "-c:a", "aac", "-movie_timescale", "48000", parts])?.code == 0 else { throw unavailable("ffmpeg is needed") }
        let movie = try Movie.open(path: parts), apacMovie = try Movie.open(path: try RealFixtures.require(RealFixtures.avAssetWriter))
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video }), aac = try XCTUnwrap(movie.tracks.first { $0.kind == .audio })
        let apac = try XCTUnwrap(apacMovie.tracks.first { $0.format == "apac" })
        XCTAssertEqual(apacMovie.moov.first("mvhd").flatMap { try? MovieHeaderBox(box: $0) }?.timescale, 48000)
        func retitled(_ track: Track, in source: Movie, id: UInt32, enabled: Bool, fallback: UInt32?) throws -> OutputTrack {
            var output = OutputTrack(track, in: source)
            try output.trak.modifyChildren { children in
                for index in children.indices where children[index].type == "tkhd" {
                    children[index] = try children[index].reencoded(TrackHeaderBox.self) { header in
                        header.trackID = id
                        header.isEnabled = enabled
                        header.alternateGroup = 1
                    }
                }
                if let fallback {
                    let fall = Box(type: "fall", bytes: try TrackReferenceTypeBox(trackIDs: [fallback]).encoded())
                    children.insert(Box(type: "tref", children: [fall]), at: 1)
                }
            }
            return output
        }
        var writer = MovieWriter(passingThrough: movie)
        writer.tracks = [OutputTrack(video, in: movie), try retitled(aac, in: movie, id: aac.id, enabled: true, fallback: nil),
                         try retitled(apac, in: apacMovie, id: 3, enabled: false, fallback: aac.id)]
        let path = folder.path("spatial.mp4")
        try MovieOutput.write(writer, to: path, inputs: [parts], options: MovieOutput.Options())
        XCTAssertEqual(runCLI(["lint", path]).code, 0, "the made file is a clean iPhone layout")
        return path
    }

    /// Into .mp4 too (the writer is keeptrack's): APAC in its ISO sample entry, its group and fall kept byte for byte.
    func testSpatialAudioInMP4PassesThrough() throws {
        let folder = TemporaryFolder()
        let source = try makeSpatialMP4(in: folder)
        let output = folder.path("out.mp4")
        let result = transcode([source, output, "--video", "hevc", "--preset", "ultrafast"])
        XCTAssertEqual(result.code, 0, result.error)
        try assertOnlyVideoChanged(source, output)
        let written = try Movie.open(path: output)
        let apac = try XCTUnwrap(written.tracks.first { $0.format == "apac" })
        XCTAssertFalse(apac.isEnabled)
        XCTAssertEqual(apac.references.map(\.type), ["fall"])
        XCTAssertNotNil(apac.sampleEntries.first?.first("dapa"))
    }

    /// An HLG and a PQ 10-bit HEVC source made by ffmpeg (zscale to BT.2020 and the HDR transfer), with AAC beside.
    private func makeHDRSource(transfer: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("\(transfer).mov")
        let made = runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=1", "-f", "lavfi", "-i", "sine=f=440:d=1",
                                      "-vf", "zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t=\(transfer):m=2020_ncl:p=2020:r=tv:npl=100,format=yuv420p10le",
                                      "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
                                      "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc",
                                      "-c:a", "aac", path])
        guard let made, made.code == 0 else { throw unavailable("ffmpeg with libx265 and zscale is needed to make an HDR source") }
        XCTAssertEqual(try videoStream(path)["color_transfer"] as? String, transfer)
        return path
    }

    /// PSNR (average, dB) of `path`'s video against `reference` put through `chain` by ffmpeg, compared in `format`.
    private func psnr(_ path: String, against reference: String, chain: String, format: String = "yuv420p") throws -> Double {
        let log = try XCTUnwrap(runToolStandardError("ffmpeg", ["-v", "info", "-nostdin", "-i", path, "-i", reference, "-filter_complex",
                                                                "[1:v]\(chain)[ref];[0:v]format=\(format)[ours];[ours][ref]psnr", "-f", "null", "-"]))
        let line = try XCTUnwrap(log.components(separatedBy: "\n").last { $0.contains("PSNR") && $0.contains("average:") }, log)
        let value = try XCTUnwrap(line.components(separatedBy: "average:").last?.split(separator: " ").first, line)
        return value == "inf" ? .infinity : try XCTUnwrap(Double(value), line)
    }

    /// Tone mapping is FFmpeg's own: the H.264 output of an HLG and of a PQ source is within 35 dB PSNR of the
    /// source put through ffmpeg's zscale/tonemap chain, and much closer to it than the HDR pictures merely
    /// squeezed into 8 bits are (so the test sees a missing tone map).
    func testHLGAndPQSourcesToH264AreToneMappedAsFFmpegsChainDoes() throws {
        let folder = TemporaryFolder()
        let ffmpegChain = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
        for transfer in ["arib-std-b67", "smpte2084"] {
            let source = try makeHDRSource(transfer: transfer, in: folder)
            let output = folder.path("\(transfer)-sdr.mov")
            let result = transcode([source, output, "--crf", "12", "--preset", "veryfast"])
            XCTAssertEqual(result.code, 0, result.error)
            try assertOnlyVideoChanged(source, output)
            try assertVideoStream(output, ["profile": "High", "color_transfer": "bt709"], transfer)
            let mapped = try psnr(output, against: source, chain: ffmpegChain)
            let squeezed = try psnr(output, against: source, chain: "format=yuv420p")
            XCTAssertGreaterThanOrEqual(mapped, 35, transfer)
            XCTAssertGreaterThan(mapped, squeezed + 3, "\(transfer): tone-mapped \(mapped) dB, squeezed \(squeezed) dB")

            let kept = folder.path("\(transfer)-hdr.mov")
            XCTAssertEqual(transcode([source, kept, "--video", "hevc", "--preset", "ultrafast"]).code, 0)
            try assertVideoStream(kept, ["color_transfer": transfer, "pix_fmt": "yuv420p10le", "profile": "Main 10"], transfer)
        }
    }

    /// ProRes and DNxHR for editors: 4:2:2 intra frames under the fourcc of the profile asked for, no avcC/hvcC,
    /// every frame decoded by ffmpeg as that profile; HLG kept by the 10-bit profiles, tone-mapped by DNxHR's 8-bit HQ.
    func testProResAndDNxHRDecodeAsTheProfileAskedFor() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let cases: [(arguments: [String], expected: [String: String])] = [
            (["--video", "prores", "--prores-profile", "lt"],
             ["codec_name": "prores", "profile": "LT", "codec_tag_string": "apcs", "pix_fmt": "yuv422p10le", "color_transfer": "arib-std-b67"]),
            (["--video", "prores"], ["codec_name": "prores", "profile": "HQ", "codec_tag_string": "apch", "pix_fmt": "yuv422p10le"]),
            (["--video", "dnxhr"],
             ["codec_name": "dnxhd", "profile": "DNXHR HQX", "codec_tag_string": "AVdh", "pix_fmt": "yuv422p10le", "color_transfer": "arib-std-b67"]),
            (["--video", "dnxhr", "--dnxhr-profile", "hq"], ["codec_name": "dnxhd", "profile": "DNXHR HQ", "pix_fmt": "yuv422p", "color_transfer": "bt709"]),
        ]
        for (index, (arguments, expected)) in cases.enumerated() {
            let output = folder.path("edit-\(index).mov")
            let result = transcode([source, output, "--max-size", "640x640"] + arguments)
            XCTAssertEqual(result.code, 0, "\(arguments): \(result.error)")
            try assertOnlyVideoChanged(source, output)
            try assertVideoStream(output, expected, "\(arguments)")
            let entry = try XCTUnwrap(try Movie.open(path: output).tracks.first { $0.kind == .video }?.sampleEntries.first)
            XCTAssertEqual(entry.children.filter { ["avcC", "hvcC"].contains($0.type) }.count, 0, "\(arguments)")
            let decoded = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-i", output, "-map", "0:v", "-f", "null", "-"]))
            XCTAssertEqual(decoded.code, 0, "\(arguments)")
        }
        XCTAssertEqual(transcode([source, folder.path("edit.mp4"), "--video", "prores"]).code, 64, "ProRes goes into .mov")
    }

    /// --video copy re-encodes nothing: every stream, the video too, has the same packets; the settings given say they were not applied.
    func testVideoCopyIsARemuxThatNamesTheSettingsNotApplied() throws {
        let source = try PersonDetectorTests.footage("talking_head_720p.mp4")
        let folder = TemporaryFolder()
        let output = folder.path("copy.mp4")
        let result = transcode([source, output, "--video", "copy", "--crf", "30", "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        let before = try FFprobe.probe(source), after = try FFprobe.probe(output)
        XCTAssertEqual(after.streams.count, before.streams.count)
        for stream in before.streams {
            let copy = try XCTUnwrap(stream.trackID.flatMap(after.stream(track:)))
            XCTAssertNil(FFprobe.difference(stream, copy), stream.label)
        }
        let notApplied = try summary(result.out)["notApplied"] as? [[String: Any]] ?? []
        XCTAssertEqual(notApplied.compactMap { $0["item"] as? String }, ["crf"])
    }

    /// Decoded audio as ffmpeg decodes it: 32-bit float, interleaved (`extra`: input options such as -ignore_editlist 1).
    private func decodedFloats(_ path: String, stream: Int, extra: [String] = []) throws -> Data {
        try XCTUnwrap(runToolData("ffmpeg", ["-v", "error", "-nostdin"] + extra + ["-i", path, "-map", "0:\(stream)", "-f", "f32le", "-"]), path)
    }

    /// --video copy --audio pcm on the iPhone recording: the video's and APAC's packets untouched, the AAC track (same
    /// id, flags, group; APAC's fall still names it) now LPCM holding exactly the presented samples: ffmpeg's decode of
    /// the whole AAC with Apple's implicit 2112-frame priming removed, as long as the edit list presents.
    func testAudioPCMHoldsThePresentedSamplesAndAPACStillFallsBackToIt() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let folder = TemporaryFolder()
        let output = folder.path("edit.mov")
        let result = transcode([source, output, "--video", "copy", "--audio", "pcm", "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        let movie = try Movie.open(path: source), written = try Movie.open(path: output)
        let aac = try XCTUnwrap(movie.tracks.first { $0.format == "mp4a" }), apac = try XCTUnwrap(movie.tracks.first { $0.format == "apac" })
        let pcm = try XCTUnwrap(written.track(id: aac.id))
        XCTAssertEqual(pcm.format, "lpcm")
        XCTAssertEqual(pcm.header.header.flags, aac.header.header.flags)
        XCTAssertEqual(pcm.header.alternateGroup, aac.header.alternateGroup)
        XCTAssertEqual(written.track(id: apac.id)?.references.map(\.trackIDs), [[aac.id]], "APAC falls back to the PCM track")
        let before = try FFprobe.probe(source), after = try FFprobe.probe(output)
        for stream in before.streams where stream.trackID != aac.id {
            let copy = try XCTUnwrap(stream.trackID.flatMap(after.stream(track:)))
            XCTAssertNil(FFprobe.difference(stream, copy), stream.label)
        }
        XCTAssertEqual(runCLI(["lint", output]).code, 0)
        let edit = try XCTUnwrap(aac.editList?.entries.first)
        let presentedFrames = Int((Double(edit.segmentDuration) / Double(aac.movieTimescale) * 48000).rounded())
        let ours = try decodedFloats(output, stream: try XCTUnwrap(after.stream(track: aac.id)).index)
        let whole = try decodedFloats(source, stream: try XCTUnwrap(before.stream(track: aac.id)).index, extra: ["-ignore_editlist", "1"])
        let frameBytes = 2 * 4, priming = 2112 * frameBytes
        XCTAssertEqual(ours.count, presentedFrames * frameBytes)
        XCTAssertGreaterThanOrEqual(whole.count, priming + ours.count)
        XCTAssertTrue(ours == whole.subdata(in: priming..<priming + ours.count), "PCM = ffmpeg's decode after 2112 frames of priming")
        let notApplied = try summary(result.out)["notApplied"] as? [[String: Any]] ?? []
        XCTAssertEqual(notApplied.compactMap { $0["item"] as? String }, ["audio track \(apac.id)"], "APAC has no decoder here and stays")

        // ffmpeg's own AAC (priming stated by the edit list, media time 1024): the PCM is ffmpeg's decode, edit applied.
        let hlg = try makeHDRSource(transfer: "arib-std-b67", in: folder)
        let converted = folder.path("hlg-pcm.mov")
        XCTAssertEqual(transcode([hlg, converted, "--preset", "ultrafast", "--audio", "pcm"]).code, 0)
        let theirs = try decodedFloats(hlg, stream: 1), mine = try decodedFloats(converted, stream: 1)
        XCTAssertEqual(mine.count, 44100 * 4, "1 s of mono at 44.1 kHz, as the edit list presents")
        XCTAssertTrue(mine == theirs.prefix(mine.count))
        XCTAssertEqual(transcode([hlg, folder.path("hlg-pcm.mp4"), "--audio", "pcm"]).code, 64, "LPCM v2 goes into .mov")
    }

    /// Stereo MV-HEVC (two wild spatial videos): refused with the reason; with --flatten-stereo its base view is
    /// re-encoded as 2D, every frame at its time, and the stereo boxes are named as dropped.
    func testStereoIsRefusedUnlessFlattenedToItsBaseView() throws {
        let folder = TemporaryFolder()
        for name in [StereoVideoTests.spatial, StereoVideoTests.water] {
            let source = try AudioFactsTests.wild(name)
            let output = folder.path("flat." + (name as NSString).pathExtension)
            let refused = transcode([source, output, "--preset", "ultrafast"])
            XCTAssertEqual(refused.code, 65, name)
            XCTAssertTrue(refused.error.contains("MV-HEVC") && refused.error.contains("--flatten-stereo"), refused.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output))
            let flattened = transcode([source, output, "--preset", "ultrafast", "--flatten-stereo", "--json"])
            XCTAssertEqual(flattened.code, 0, flattened.error)
            try assertOnlyVideoChanged(source, output)
            XCTAssertNil(try Movie.open(path: output).tracks.first { $0.kind == .video }?.video?.stereo, name)
            let dropped = droppedItems(try summary(flattened.out))
            XCTAssertTrue(dropped.contains("sample entry box lhvC") && dropped.contains("sample entry box vexu"), "\(name): \(dropped)")
        }
    }

    /// `source` with mastering-display (`mdcv`, ST 2086: BT.2020 primaries, D65, 1000 / 0.005 cd/m²) and content-light
    /// (`clli`: 1000 / 400 cd/m²) boxes added to its video sample entry, as HDR10 masters carry them.
    private func withMasteringBoxes(_ source: String, in folder: TemporaryFolder) throws -> String {
        let movie = try Movie.open(path: source)
        var mdcv = ByteWriter()
        for value: UInt16 in [8500, 39850, 6550, 2300, 35400, 14600, 15635, 16450] { mdcv.u16(value) }
        mdcv.u32(10_000_000)
        mdcv.u32(50)
        var clli = ByteWriter()
        clli.u16(1000)
        clli.u16(400)
        var writer = MovieWriter(passingThrough: movie)
        writer.tracks = try movie.tracks.map { track in
            var output = OutputTrack(track, in: movie)
            guard track.kind == .video else { return output }
            _ = try output.trak.modifySampleTable { stbl in
                for index in stbl.indices where stbl[index].type == "stsd" {
                    stbl[index].modifyChildren { entries in
                        entries[0].modifyChildren { $0 += [Box(type: "mdcv", bytes: mdcv.bytes), Box(type: "clli", bytes: clli.bytes)] }
                    }
                }
            }
            return output
        }
        let path = folder.path("mastered.mov")
        try MovieOutput.write(writer, to: path, inputs: [source], options: MovieOutput.Options())
        return path
    }

    /// HDR kept (hevc): the mastering-display and content-light boxes come through byte for byte, and mediainfo reads the
    /// same values from them; tone-mapped to SDR (h264) they are dropped and named.
    func testMasteringDisplayAndLightLevelsStayWithTheHDR() throws {
        let folder = TemporaryFolder()
        let source = try withMasteringBoxes(try makeHDRSource(transfer: "smpte2084", in: folder), in: folder)
        let kept = folder.path("kept.mov"), mapped = folder.path("mapped.mov")
        XCTAssertEqual(transcode([source, kept, "--video", "hevc", "--preset", "ultrafast"]).code, 0)
        let entry = { (path: String) in try Movie.open(path: path).tracks.first { $0.kind == .video }?.sampleEntries.first }
        for type: FourCC in ["mdcv", "clli"] {
            XCTAssertNotNil(try entry(source)?.first(type))
            XCTAssertEqual(try entry(kept)?.first(type)?.payload, try entry(source)?.first(type)?.payload, "\(type)")
        }
        let info = try mediaInfoVideo(kept), sourceInfo = try mediaInfoVideo(source)
        for key in ["MaxCLL", "MaxFALL", "MasteringDisplay_Luminance"] {
            XCTAssertNotNil(sourceInfo[key], "mediainfo reads \(key) from the source's boxes")
            XCTAssertEqual(info[key] as? String, sourceInfo[key] as? String, key)
        }
        let result = transcode([source, mapped, "--preset", "ultrafast", "--json"])
        XCTAssertEqual(result.code, 0, result.error)
        XCTAssertNil(try entry(mapped)?.first("mdcv"))
        let dropped = droppedItems(try summary(result.out))
        XCTAssertTrue(dropped.contains("sample entry box mdcv") && dropped.contains("sample entry box clli"), "\(dropped)")
    }

    /// Refusals, each with its sysexits code and before anything is written.
    func testBadInputsAreRefusedWithTheirExitCodes() throws {
        let folder = TemporaryFolder()
        // No video: the AVAssetWriter APAC file and a synthetic audio-only movie.
        let apac = try RealFixtures.require(RealFixtures.avAssetWriter)
        for source in [apac, try writeVariant("audio-only", in: folder)] {
            let output = folder.path("none-" + (source as NSString).lastPathComponent)
            let result = transcode([source, output])
            XCTAssertEqual(result.code, 65, result.error)
            XCTAssertTrue(result.error.contains("nothing to transcode"), result.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        }
        // A codec the decoder lacks (MPEG-4 Part 2), named.
        let mpeg4 = folder.path("mpeg4.mp4")
        guard runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=1", "-c:v", "mpeg4", mpeg4])?.code == 0 else {
            throw unavailable("ffmpeg is needed")
        }
        let lacking = transcode([mpeg4, folder.path("out.mp4")])
        XCTAssertEqual(lacking.code, 65, lacking.error)
        XCTAssertTrue(lacking.error.contains("mp4v"), lacking.error)
        // Encrypted (CENC), by ffmpeg's muxer.
        let encrypted = folder.path("cenc.mp4")
        guard runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=1", "-c:v", "libx264", "-encryption_scheme", "cenc-aes-ctr",
                                 "-encryption_key", "76a6c65c5ea762046bd749a2e632ccbb", "-encryption_kid", "a7e61c373e219033c21091fa607bf3b8", encrypted])?.code == 0 else {
            throw unavailable("ffmpeg with CENC encryption is needed")
        }
        let locked = transcode([encrypted, folder.path("out.mp4")])
        XCTAssertEqual(locked.code, 65, locked.error)
        XCTAssertTrue(locked.error.contains("encrypted"), locked.error)
        // An existing output without --force: 73, the file untouched.
        let clip = try PersonDetectorTests.footage("talking_head_720p.mp4")
        let existing = folder.path("existing.mp4")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let exists = transcode([clip, existing, "--preset", "ultrafast"])
        XCTAssertEqual(exists.code, 73, exists.error)
        XCTAssertEqual(try fileBytes(existing), Data("keep me".utf8))
        // HDR kept in 8 bits: a usage error naming the ways out.
        let hlg = try makeHDRSource(transfer: "arib-std-b67", in: folder)
        let eightBit = transcode([hlg, folder.path("hlg.mov"), "--hdr", "keep"])
        XCTAssertEqual(eightBit.code, 64, eightBit.error)
        XCTAssertTrue(eightBit.error.contains("--video hevc"), eightBit.error)
        // The container follows the source: an .mp4 name for a QuickTime source is a usage error.
        XCTAssertEqual(transcode([hlg, folder.path("hlg.mp4")]).code, 64)
    }

    /// Folder mode over a tree of two clips and a broken file: one bad file never stops the run (its row says why,
    /// exit 65), outputs mirror the tree; a rerun skips what exists; two shards take every file exactly once.
    func testFolderRunMirrorsTheTreeSkipsWhatExistsAndShardsStably() throws {
        let folder = TemporaryFolder()
        let inputs = folder.path("in")
        try FileManager.default.createDirectory(atPath: inputs + "/sub", withIntermediateDirectories: true)
        for name in ["a.mp4", "sub/b.mp4"] {
            guard runTool("ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=1", "-f", "lavfi", "-i", "sine=d=1",
                                     "-c:v", "libx264", "-c:a", "aac", inputs + "/" + name])?.code == 0 else { throw unavailable("ffmpeg is needed") }
        }
        try Data("not a movie".utf8).write(to: URL(fileURLWithPath: inputs + "/sub/broken.mp4"))
        func rows(_ report: String) throws -> [String: String] {
            let document = try XCTUnwrap(JSONSerialization.jsonObject(with: try fileBytes(report)) as? [String: Any])
            let rows = try XCTUnwrap(document["rows"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: rows.map { row in
                (((row["path"] as? String ?? "") as NSString).lastPathComponent, row["action"] as? String ?? "")
            })
        }
        let out = folder.path("out")
        let first = transcode([inputs, "--out-dir", out, "--recursive", "-j", "2", "--preset", "ultrafast", "--report", folder.path("first.json")])
        XCTAssertEqual(first.code, 65, first.error)
        XCTAssertEqual(try rows(folder.path("first.json")), ["a.mp4": "transcoded", "b.mp4": "transcoded", "broken.mp4": "transcode"])
        try assertOnlyVideoChanged(inputs + "/a.mp4", out + "/a.mp4")
        try assertOnlyVideoChanged(inputs + "/sub/b.mp4", out + "/sub/b.mp4")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/sub/broken.mp4"))

        let again = transcode([inputs, "--out-dir", out, "--recursive", "--preset", "ultrafast", "--report", folder.path("again.json")])
        XCTAssertEqual(again.code, 65, again.error)
        XCTAssertEqual(try rows(folder.path("again.json")), ["a.mp4": "skipped", "b.mp4": "skipped", "broken.mp4": "transcode"])

        var shared: [String] = []
        for shard in ["1/2", "2/2"] {
            let report = folder.path("shard-\(shard.prefix(1)).json")
            _ = transcode([inputs, "--out-dir", folder.path("sharded"), "--recursive", "--shard", shard, "--preset", "ultrafast", "--report", report])
            shared += try rows(report).keys
        }
        XCTAssertEqual(shared.sorted(), ["a.mp4", "b.mp4", "broken.mp4"], "each file in exactly one shard")
        XCTAssertEqual(transcode([inputs, "--out-dir", out, "--shard", "3/2"]).code, 64)
    }

    /// kill -9 in the middle of a transcode leaves neither the output nor a temporary file beside it.
    func testKillDuringTranscodeLeavesNothing() throws {
        let source = try RealFixtures.require(RealFixtures.iphone)
        let executable = InstallTests.checkout.path + "/.build/debug/keeptrack-media"
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw unavailable("no .build/debug/keeptrack-media: run swift build first") }
        let folder = TemporaryFolder()
        let output = folder.path("killed.mov")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["transcode", source, output, "--preset", "veryslow"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertTrue(process.isRunning, "the transcode ended before it could be killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path), [])
    }

    func testFitKeepsTheAspectInEvenSizesAndNeverUpscales() {
        XCTAssertEqual(Transcoder.fit(PixelSize(width: 1920, height: 1080), inside: PixelSize(width: 1280, height: 1280)), PixelSize(width: 1280, height: 720))
        XCTAssertEqual(Transcoder.fit(PixelSize(width: 1920, height: 1080), inside: PixelSize(width: 1000, height: 300)), PixelSize(width: 532, height: 300))
        XCTAssertEqual(Transcoder.fit(PixelSize(width: 640, height: 360), inside: PixelSize(width: 1920, height: 1080)), PixelSize(width: 640, height: 360))
        XCTAssertEqual(Transcoder.fit(PixelSize(width: 1080, height: 1920), inside: PixelSize(width: 501, height: 501)), PixelSize(width: 280, height: 500))
        XCTAssertEqual(Transcoder.fit(PixelSize(width: 321, height: 241), inside: nil), PixelSize(width: 320, height: 240), "4:2:0 needs even sizes")
    }
}

/// Shared with StereoTranscodeTests: what every transcode promises about the tracks it does not re-encode.
extension XCTestCase {
    /// The promise, checked by ffprobe and by `keeptrack compare`: every stream but the re-encoded video has the
    /// same packets (times, sizes, flags, SHA-256 of the bytes); the video has as many frames at the same
    /// presentation times; the video track keeps its id, flags, group, matrix, `tapt` (scaled) and metadata;
    /// the movie's `udta`/`meta` are byte-identical; `lint` is clean.
    func assertOnlyVideoChanged(_ source: String, _ output: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try FFprobe.probe(source), after = try FFprobe.probe(output)
        let movie = try Movie.open(path: source), written = try Movie.open(path: output)
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video && $0.isEnabled }, file: file, line: line)
        XCTAssertEqual(written.tracks.map(\.id), movie.tracks.map(\.id), file: file, line: line)
        for stream in before.streams {
            let id = try XCTUnwrap(stream.trackID, file: file, line: line)
            let copy = try XCTUnwrap(after.stream(track: id), "track \(id) missing", file: file, line: line)
            if id == video.id {
                XCTAssertEqual(copy.packets.count, stream.packets.count, "video frame count", file: file, line: line)
                XCTAssertEqual(copy.timeBase, stream.timeBase, file: file, line: line)
                XCTAssertEqual(copy.packets.compactMap(\.pts).sorted(), stream.packets.compactMap(\.pts).sorted(), "video presentation times",
                               file: file, line: line)
            } else {
                XCTAssertFalse(stream.packets.isEmpty, file: file, line: line)
                if let difference = FFprobe.difference(stream, copy) { XCTFail("track \(id): \(difference)", file: file, line: line) }
            }
        }
        // keeptrack's own view: every track but the video identical in samples, flags, group, references and boxes.
        let compared = runCLI(["compare", "--json", source, output])
        XCTAssertEqual(compared.code, 1, "the video differs", file: file, line: line)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(compared.out.utf8)) as? [String: Any], file: file, line: line)
        let tracks = try XCTUnwrap(document["tracks"] as? [[String: Any]], file: file, line: line)
        XCTAssertEqual(tracks.count, movie.tracks.count, file: file, line: line)
        for track in tracks where track["id"] as? Int != Int(video.id) {
            XCTAssertEqual(track["a"] as? [String: String], track["b"] as? [String: String], "track \(track["id"] ?? "?")", file: file, line: line)
            XCTAssertEqual((track["differingBoxes"] as? [String]) ?? [], [], "track \(track["id"] ?? "?")", file: file, line: line)
        }
        let lint = runCLI(["lint", output])
        XCTAssertEqual(lint.code, 0, lint.out + lint.error, file: file, line: line)
        // The video track's place in the movie and its own metadata.
        let new = try XCTUnwrap(written.track(id: video.id), file: file, line: line)
        XCTAssertEqual(new.header.header.flags, video.header.header.flags, file: file, line: line)
        XCTAssertEqual(new.header.alternateGroup, video.header.alternateGroup, file: file, line: line)
        XCTAssertEqual(new.header.matrix, video.header.matrix, "rotation stays a matrix", file: file, line: line)
        XCTAssertEqual(new.references.map(\.type), video.references.map(\.type), file: file, line: line)
        for type: FourCC in ["meta", "udta"] {
            XCTAssertEqual(try new.box.first(type)?.serialized(), try video.box.first(type)?.serialized(), "trak/\(type)", file: file, line: line)
            XCTAssertEqual(try written.moov.first(type)?.serialized(), try movie.moov.first(type)?.serialized(), "moov/\(type)", file: file, line: line)
        }
        XCTAssertEqual(new.box.first("tapt") != nil, video.box.first("tapt") != nil, "tapt kept", file: file, line: line)
    }
}
