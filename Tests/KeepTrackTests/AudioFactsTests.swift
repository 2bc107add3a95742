import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Channels and sample rate come from the codec configuration (dac3, dec3, dmlp, alac, dOps, dfLa,
/// dac4; AMR by its specification), not from the sample entry's placeholder fields. ffprobe is the
/// independent client: what it reports for each file is what inspect must report.
final class AudioFactsTests: XCTestCase {
    static func wild(_ name: String) throws -> String {
        try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/" + name).path)
    }

    /// ffprobe's channels and sample rate of the first audio stream.
    static func probedAudio(_ path: String) throws -> (channels: Int, sampleRate: Int) {
        guard let result = runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channels,sample_rate",
                                               "-of", "default=noprint_wrappers=1", path]) else { throw unavailable("ffprobe not installed") }
        XCTAssertEqual(result.code, 0, "ffprobe failed on \(path)")
        var values: [String: Int] = [:]
        for line in result.out.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = Int(parts[1]) }
        }
        return (try XCTUnwrap(values["channels"], path), try XCTUnwrap(values["sample_rate"], path))
    }

    /// Half a second of tone that ffmpeg encodes with `codec`; ffprobe must read back the channels asked for.
    static func writeTone(_ path: String, codec: String, channels: Int, rate: Int) throws -> String {
        guard let result = runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5:sample_rate=\(rate)",
                                              "-ac", String(channels), "-c:a", codec, "-strict", "-2", path]) else {
            throw unavailable("ffmpeg not installed")
        }
        XCTAssertEqual(result.code, 0, "ffmpeg could not write \(path): \(result.out)")
        XCTAssertEqual(try probedAudio(path).channels, channels, path)
        return path
    }

    func assertAgreesWithFFprobe(_ path: String, placeholderDiffers: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let movie = try Movie.open(path: path)
        let track = try XCTUnwrap(movie.tracks.first { $0.kind == .audio }, path, file: file, line: line)
        let audio = try XCTUnwrap(track.audio, path, file: file, line: line)
        let probed = try Self.probedAudio(path)
        XCTAssertEqual(audio.channels, probed.channels, "\(path): channels", file: file, line: line)
        XCTAssertEqual(audio.sampleRate, Double(probed.sampleRate), "\(path): sample rate", file: file, line: line)
        if placeholderDiffers, let entry = track.audioEntry {
            // The entry's own fields say something else: the fact came from the configuration.
            XCTAssertTrue(entry.effectiveChannels != probed.channels || entry.effectiveSampleRate != Double(probed.sampleRate),
                          "\(path): the sample entry already says \(entry.effectiveChannels) ch \(entry.effectiveSampleRate) Hz", file: file, line: line)
        }
    }

    func testWildFilesAgreeWithFFprobe() throws {
        // (file, whether the sample entry's placeholder differs from the truth)
        let files: [(String, Bool)] = [
            ("androidx-media/sample_ac3.mp4", true),           // dac3: 3/2 + LFE; entry says 2
            ("androidx-media/sample_ac3_fragmented.mp4", true),
            ("androidx-media/sample_eac3.mp4", true),          // dec3: 6; entry says 2
            ("androidx-media/sample_dthd.mp4", true),          // dmlp: TrueHD 7.1; entry says 2 ch, 0 Hz
            ("androidx-media/sample_alac_20bit.mp4", true),    // alac cookie: mono; entry says 2
            ("androidx-media/bbb_mono_8kHz_12.2kbps_amrnb.3gp", true), // AMR-NB is mono; entry says 2
            ("mozilla-mp4parse-rust/amr_nb_1f.3gp", true),
            ("androidx-media/sample_opus_fragmented.mp4", true), // dOps: decoded at 48 kHz; entry says 16000
            ("androidx-media/sample_ac4_fragmented.mp4", false), // dac4: stereo presentation, 48 kHz
        ]
        for (name, placeholderDiffers) in files {
            try assertAgreesWithFFprobe(Self.wild(name), placeholderDiffers: placeholderDiffers)
        }
    }

    /// Files ffmpeg writes with layouts the entry cannot hold (96 kHz does not fit a 16.16 rate,
    /// 3, 4, 5 and 6 channels where ISO entries say 2).
    func testFFmpegWrittenCodecsAgreeWithFFprobe() throws {
        let folder = TemporaryFolder()
        let cases: [(codec: String, channels: Int, rate: Int, name: String)] = [
            ("flac", 3, 96000, "flac.mp4"), ("libopus", 6, 48000, "opus.mp4"), ("alac", 3, 32000, "alac.m4a"),
            ("ac3", 5, 44100, "ac3.mp4"), ("eac3", 4, 32000, "eac3.mp4"), ("truehd", 6, 48000, "truehd.mp4"),
            // QuickTime keeps the configuration inside the entry's `wave`.
            ("alac", 3, 32000, "alac.mov"), ("ac3", 6, 48000, "ac3.mov"),
        ]
        for item in cases {
            let path = try Self.writeTone(folder.path(item.name), codec: item.codec, channels: item.channels, rate: item.rate)
            try assertAgreesWithFFprobe(path, placeholderDiffers: false)
            let track = try XCTUnwrap(Movie.open(path: path).tracks.first)
            XCTAssertNotNil(track.audioCodecConfiguration, "\(item.name): the configuration box was not found")
        }
    }

    /// VLC 3.0's mp4/mov muxer writes a `dac3` that is not the stream's (OtherMuxerFlavourTests: `ba 0e 05`,
    /// 32 kHz 3/0 with bsid 29, over 48 kHz mono) and a `dec3` of zeros (48 kHz 1+1). Decoders, ffprobe
    /// and mediainfo read the frames; so must inspect. ffmpeg's files get VLC's bytes in place of theirs.
    func testDolbyFramesWinOverADisagreeingConfiguration() throws {
        let folder = TemporaryFolder()
        let cases: [(codec: String, channels: Int, rate: Int, name: String, box: String, bytes: [UInt8])] = [
            ("ac3", 1, 48000, "mono.mp4", "dac3", [0xBA, 0x0E, 0x05]), ("ac3", 6, 44100, "surround.mp4", "dac3", [0xBA, 0x0E, 0x05]),
            ("ac3", 2, 48000, "stereo.mov", "dac3", [0xBA, 0x0E, 0x05]),
            ("eac3", 2, 44100, "eac3.mp4", "dec3", [0, 0, 0, 0, 0]), ("eac3", 6, 32000, "eac3-surround.mp4", "dec3", [0, 0, 0, 0, 0]),
        ]
        for item in cases {
            let path = try Self.writeTone(folder.path(item.name), codec: item.codec, channels: item.channels, rate: item.rate)
            var bytes = try fileBytes(path)
            let box = try XCTUnwrap(bytes.range(of: Data(item.box.utf8))).upperBound
            bytes.replaceSubrange(box..<box + item.bytes.count, with: item.bytes)
            try bytes.write(to: URL(fileURLWithPath: path))
            let configured = try XCTUnwrap(Movie.open(path: path).tracks.first?.audioCodecConfiguration)
            XCTAssertFalse(configured.channels == item.channels && configured.sampleRate == item.rate, "\(item.name): the patched box still agrees")
            try assertAgreesWithFFprobe(path, placeholderDiffers: false)
        }
        // A dec3 that agrees with the first frame is kept: only it counts dependent substreams' channels.
        let eac3 = try XCTUnwrap(Movie.open(path: try Self.wild("androidx-media/sample_eac3.mp4")).tracks.first { $0.format == "ec-3" })
        XCTAssertEqual(eac3.frameHeaderFacts, AudioFrameFacts(channels: 6, sampleRate: 48000))
    }

    /// Not every `mp4a` is AAC: its esds object type says MP3 (0x6B, 0x69), Vorbis (0xDD) or DTS
    /// (0xA9), whose channels and rate live in the frame header or the Vorbis identification
    /// header, not in an AudioSpecificConfig, while ffmpeg writes 2 channels in the entry. ffprobe
    /// (which decodes the stream) is the independent account of the truth.
    func testNonAACObjectTypesNameTheirCodecAndTakeFactsFromTheStream() throws {
        let folder = TemporaryFolder()
        let cases: [(codec: String, channels: Int, rate: Int, name: String, codecName: String)] = [
            ("libmp3lame", 1, 48000, "mp3-mono.mp4", "MPEG-1 audio (MP3)"),
            ("libmp3lame", 1, 22050, "mp3-mono-22k.mp4", "MPEG-2 audio (MP3)"),
            ("libmp3lame", 2, 44100, "mp3-stereo.mp4", "MPEG-1 audio (MP3)"),
            ("mp2", 1, 44100, "mp2-mono.mp4", "MPEG-1 audio (MP3)"),
            ("libvorbis", 1, 44100, "vorbis-mono.mp4", "Vorbis"),
            ("libvorbis", 3, 32000, "vorbis-3ch.mp4", "Vorbis"),
            ("dca", 1, 48000, "dts-mono.mp4", "DTS"),
            ("libmp3lame", 1, 22050, "mp3-mono.mov", "MP3"), // QuickTime's `.mp3` entry
        ]
        for item in cases {
            let path = try Self.writeTone(folder.path(item.name), codec: item.codec, channels: item.channels, rate: item.rate)
            try assertAgreesWithFFprobe(path, placeholderDiffers: item.name.hasSuffix(".mp4") && item.channels != 2)
            let track = try XCTUnwrap(Movie.open(path: path).tracks.first)
            XCTAssertEqual(track.codecName, item.codecName, item.name)
            XCTAssertNil(track.audioSpecificConfig, "\(item.name): a non-AAC DecoderSpecificInfo read as an AudioSpecificConfig")
        }
    }

    func testFrameHeadersGiveChannelsAndRate() {
        // MPEG-1 layer III, 128 kb/s, 44.1 kHz, single channel; then joint stereo at 48 kHz.
        XCTAssertEqual(AudioFrameFacts.fromFrameHeader([0xFF, 0xFB, 0x90, 0xC4], codec: .mpegAudio), AudioFrameFacts(channels: 1, sampleRate: 44100))
        XCTAssertEqual(AudioFrameFacts.fromFrameHeader([0xFF, 0xFB, 0x94, 0x44], codec: .mpegAudio), AudioFrameFacts(channels: 2, sampleRate: 48000))
        // MPEG-2.5 at 8 kHz; the reserved version and frequency index, and a missing sync, say nothing.
        XCTAssertEqual(AudioFrameFacts.fromFrameHeader([0xFF, 0xE3, 0x08, 0xC0], codec: .mpegAudio), AudioFrameFacts(channels: 1, sampleRate: 8000))
        XCTAssertNil(AudioFrameFacts.fromFrameHeader([0xFF, 0xEB, 0x90, 0xC4], codec: .mpegAudio))
        XCTAssertNil(AudioFrameFacts.fromFrameHeader([0xFF, 0xFB, 0x9C, 0xC4], codec: .mpegAudio))
        XCTAssertNil(AudioFrameFacts.fromFrameHeader([0x00, 0xFB, 0x90, 0xC4], codec: .mpegAudio))
        XCTAssertNil(AudioFrameFacts.fromFrameHeader([0xFF, 0xFB], codec: .mpegAudio))
        // DTS core headers as ffmpeg's encoder writes them: mono (AMODE 0) and stereo (AMODE 2), 48 kHz, no LFE;
        // then the stereo one with LFF = 2 (an LFE channel).
        let mono: [UInt8] = [0x7F, 0xFE, 0x80, 0x01, 0xFC, 0x3C, 0x75, 0xB0, 0x36, 0xC0, 0x01, 0x38]
        let stereo: [UInt8] = [0x7F, 0xFE, 0x80, 0x01, 0xFC, 0x3C, 0x75, 0xB0, 0xB6, 0xC0, 0x01, 0x38]
        XCTAssertEqual(AudioFrameFacts.fromFrameHeader(mono, codec: .dts), AudioFrameFacts(channels: 1, sampleRate: 48000))
        XCTAssertEqual(AudioFrameFacts.fromFrameHeader(stereo, codec: .dts), AudioFrameFacts(channels: 2, sampleRate: 48000))
        var withLFE = stereo
        withLFE[10] = 0x05
        XCTAssertEqual(AudioFrameFacts.fromFrameHeader(withLFE, codec: .dts), AudioFrameFacts(channels: 3, sampleRate: 48000))
        XCTAssertNil(AudioFrameFacts.fromFrameHeader([0x7F, 0xFE, 0x80, 0x01], codec: .dts))
        XCTAssertNil(AudioFrameFacts.vorbisIdentification([0x01, 0x76, 0x6F, 0x72]))
    }

    /// Protected entries (`encv`, `enca`) name the codec of `sinf/frma` and the `schm` scheme, as
    /// ffprobe names the codec; their audio facts still come from the configuration inside.
    func testProtectedEntriesNameTheOriginalCodec() throws {
        let names = ["h264": "H.264", "aac": "AAC"]
        for (file, scheme) in [("eyevinn-mp4ff/cbcs.mp4", "cbcs"), ("eyevinn-mp4ff/init.mp4", "cenc"), ("mozilla-mp4parse-rust/short-cenc.mp4", "cenc")] {
            let path = try Self.wild(file)
            let movie = try Movie.open(path: path)
            let probed = try FFprobe.probe(path, packets: false)
            for track in movie.tracks where track.protection != nil {
                let stream = try XCTUnwrap(probed.stream(track: track.id), "\(file) track \(track.id)")
                let name = try XCTUnwrap(track.codecName)
                let base = try XCTUnwrap(names[stream.codecName], "\(file): ffprobe says \(stream.codecName)")
                XCTAssertTrue(name.hasPrefix(base) && name.hasSuffix("(encrypted, \(scheme))"), "\(file) track \(track.id): \(name)")
                if track.kind == .audio {
                    XCTAssertEqual(track.audio?.channels, stream.channels, file)
                    XCTAssertEqual(track.audio?.sampleRate, stream.sampleRate.map(Double.init), file)
                }
            }
        }
    }

    // MARK: Bit fields the wild files do not exercise

    /// MSB-first bit packing for hand-made configuration boxes.
    struct Bits {
        var bytes: [UInt8] = []
        var count = 0
        mutating func put(_ value: Int, _ width: Int) {
            for bit in stride(from: width - 1, through: 0, by: -1) {
                if count % 8 == 0 { bytes.append(0) }
                if value >> bit & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(count % 8) }
                count += 1
            }
        }
    }

    /// One dec3 independent substream record (ETSI TS 102 366 F.6).
    static func dec3Substream(_ bits: inout Bits, acmod: Int, lfe: Bool, dependents: Int = 0, chanLoc: Int = 0) {
        bits.put(0, 2); bits.put(16, 5); bits.put(0, 1); bits.put(0, 1); bits.put(0, 3) // fscod, bsid, reserved, asvc, bsmod
        bits.put(acmod, 3); bits.put(lfe ? 1 : 0, 1); bits.put(0, 3); bits.put(dependents, 4)
        if dependents > 0 { bits.put(chanLoc, 9) } else { bits.put(0, 1) }
    }

    func testEAC3DependentSubstreamsAddTheirChannelLocations() throws {
        // 5.1 plus a dependent substream carrying Lrs/Rrs: 7.1.
        var bits = Bits()
        bits.put(1536, 13); bits.put(0, 3)
        Self.dec3Substream(&bits, acmod: 7, lfe: true, dependents: 1, chanLoc: 0x002)
        var box = try EAC3SpecificBox(decoding: bits.bytes)
        XCTAssertEqual(box.channels, 8)
        XCTAssertEqual(try box.encoded(), bits.bytes)
        // Every chan_loc bit: the five pairs count 2, Cs, Ts, Cvh and LFE2 one each; 3/2 + LFE + 14 = 20.
        bits = Bits()
        bits.put(1536, 13); bits.put(0, 3)
        Self.dec3Substream(&bits, acmod: 7, lfe: true, dependents: 2, chanLoc: 0x1FF)
        box = try EAC3SpecificBox(decoding: bits.bytes)
        XCTAssertEqual(box.channels, 6 + 5 * 2 + 4)
        XCTAssertEqual(try box.encoded(), bits.bytes)
        // Two independent substreams (two programs): a decoder plays the first, stereo here.
        bits = Bits()
        bits.put(640, 13); bits.put(1, 3)
        Self.dec3Substream(&bits, acmod: 2, lfe: false)
        Self.dec3Substream(&bits, acmod: 7, lfe: true)
        box = try EAC3SpecificBox(decoding: bits.bytes)
        XCTAssertEqual(box.substreams.count, 2)
        XCTAssertEqual(box.channels, 2)
        XCTAssertTrue(box.annotationLines.contains("independent substreams: 2"))
    }

    func testConfigurationBoxesCheckTheirSizesBeforeReading() throws {
        // dec3 claiming 8 independent substreams with bytes for one: malformed, naming the box and offset.
        var bits = Bits()
        bits.put(1536, 13); bits.put(7, 3)
        Self.dec3Substream(&bits, acmod: 7, lfe: true)
        XCTAssertThrowsError(try EAC3SpecificBox(decoding: bits.bytes, baseOffset: 500, path: "moov/trak/mdia/minf/stbl/stsd/ec-3/dec3")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("dec3") && text.contains("claims 8 substreams"), text)
        }
        XCTAssertThrowsError(try AC3SpecificBox(decoding: [0x0C, 0x3D]))
        XCTAssertThrowsError(try ALACSpecificBox(decoding: [0, 0, 0, 0, 0, 0, 0x10, 0]))
        XCTAssertThrowsError(try OpusSpecificBox(decoding: [0, 6, 0, 0, 0, 0, 0xBB, 0x80, 0, 0, 1, 4, 2, 0, 1])) // mapping table cut short
        XCTAssertThrowsError(try FLACSpecificBox(decoding: [0, 0, 0, 0, 0x80, 0, 0, 34, 0x10, 0]))
        // A dac4 cut after its fixed start: the channels are unknown, never a trap.
        let dac4 = try AC4SpecificBox(decoding: [0x20, 0xA4, 0x02])
        XCTAssertEqual(dac4.sampleRate, 48000)
        XCTAssertNil(dac4.channels)
    }

    func testDolbyTrueHDWithoutAnEightChannelPresentationUsesTheSixChannelOne() throws {
        // 44.1 kHz (code 8); 6-channel assignment L/R, C, LFE, Ls/Rs (0x0F); no 8-channel assignment.
        var bits = Bits()
        bits.put(8, 4); bits.put(0, 4); bits.put(0, 2); bits.put(0, 2); bits.put(0x0F, 5); bits.put(0, 2); bits.put(0, 13)
        bits.put(0, 16); bits.put(0, 32)
        let box = try MLPSpecificBox(decoding: bits.bytes)
        XCTAssertEqual(box.channels, 6)
        XCTAssertEqual(box.sampleRate, 44100)
    }

    func testAC3CodingModes() throws {
        // acmod 1/0 without LFE at 32 kHz: mono; acmod 2/2 with LFE: 5.
        for (fscod, acmod, lfe, channels, rate) in [(2, 1, 0, 1, 32000), (1, 6, 1, 5, 44100), (0, 0, 0, 2, 48000)] {
            var bits = Bits()
            bits.put(fscod, 2); bits.put(8, 5); bits.put(0, 3); bits.put(acmod, 3); bits.put(lfe, 1); bits.put(10, 5); bits.put(0, 5)
            let box = try AC3SpecificBox(decoding: bits.bytes)
            XCTAssertEqual(box.channels, channels, "acmod \(acmod)")
            XCTAssertEqual(box.sampleRate, rate)
        }
    }

    /// AMR-WB (`sawb`) is mono at 16 kHz: the AMR-NB wild file with its format renamed.
    func testAMRWideBandIsMonoAt16kHz() throws {
        let original = try [UInt8](fileBytes(Self.wild("mozilla-mp4parse-rust/amr_nb_1f.3gp")))
        var movie = try MovieBytes(bytes: original)
        let entry = try movie.box("moov/trak/mdia/minf/stbl/stsd/samr")
        movie.setUInt(UInt64(FourCC("sawb").rawValue), at: entry.offset + 4, width: 4)
        let folder = TemporaryFolder()
        let track = try XCTUnwrap(Movie.open(path: movie.write(to: folder.path("wb.3gp"))).tracks.first)
        XCTAssertEqual(track.codecName, "AMR-WB")
        XCTAssertEqual(track.audio?.channels, 1)
        XCTAssertEqual(track.audio?.sampleRate, 16000)
    }

    func testInspectAndDumpShowTheDecodedConfiguration() throws {
        let ac3 = try Self.wild("androidx-media/sample_ac3.mp4")
        let inspect = runCLI(["inspect", ac3])
        XCTAssertEqual(inspect.code, 0)
        XCTAssertTrue(inspect.out.contains("6 ch, 48000 Hz"), inspect.out)
        let dump = runCLI(["dump", ac3])
        XCTAssertEqual(dump.code, 0)
        for line in ["acmod: 7 (3/2)", "lfeon: 1", "channels: 6"] { XCTAssertTrue(dump.out.contains(line), "dump lacks \(line)") }
        let thd = runCLI(["dump", try Self.wild("androidx-media/sample_dthd.mp4")]).out
        XCTAssertTrue(thd.contains("8-channel presentation: 0x4f (8 channels)"), thd)
        let alac = runCLI(["dump", try Self.wild("androidx-media/sample_alac_20bit.mp4")]).out
        XCTAssertTrue(alac.contains("numChannels: 1") && alac.contains("bitDepth: 20"), alac)
    }

    /// The new views decode and re-encode every configuration box of the wild files byte for byte.
    func testWildConfigurationBoxesRoundTrip() throws {
        for name in ["androidx-media/sample_ac3.mp4", "androidx-media/sample_eac3.mp4", "androidx-media/sample_dthd.mp4",
                     "androidx-media/sample_alac_20bit.mp4", "androidx-media/bbb_mono_8kHz_12.2kbps_amrnb.3gp",
                     "androidx-media/sample_opus_fragmented.mp4", "androidx-media/sample_ac4_fragmented.mp4"] {
            let movie = try Movie.open(path: Self.wild(name))
            let entry = try XCTUnwrap(movie.tracks.first?.sampleEntries.first, name)
            var checked = 0
            for child in entry.children {
                guard let view = BoxRegistry.view(for: child.type, parent: entry.type), case .bytes(let payload) = child.content else { continue }
                XCTAssertEqual(try view.init(box: child, path: "").encoded(), payload, "\(name): \(child.type)")
                checked += 1
            }
            XCTAssertEqual(checked, 1, "\(name): one configuration box")
        }
    }
}

