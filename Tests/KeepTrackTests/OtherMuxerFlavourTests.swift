import Foundation
import XCTest

/// Files written by muxers with their own MP4/QuickTime writer (not libavformat's, not GStreamer's;
/// MuxerFlavourTests has those), made at run time and put through every command with the wild-corpus
/// checks (WildCorpusTests.check): VLC 3.0's mp4/mov/mp4frag stream output and libquicktime 1.2.
final class OtherMuxerFlavourTests: XCTestCase {
    /// ffmpeg makes the sources: `seconds` of 160x120 H.264 with B-frames at 25 fps and a 48 kHz AAC
    /// sine; `twoAudio` adds a 44.1 kHz one, both marked default (ffmpeg leaves the second disabled
    /// otherwise, and VLC's mp4 demuxer drops a disabled track without a word).
    static func source(_ path: String, seconds: Int, twoAudio: Bool = false, pcm: Bool = false) throws {
        var arguments = ["-v", "error", "-nostdin", "-y",
                         "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=\(seconds)",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                         "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=\(seconds)",
                         "-map", "0:v", "-map", "1:a"] + (twoAudio ? ["-map", "2:a"] : [])
        arguments += pcm ? ["-c:v", "mjpeg", "-c:a", "pcm_s16le"] : ["-c:v", "libx264", "-bf", "2", "-g", "12", "-c:a", "aac"]
        if twoAudio { arguments += ["-disposition:a:0", "default", "-disposition:a:1", "default"] }
        let result = try XCTUnwrap(runTool("ffmpeg", arguments + [path]), "ffmpeg is installed by scripts/setup.sh")
        XCTAssertEqual(result.code, 0, "ffmpeg \(path)")
    }

    // MARK: - VLC

    /// VLC refuses to start as root (CI is root), libvlc does not: python3-vlc drives the stream
    /// output. Arguments: source, `--sout` chain, then libvlc options. Exit 0 when playback ended.
    static let vlc = """
    import sys, time, vlc
    source, chain, options = sys.argv[1], sys.argv[2], sys.argv[3:]
    instance = vlc.Instance(["--quiet", "--no-video-title-show"] + options)
    media = instance.media_new_path(source)
    media.add_option(":sout=" + chain)
    media.add_option(":sout-all")
    player = instance.media_player_new()
    player.set_media(media)
    player.play()
    deadline = time.time() + 60
    while time.time() < deadline and player.get_state() not in (vlc.State.Ended, vlc.State.Error):
        time.sleep(0.05)
    state = player.get_state()
    player.stop()
    sys.exit(0 if state == vlc.State.Ended else 1)
    """

