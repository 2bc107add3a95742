import Foundation
import KeepTrack
import KeepTrackCLI
import KeepTrackCodec
import KeepTrackTranscode

/// `keeptrack transcode IN OUT`: the video re-encoded, every other track and the metadata untouched.
enum TranscodeCommand {
    static let spec = CommandSpec(
        name: "transcode",
        summary: "Re-encode the video (smaller, H.264 for the web, HEVC keeping HDR); every other track, and the metadata, pass through untouched.",
        arguments: "IN OUT | FILE|DIR... --out-dir DIR",
        minimumPositionals: 1,
        options: [
            .value(.video, "h264|hevc|prores|dnxhr|copy", "Video codec: h264 (8-bit High; the default), hevc (10-bit Main 10 for an HLG/PQ source, keeping it HDR; 8-bit Main otherwise), prores or dnxhr (4:2:2 intra frames for editors, .mov only) or copy (no re-encode: a remux).",
                   choices: TranscodeOptions.Video.allCases.map(\.rawValue)),
            .value(.proresProfile, "proxy|lt|standard|hq", "ProRes 4:2:2 10-bit profile (default hq).", choices: Array(ReplacementVideoTrack.proResFormats.keys.sorted())),
            .value(.dnxhrProfile, "lb|sq|hq|hqx", "DNxHR 4:2:2 profile: lb, sq, hq (8-bit) or hqx (10-bit; the default, keeps HDR).", choices: ["lb", "sq", "hq", "hqx"]),
            .value(.audio, "copy|pcm", "Audio: copy (every audio track byte for byte; the default) or pcm (each decodable audio track becomes 32-bit float LPCM holding what a player presents, priming and edit list applied, for editors that cannot decode AAC; a track with no decoder here, APAC, stays as it is; .mov only).",
                   choices: TranscodeOptions.Audio.allCases.map(\.rawValue)),
            .value(.crf, "N", "Constant rate factor, 0–51 (default 20 for h264, 22 for hevc).", range: 0...51),
            .value(.preset, "P", "x264/x265 preset: ultrafast ... veryslow (default medium).", choices: EncodeOptionValues.presets),
            .value(.maxSize, "WxH", "Fit the picture inside W x H (stored pixels), keeping its aspect, in even sizes; never upscaled."),
            .value(.hdr, "keep|sdr", "For an HLG/PQ source: keep it HDR (refused with h264, which is 8-bit) or tone-map it to SDR BT.709. Default: keep with hevc, tone-map with h264.",
                   choices: ["keep", "sdr"]),
            .flag(.flattenStereo, "Stereo MV-HEVC (spatial video): re-encode its base view (one eye) as 2D instead of refusing; the stereo boxes are named as dropped."),
            .value(.stereo, "sbs|ou|left|right", "Stereo MV-HEVC (iPhone or Vision Pro spatial video): decode both views with FFmpeg 9 (installed by make setup) and write one picture: sbs (left eye left), ou (left eye on top) or one eye; the sample entry gets Google's st3d (and sv3d for a 180°/360° projection) so other players see it as stereo.",
                   choices: StereoPacking.Arrangement.allCases.map(\.rawValue)),
            .flag(.half, "With --stereo sbs or ou: squeeze each eye to half the width (sbs) or height (ou), so the picture keeps one view's size."),
            .flag(.json, "Print a JSON summary at the end: what changed, what was dropped and what was not applied, with the reasons."),
            .value(.outDir, "DIR", "Write one output per input under DIR, mirroring the input tree (inputs may be folders); outputs that exist are skipped, so a rerun finishes what a stopped run left."),
            BatchRun.shardOption,
            .flag(.force, "Replace OUT (with --out-dir: outputs, and the --report file) if it exists."),
        ] + BatchRun.options,
        discussion: """
        Decodes the first enabled video track with FFmpeg's libavcodec, scales it (--max-size) and tone-maps it where
        asked with FFmpeg's libavfilter (zscale to linear light, tonemap hable, zscale to BT.709), encodes it with
        libx264, libx265, prores_ks (fourcc apco/apcs/apcn/apch by profile) or dnxhd (AVdh with Avid's ACLR and ADHR
        boxes) and writes it in the old track's place: the same track id, enabled flag, alternate group,
        matrix (a rotated recording stays rotated by its matrix; no pixel is turned), pixel aspect, clean aperture,
        tapt (scaled with the picture), edit list (the same frames at the same times) and track metadata.
        Every other track (stereo AAC, APAC spatial audio, timed metadata) passes through byte for byte with its
        sample entries, flags, alternate groups and references (fall, cdsc); movie metadata (udta, meta: creation
        date, location, make, model) is kept as it is. The output keeps the source's container: .mov for a
        QuickTime source, .mp4 for an MP4 one.
        Colour: colr is kept; an HDR source kept HDR also keeps its mdcv, clli and amve boxes; tone-mapped, it is
        tagged BT.709. Dolby Vision's configuration box (dvvC/dvcC) is dropped: its per-frame metadata is not
        re-encoded; the HLG/PQ base picture stays valid. A 3D or 360°/180° picture keeps its st3d, sv3d and hfov boxes
        and Spherical Video V1's XML (scaled or not, its layout is the same). What is dropped or not applied is listed with the reason.
        Refused: an encrypted video track, a movie without video (nothing to transcode), a codec this FFmpeg cannot
        decode (named), stereo MV-HEVC without --stereo or --flatten-stereo (FFmpeg 5.1 decodes only its base view), --stereo on a
        video with one view or already frame-packed (st3d) (65). --stereo runs FFmpeg 9 (make setup's pinned static build, found in lib/keeptrack/ffmpeg9 beside an
        installed keeptrack, in the checkout's .deps, or at $KEEPTRACK_FFMPEG9) to decode both views and stack them; its raw frames
        go to the same encoder and mux, and every other track passes through as above. The MV-HEVC boxes (lhvC, vexu) are
        dropped; st3d, sv3d (equirectangular, 180° as bounds) and hfov are written; the baseline has no box outside vexu. The output is written beside OUT and renamed
        into place once read back.
        \(BatchRun.discussion) Each file is encoded with the encoder's threads on every core; -j sets how many files run at once.
        Exit status: 0; 64 bad usage (also: --hdr keep with h264 on an HDR source); 65 unsupported or malformed input;
        66 missing input; 69 --stereo without FFmpeg 9 (run make setup); 73 output exists.
        """
    ) { invocation, console in
        var options = TranscodeOptions()
        options.overwrite = invocation.flag(.force)
        options.flattenStereo = invocation.flag(.flattenStereo)
        if let arrangement = invocation.value(.stereo).flatMap(StereoPacking.Arrangement.init(rawValue:)) {
            guard !options.flattenStereo else { throw KeepTrackCLIError.usage("--stereo and --flatten-stereo ask for different outputs: give one") }
            options.stereo = StereoPacking(arrangement, half: invocation.flag(.half))
            if invocation.flag(.half), !(options.stereo?.isStereo ?? false) {
                throw KeepTrackCLIError.usage("--half squeezes the eyes of --stereo sbs or ou; --stereo \(arrangement.rawValue) keeps one eye at its size")
            }
        } else if invocation.flag(.half) {
            throw KeepTrackCLIError.usage("--half goes with --stereo sbs or ou")
        }
        options.video = invocation.value(.video).flatMap(TranscodeOptions.Video.init(rawValue:)) ?? .h264
        options.audio = invocation.value(.audio).flatMap(TranscodeOptions.Audio.init(rawValue:)) ?? .copy
        options.crf = invocation.value(.crf)
        options.preset = invocation.value(.preset)
        if let size = invocation.value(.maxSize) {
            let parsed = try EncodeOptionValues.pair(size, separator: "x", option: "max-size")
            guard parsed.width >= 2, parsed.height >= 2, parsed.width <= 8192, parsed.height <= 8192 else {
                throw KeepTrackCLIError.usage("--max-size takes sizes from 2 to 8192, like 1920x1080; not '\(size)'")
            }
            options.maxSize = parsed
        }
        options.hdr = invocation.value(.hdr).map { $0 == "keep" ? .keep : .toSDR }
        let proRes = invocation.value(.proresProfile), dnxhr = invocation.value(.dnxhrProfile).map { "dnxhr_" + $0 }
        guard proRes == nil || dnxhr == nil else { throw KeepTrackCLIError.usage("--prores-profile and --dnxhr-profile are for different codecs: give one") }
        if let profile = proRes ?? dnxhr {
            let wanted: TranscodeOptions.Video = proRes != nil ? .prores : .dnxhr
            guard options.video == wanted || options.video.codec?.isAnnexB == true else {
                throw KeepTrackCLIError.usage("--\(wanted == .prores ? "prores" : "dnxhr")-profile goes with --video \(wanted.rawValue)")
            }
            options.profile = profile
        }
        if let outDir = invocation.value(.outDir) {
            let shard = try invocation.value(.shard).map(BatchRun.Shard.init)
            let chosen = options
            return try BatchRun.run(invocation, console: console, command: "transcode", paths: invocation.positionals, shard: shard) { file in
                transcode(file, into: file.output(under: outDir), options: chosen)
            }.code
        }
        guard invocation.positionals.count == 2 else { throw KeepTrackCLIError.usage("'transcode' needs IN OUT, or inputs with --out-dir DIR") }
        var bar: ProgressDisplay?
        let summary: TranscodeSummary
        do {
            summary = try Transcoder.run(input: invocation.positionals[0], output: invocation.positionals[1], options: options) { frames, total, seconds in
                guard console.isTerminal else { return }
                if bar == nil {
                    bar = ProgressDisplay(console: console, total: max(total, 1), start: Date().addingTimeInterval(-seconds), unit: "frames", label: "encoding")
                }
                bar?.update(done: frames)
            }
        } catch let error as CodecError {
            bar?.finish()
            throw KeepTrackError.unsupported(error.description)
        } catch let missing as MultiviewFFmpeg.Missing {
            bar?.finish()
            console.error(missing.description)
            return MultiviewFFmpeg.unavailableExitCode
        } catch KeepTrackError.refused(let refusal) where refusal.kind == .hdrNeedsTenBit {
            bar?.finish()
            throw KeepTrackCLIError.usage(refusal.message + ": --video hevc keeps it HDR, or --hdr sdr tone-maps it")
        }
        bar?.finish()
        for note in summary.notes { console.note("note: \(note)") }
        console.print(invocation.flag(.json) ? summary.json.rendered() : summary.text)
        return ExitCode.ok
    }