/// Video entries whose codec is named by their `esds` object type or by a fourcc ffmpeg writes:
/// inspect names what ffprobe decodes, never "?".
final class VideoCodecNameTests: XCTestCase {
    func testFFmpegWrittenVideoCodecsAreNamedAsFFprobeDecodesThem() throws {
        let folder = TemporaryFolder()
        // (encoder, file, ffprobe's codec, our name)
        let cases: [(String, String, String, String)] = [
            ("mpeg4", "mpeg4.mp4", "mpeg4", "MPEG-4 Visual"), ("mpeg2video", "mpeg2.mp4", "mpeg2video", "MPEG-2 video"),
            ("mpeg1video", "mpeg1.mp4", "mpeg1video", "MPEG-1 video"), ("mjpeg", "mjpeg.mp4", "mjpeg", "JPEG"),
            ("h263", "h263.3gp", "h263", "H.263"), ("png", "png.mov", "png", "PNG"),
        ]
        for (encoder, name, probedCodec, ourName) in cases {
            let path = folder.path(name)
            guard let made = runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=352x288:rate=25:duration=0.2",
                                                "-c:v", encoder, path]) else { throw unavailable("ffmpeg not installed") }
            XCTAssertEqual(made.code, 0, "\(name): \(made.out)")
            let probed = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name",
                                                           "-of", "csv=p=0", path]))
            // ffprobe appends side data (MPEG-2's CPB properties) after a comma.
            XCTAssertEqual(probed.out.split(whereSeparator: { $0 == "," || $0 == "\n" }).first.map(String.init), probedCodec, name)
            let track = try XCTUnwrap(Movie.open(path: path).tracks.first { $0.kind == .video }, name)
            XCTAssertEqual(track.codecName, ourName, name)
        }
    }
}