    /// name → (source, `--sout` chain, libvlc options). What VLC 3.0.24 writes that other muxers do not:
    /// - `mux=mp4`: fast start by default (moov rewritten before mdat, a `wide` box between), every
    ///   AAC `stts` delta from its microsecond clock (1023, 1024, 1025 in turn: 40 entries for 40
    ///   packets), one- to three-sample chunks, `udta/©req`+`©enc`, the last packets of each track
    ///   dropped (24 of 25 frames, 40 of 48 AAC packets), every track enabled and in no group.
    /// - `mux=mov`: no `ftyp` at all, audio track first, tkhd flags 0xF, `mhlr` handlers with Pascal names.
    /// - `mux=mp4frag`: `tfhd` without base offset or default-base-is-moof, the video `trun` without a
    ///   data offset (its data follows the audio run), empty moov tables, an `mfra`; the last fragment
    ///   never written (63 of 100 frames of a 4 s source). On a 1 s source: one sample of the first
    ///   track, an empty `traf` (no `trun`) for the other, whose edit list holds an empty edit of
    ///   about 45000 s (0xFB1F82C1 ticks). Which track comes first varies from run to run; as the
    ///   audio, its one sample has a duration only in `tfhd` and ffprobe gives it none
    ///   (WildCorpusTests.fragmentedDurationVerdict falls back to mediainfo).
    /// - From Matroska with SRT subtitles: a QuickTime `text` track (also in `.mp4`) behind an empty
    ///   edit, its last sample 0 ticks long (ffprobe lists 1 packet of its 2 samples).
    /// - HEVC and AC-3: `hvc1` becomes `hev1`, and the `dac3` is not the stream's (`ba 0e 05`: 32 kHz
    ///   3/0, bsid 29, over 48 kHz mono; inspect said 2 ch 32000 Hz before 331d1a0). E-AC-3 gets a
    ///   `dec3` of zeros (inspect said 48000 Hz over 44.1 kHz before 1b66887); MP3 in `.mov` a `.mp3` entry.
    /// - The iPhone 16 Pro recording remuxed: `hvc1` becomes `hev1`, the APAC and `mebx` tracks, the
    ///   rotation, `colr` and `dvvC` are gone (68 of 69 frames kept); keeptrack reads what is left.
    static func vlcFlavours(_ folder: TemporaryFolder, iphone: String) -> [String: (source: String, chain: String, options: [String])] {
        func std(_ mux: String, _ name: String) -> String { "std{access=file,mux=\(mux),dst=\(folder.path(name))}" }
        let one = folder.path("one.mp4"), two = folder.path("two-audio.mp4"), four = folder.path("four.mp4")
        let subtitled = folder.path("subtitled.mkv"), ac3 = folder.path("hevc-ac3.mp4"), eac3 = folder.path("eac3.mp4"), mp3 = folder.path("mp3.mp4")
        return [
            "vlc.mp4": (one, "#" + std("mp4", "vlc.mp4"), []),
            "vlc-no-faststart.mp4": (one, "#" + std("mp4", "vlc-no-faststart.mp4"), ["--no-sout-mp4-faststart"]),
            "vlc.mov": (one, "#" + std("mov", "vlc.mov"), []),
            "vlc-two-audio.mp4": (two, "#" + std("mp4", "vlc-two-audio.mp4"), []),
            "vlc-two-audio.mov": (two, "#" + std("mov", "vlc-two-audio.mov"), []),
            "vlc-frag.mp4": (four, "#" + std("mp4frag", "vlc-frag.mp4"), []),
            "vlc-frag-short.mp4": (one, "#" + std("mp4frag", "vlc-frag-short.mp4"), []),
            // VLC's own encoders: MPEG-4 Visual (mp4v) and AAC through its transcode chain.
            "vlc-subtitles.mp4": (subtitled, "#" + std("mp4", "vlc-subtitles.mp4"), []),
            "vlc-subtitles.mov": (subtitled, "#" + std("mov", "vlc-subtitles.mov"), []),
            "vlc-hevc-ac3.mp4": (ac3, "#" + std("mp4", "vlc-hevc-ac3.mp4"), []),
            "vlc-eac3.mp4": (eac3, "#" + std("mp4", "vlc-eac3.mp4"), []),
            "vlc-mp3.mov": (mp3, "#" + std("mov", "vlc-mp3.mov"), []),
            "vlc-iphone.mov": (iphone, "#" + std("mov", "vlc-iphone.mov"), []),
            "vlc-iphone.mp4": (iphone, "#" + std("mp4", "vlc-iphone.mp4"), []),
            "vlc-transcode.mp4": (one, "#transcode{vcodec=mp4v,vb=400,acodec=mp4a,ab=96}:" + std("mp4", "vlc-transcode.mp4"), []),
        ]
    }

    /// None today. mp4frag's edit list presents from media time 0 while every frame's composition offset is
    /// 2905 (32 ms): FFmpeg showed the copy's frames 32 ms early until DefragmentedTiming's rebuilt edits waited
    /// (an empty edit) until the first frame shown.
    static let vlcShownOtherwise: [String: String] = [:]