    /// One file of a folder run: skipped when its output exists (without --force), else transcoded; never throws.
    static func transcode(_ file: BatchFile, into output: String, options: TranscodeOptions) -> BatchOutcome {
        if !options.overwrite, FileManager.default.fileExists(atPath: output) {
            return BatchOutcome(path: file.path, action: "skipped", result: "\(output) exists (--force replaces it)", exitCode: ExitCode.ok)
        }
        do {
            let folder = (output as NSString).deletingLastPathComponent
            do {
                if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            } catch {
                throw KeepTrackError.cannotCreate("\(folder): \(error.localizedDescription)")
            }
            let summary = try Transcoder.run(input: file.path, output: output, options: options)
            var outcome = BatchOutcome(path: file.path, action: "transcoded", result: summary.text.split(separator: "\n").first.map(String.init) ?? "",
                                       exitCode: ExitCode.ok)
            outcome.notes = summary.notes + summary.dropped.map { "dropped \($0.item): \($0.reason)" }
            return outcome
        } catch let error as CodecError {
            return BatchOutcome(path: file.path, action: "transcode", failure: KeepTrackError.unsupported(error.description))
        } catch let missing as MultiviewFFmpeg.Missing {
            return BatchOutcome(path: file.path, action: "transcode", failure: KeepTrackError.unsupported(missing.description))
        } catch {
            return BatchOutcome(path: file.path, action: "transcode", failure: error)
        }
    }
}