    func testFilesVLCWritesThroughEveryCommand() throws {
        let folder = TemporaryFolder()
        try Self.source(folder.path("one.mp4"), seconds: 1)
        try Self.source(folder.path("two-audio.mp4"), seconds: 1, twoAudio: true)
        try Self.source(folder.path("four.mp4"), seconds: 4)
        let srt = folder.path("subtitles.srt")
        try "1\n00:00:00,100 --> 00:00:00,600\nHello\n\n2\n00:00:00,700 --> 00:00:00,900\nWorld\n".write(toFile: srt, atomically: true, encoding: .utf8)
        let inputs = ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=1",
                      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1"]
        for arguments in [["-i", srt, "-map", "0:v", "-map", "1:a", "-map", "2", "-c:v", "libx264", "-c:a", "aac", "-c:s", "srt", folder.path("subtitled.mkv")],
                          ["-map", "0:v", "-map", "1:a", "-c:v", "libx265", "-x265-params", "log-level=none", "-tag:v", "hvc1", "-c:a", "ac3",
                           folder.path("hevc-ac3.mp4")],
                          ["-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-ar", "44100", "-ac", "2", "-c:a", "eac3", folder.path("eac3.mp4")],
                          ["-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-c:a", "libmp3lame", folder.path("mp3.mp4")]] {
            let result = try XCTUnwrap(runTool("ffmpeg", inputs + arguments))
            XCTAssertEqual(result.code, 0, "ffmpeg \(arguments.last ?? "")")
        }
        let needed = ["/usr/lib/python3/dist-packages/vlc.py", "/usr/lib/x86_64-linux-gnu/vlc/plugins/mux/libmux_mp4_plugin.so"]
        guard needed.allSatisfy(FileManager.default.fileExists(atPath:)) else {
            throw unavailable("python3-vlc and vlc-plugin-base are installed by scripts/setup.sh")
        }
        let flavours = Self.vlcFlavours(folder, iphone: try RealFixtures.require(RealFixtures.iphone))
        for (name, flavour) in flavours.sorted(by: { $0.key < $1.key }) {
            let result = try XCTUnwrap(runTool("timeout", ["90", "/usr/bin/python3", "-c", Self.vlc, flavour.source, flavour.chain] + flavour.options))
            XCTAssertEqual(result.code, 0, "VLC \(name): \(result.out)")
            let written = (try? FileManager.default.attributesOfItem(atPath: folder.path(name))[.size] as? Int) ?? 0
            XCTAssertGreaterThan(written, 1000, "VLC wrote \(name)")
        }
        let files = flavours.keys.sorted()
        WildCorpusTests.check(folder: folder.url.path, files: files,
                              mustSucceed: Dictionary(uniqueKeysWithValues: files.map { ($0, WildCorpusTests.allCommands) }),
                              knownSilentLoss: [:], name: "VLC flavours")
        WildShownFramesTests.checkRemux(folder: folder, files: files, known: Self.vlcShownOtherwise)
    }

    // MARK: - libquicktime

    /// name → the libquicktime tool and its arguments (quicktime-utils: lqt_transcode decodes and
    /// encodes through libquicktime's codecs, lqtremux copies compressed packets). The source is
    /// Motion-JPEG with 16-bit PCM in QuickTime. What libquicktime 1.2.4 writes that others do not:
    /// - `stsz` sample size 1 for uncompressed audio (`twos`, `sowt`), a sample being one frame: the
    ///   classic QuickTime convention (keeptrack read 1 byte per sample and copied half the audio
    ///   before d02a8be; UncompressedAudioSizeTests), two 24000-frame audio chunks.
    /// - moov after mdat, a second `hdlr` (`dhlr`/`alis`) in minf, `mhlr` handlers with Pascal names,
    ///   an empty `udta`, tkhd flags 0xF.
    ///   Version 1 sound descriptions (`in24`, `fl32`) give the frame size in bytesPerFrame; `lpcm`
    ///   (version 2) gets its true size in stsz.
    /// - `ima4` in the same convention: 1-tick, 1-byte samples are frames, 64 to a 34-byte packet.
    ///   keeptrack copies packets and cannot find them: refused (65) with that reason.
    /// - mp3 in `.mp4` (`-f mp4 -ac lame`): `stsc` counts PCM-like frames (51883 samples into 43
    ///   chunks) while `stsz` has 43 packets; ffmpeg warns "wrong sample count", keeptrack refuses (65).
    /// - `qtstreamize` moves the moov in front; `qtrechunk` makes a movie of JPEG files.
    static let libquicktime: [String: [String]] = [
        "lqt-qt.mov": ["lqt_transcode", "-f", "qt", "-ac", "sowt", "-vc", "x264"],
        "lqt-qtold.mov": ["lqt_transcode", "-f", "qtold"],
        "lqt-in24.mov": ["lqt_transcode", "-f", "qt", "-ac", "in24", "-vc", "png"],
        "lqt-fl32.mov": ["lqt_transcode", "-f", "qt", "-ac", "fl32", "-vc", "v210"],
        "lqt-lpcm.mov": ["lqt_transcode", "-f", "qt", "-ac", "lpcm", "-vc", "raw"],
        "lqt-ima4.mov": ["lqt_transcode", "-f", "qt", "-ac", "ima4", "-vc", "yuv2"],
        "lqt-mp3.mp4": ["lqt_transcode", "-f", "mp4", "-ac", "lame", "-vc", "x264"],
        "lqtremux.mov": ["lqtremux"],
        "lqtstreamize.mov": ["qtstreamize"],
    ]

    /// Refused: a clear error, exit 65, whose message names the box and its offset.
    static let libquicktimeRefused: [String: String] = ["lqt-mp3.mp4": "stsc at byte", "lqt-ima4.mov": "stsz at byte"]

    func testFilesLibquicktimeWritesThroughEveryCommand() throws {
        let folder = TemporaryFolder()
        let source = folder.path("source.mov")
        try Self.source(source, seconds: 1, pcm: true)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/lqt_transcode") else {
            throw unavailable("quicktime-utils (libquicktime) is installed by scripts/setup.sh")
        }
        // lqtremux reads compressed packets only from codecs libquicktime has: Motion-JPEG it wrote.
        let inputs = ["lqtremux": folder.path("lqt-qtold.mov"), "qtstreamize": folder.path("lqt-qt.mov")]
        for name in ["lqt-qt.mov", "lqt-qtold.mov"] + Self.libquicktime.keys.sorted().filter({ !["lqt-qt.mov", "lqt-qtold.mov"].contains($0) }) {
            let command = try XCTUnwrap(Self.libquicktime[name])
            let input = inputs[command[0]] ?? source
            let result = try XCTUnwrap(runTool("timeout", ["60", "/usr/bin/" + command[0]] + command.dropFirst() + [input, folder.path(name)]))
            XCTAssertEqual(result.code, 0, "\(command[0]) \(name): \(result.out)")
        }
        let jpegs = (1...10).map { folder.path(String(format: "frame%02d.jpg", $0)) }
        let frames = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1",
                                                      folder.path("frame%02d.jpg")]))
        XCTAssertEqual(frames.code, 0)
        let rechunk = try XCTUnwrap(runTool("timeout", ["60", "/usr/bin/qtrechunk", "-f", "10", "-c", "jpeg"] + jpegs + [folder.path("qtrechunk.mov")]))
        XCTAssertEqual(rechunk.code, 0, rechunk.out)
        for path in jpegs { try FileManager.default.removeItem(atPath: path) }
        for (name, expected) in Self.libquicktimeRefused {
            let inspect = runCLI(["inspect", folder.path(name)])
            XCTAssertEqual(inspect.code, 65, "\(name): \(inspect.out)")
            XCTAssertTrue(inspect.error.contains(expected), "\(name): \(inspect.error)")
        }
        try FileManager.default.removeItem(atPath: source)
        let files = Self.libquicktime.keys.sorted() + ["qtrechunk.mov"]
        WildCorpusTests.check(folder: folder.url.path, files: files,
                              mustSucceed: Dictionary(uniqueKeysWithValues: files.filter { Self.libquicktimeRefused[$0] == nil }
                                  .map { ($0, WildCorpusTests.allCommands) }),
                              knownSilentLoss: [:], name: "libquicktime flavours")
        WildShownFramesTests.checkRemux(folder: folder, files: files.filter { Self.libquicktimeRefused[$0] == nil }, known: [:])
    }

    // MARK: - libavif

    /// avifenc (libavif-bin) writes an AVIF image sequence: ISOBMFF whose `moov` holds one AV1 track
    /// beside a top-level `meta` whose `iloc` points at the first frame's bytes in the mdat (the still
    /// image for image viewers), file offsets keeptrack cannot move with the samples: the commands that
    /// write refuse (65, naming `meta/iloc`), those that read confirm the track.
    func testImageSequenceLibavifWritesThroughEveryCommand() throws {
        let folder = TemporaryFolder()
        let frames = folder.path("frames.y4m")
        let ffmpeg = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                                                      "testsrc=size=64x48:rate=10:duration=1", "-pix_fmt", "yuv420p", frames]))
        XCTAssertEqual(ffmpeg.code, 0)
        guard let avifenc = runTool("avifenc", ["-s", "10", frames, folder.path("avifenc.avif")]) else {
            throw unavailable("avifenc (libavif-bin) is installed by scripts/setup.sh")
        }
        XCTAssertEqual(avifenc.code, 0, avifenc.out)
        let remux = runCLI(["remux", folder.path("avifenc.avif"), folder.path("remuxed.avif")])
        XCTAssertEqual(remux.code, 65, remux.out)
        XCTAssertTrue(remux.error.contains("meta/iloc item 1"), remux.error)
        WildCorpusTests.check(folder: folder.url.path, files: ["avifenc.avif"],
                              mustSucceed: ["avifenc.avif": ["inspect", "inspect --json", "lint", "dump", "levels"]],
                              knownSilentLoss: [:], name: "libavif flavours")
    }
}
