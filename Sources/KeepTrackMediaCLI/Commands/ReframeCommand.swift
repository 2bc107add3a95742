import Foundation
import KeepTrack
import KeepTrackCLI
import KeepTrackCodec
import KeepTrackFaces
import KeepTrackFraming
import KeepTrackPeople
import KeepTrackReframePipeline

/// `keeptrack reframe IN OUT`: horizontal video to vertical, following the person; audio untouched.
enum ReframeCommand {
    static let spec = CommandSpec(
        name: "reframe",
        summary: "Crop a horizontal video to vertical (9:16) following the person in it; every audio track passes through untouched.",
        arguments: "IN OUT | IN --plan-only (--plan-out FILE | --preview FILE.png)",
        positionals: 1...2,
        options: [
            .value(.aspect, "W:H", "Target aspect ratio (default 9:16)."),
            .value(.size, "WxH", "Scale the crop to this size (even numbers; default: the crop's own pixels, no scaling)."),
            .value(.codec, "h264|hevc", "Video codec (default: h264 8-bit for SDR, hevc 10-bit for HLG/PQ sources).", choices: [VideoEncoder.Codec.h264, .hevc].map(\.rawValue)),
            .value(.crf, "N", "Constant rate factor, 0–51 (default 20 for h264, 22 for hevc).", range: 0...51),
            .value(.preset, "P", "x264/x265 preset: ultrafast ... veryslow (default medium).", choices: EncodeOptionValues.presets),
            .value(.layout, "follow|fit|split|auto", "How each shot is shown: follow the subject with a 9:16 crop (default), fit the whole picture over a blurred, darkened copy of itself, split: two people stacked, each half following one of them, or auto: per shot, follow when one person dominates or the people who matter share one crop, split when exactly two dominate far apart, fit otherwise.",
                   choices: LayoutMode.allCases.map(\.rawValue)),
            .value(.planOut, "FILE", "Also write the planned crop path as JSON: crop size, cuts, and every frame's time and crop position."),
            .value(.frameMemory, "MIB", "Keep decoded frames for the encoder up to this much memory, decoding once, whatever the picture size (default: 1024 for pictures under 1280x720, HEVC under 1920x1080, where keeping costs less than decoding again; 0: decode twice).", range: 0...1_048_576),
            .value(.preview, "FILE.png", "Also write a contact sheet: frames across the clip with the crop, faces and people drawn, each beside its output frame, and a plot of the crop and subject over time with the cuts and each shot's layout marked."),
            .flag(.planOnly, "Analyse and plan only: write --plan-out FILE and/or --preview FILE.png and the summary, encode nothing (no OUT)."),
            .value(.plan, "FILE", "Render this crop path (a --plan-out file, perhaps edited) instead of planning one; no detection."),
            .flag(.json, "Print a JSON summary at the end (subject coverage, shots, path statistics and each split window's, timings)."),
            .flag(.force, "Replace OUT if it exists."),
        ],
        discussion: """
        Demuxes with keeptrack's own container layer and decodes with FFmpeg's libavcodec (H.264, HEVC Main/Main10)
        on every core. Works in display orientation: an iPhone portrait file (stored rotated 90°) is turned upright.
        A picture already as narrow as the target is passed through uncropped (every track copied), with a note;
        there is then no plan to write (--plan-out, --plan-only: a note says so, exit 0).
        A first pass decodes the video (once, keeping the frames, when they fit in 1 GiB; otherwise only the
        frames other frames reference, and again for the encoder); on its frames it finds faces (libfacedetection,
        YuNet, on frames scaled to 480 px; to 240 px while every face it last found was large, or only around the faces it
        last found while they move predictably) and, where it finds no face, whole people (OpenCV's HOG people detector:
        backs to the camera, small faces) within a budget of 6 % of what a medium-preset encode of the output
        costs: at once on a likely cut, at most 3 times a second, once a second while nothing in the picture
        changes; on its own thread while decoding goes
        on, links them into tracks,
        detects shot cuts (the second pass settles a cut on a skipped frame), and plans a camera path per shot:
        where the person rests (1 s or more) the crop rests with the face on its centre line (a third from the top
        when the crop slides vertically); while they move, the face stays within the central 40 % and the crop pans
        smoothly (speed and acceleration limited, no overshoot, look-ahead), jumping only at cuts; between detections
        a large face (8 blocks or more of the 64x36 luma grid) is followed frame by frame on that grid, and the
        colours of the subject's clothes (below the head, where they stand out from the picture) show where the
        subject went; otherwise it holds its place
        while the face is lost (after 2 s with nobody found, following one mover half a crop or more away, to where it
        stops); near the frame's edge it rests against the edge. Crops at even coordinates and re-encodes: libx264 8-bit for SDR,
        libx265 10-bit keeping the HLG/PQ transfer and colour description for HDR. Dolby Vision metadata is dropped
        (it describes the uncropped picture); the output says so. Spatial (MV-HEVC stereo) video comes out flat: only
        the base view (one eye) is decoded, and a note says so. A frame-packed or projected picture (st3d side by side
        or over-under, sv3d 360°/180°, Spherical Video V1's XML) is refused (65): a crop would cut across the eyes or the sphere. Every frame keeps its time (variable frame rate
        stays variable); the output is upright with an identity matrix.
        Audio and other tracks are copied byte for byte with their enabled flags, alternate groups and references;
        movie metadata (creation date, location, make, model) is kept. Timed metadata describing the old picture
        (detected faces, orientation) is dropped and reported.
        --preview writes a PNG contact sheet to check the plan before publishing: 10 source frames (each shot's first,
        then evenly spaced), darkened outside the crop window (green), the subject's face (red; pink where followed), other faces
        (yellow), people (cyan) or, where nobody is found, what moved (magenta), each beside its output frame and
        labelled with frame number and time; under them a plot over the whole clip (time left to right, position
        along the crop's axis top to bottom): the crop's extent (dark green) and centre (green), the subject (red;
        pink where its clothes' colours placed it or its face was followed), other detections, cuts (orange) and the frames shown (white ticks); above it a band in each shot's layout
        colour (follow blue, fit violet, split pink; legend below): fit tiles outline the whole picture, split
        tiles both windows. With --plan-only nothing is encoded;
        --plan-only --plan FILE --preview FILE.png draws an edited plan without rendering it.
        Several people: the subject is the most important person of the shot (detector confidence x face size x
        centrality, summed over the frames they are seen in, so persistence counts); another person takes over
        only when 1.5 times as important over the surrounding 3 s and after the subject was held 2 s, or when the
        subject's track ends, so the camera never turns back and forth between two people. When the people who
        matter (a typical sighting at least 35 % as important as the most prominent person's, seen on 30 % of the
        shot's analysed frames and on two of them; a face lost and found again is one person) fit in one crop,
        it frames them together; people never seen together need no shared layout, so one detection more or
        less does not change a shot's layout. --layout fit shows the whole picture across the middle of the output over a blurred (shrunk to
        a sixteenth and grown back), darkened copy of its centre. --layout split stacks two people: each half of
        the output (a thin black divider between them) shows a window of the half's aspect, as wide as the follow
        crop, following one of the two people who matter most (upper: the one further left) with the same path
        planning and limits as a followed crop, its height fixed per shot; shots with fewer than two people who
        matter follow. --layout auto: follow when one person dominates or the people who matter share one crop;
        split when exactly two matter, hold 75 % of everyone's importance, are each seen on half the shot and
        stand a crop width apart; fit otherwise (groups, audiences).
        --plan-out writes the planned path: {"keeptrackPlan": 1, "source", "crop", "axis", "cuts", "layouts",
        "frames": [{"time", "x", "y"}]} (layouts: "follow", "fit" or "split" for each shot, one more than the cuts;
        x, y: the crop's top-left corner in display pixels, one entry per frame; frames of split shots also have
        "top" and "bottom": {"x", "y"}, the windows' corners, whose size is "split": {"width", "height"}). --plan-only stops there (a full
        decode, no encode). --plan renders such a file, edited or not, instead of detecting (its layouts too;
        --layout is refused with it): it must have this movie's frame count and crop size (same --aspect),
        positions inside the picture, increasing cuts, one layout per shot (none: follow); odd positions are
        rounded down to even; a plan that does not fit is refused (65) naming the field.
        Exit status: 0; 64 bad usage; 65 unsupported or malformed input; 66 missing input; 73 output exists.
        """
    ) { invocation, console in
        var options = ReframeOptions()
        options.overwrite = invocation.flag(.force)
        if let aspect = invocation.value(.aspect) { options.aspect = try EncodeOptionValues.pair(aspect, separator: ":", option: "aspect") }
        if let size = invocation.value(.size) {
            let parsed = try EncodeOptionValues.pair(size, separator: "x", option: "size")
            guard parsed.width % 2 == 0, parsed.height % 2 == 0, parsed.width <= 8192, parsed.height <= 8192 else {
                throw KeepTrackCLIError.usage("--size takes even numbers up to 8192, like 1080x1920; not '\(size)'")
            }
            options.size = parsed
        }
        options.codec = invocation.value(.codec).flatMap(VideoEncoder.Codec.init(rawValue:))
        options.crf = invocation.value(.crf)
        if let layout = invocation.value(.layout) {
            guard invocation.value(.plan) == nil else {
                throw KeepTrackCLIError.usage("--layout cannot be combined with --plan: the plan's \"layouts\" say how each shot is shown")
            }
            options.layout = LayoutMode(rawValue: layout) ?? .follow
        }
        options.planOutput = invocation.value(.planOut)
        options.planInput = invocation.value(.plan)
        if let memory = invocation.value(.frameMemory) {
            // Asked for: kept whatever the picture size, as far as the memory goes.
            options.retainedFramesBudget = Int(memory * 1_048_576)
            options.retainedPictureLimit = .max
            options.retainedPictureLimitHEVC = .max
        }
        options.previewOutput = invocation.value(.preview)
        options.planOnly = invocation.flag(.planOnly)
        if options.planOnly {
            guard invocation.positionals.count == 1, options.planOutput != nil || options.previewOutput != nil,
                  options.planInput == nil || options.previewOutput != nil else {
                throw KeepTrackCLIError.usage("--plan-only takes IN and --plan-out FILE and/or --preview FILE.png (no OUT; --plan only with --preview)")
            }
        } else if invocation.positionals.count != 2 {
            throw KeepTrackCLIError.usage("reframe takes IN and OUT (or IN --plan-only --plan-out FILE)")
        }
        options.preset = invocation.value(.preset)
        let bar = ReframeProgressDisplay(console: console)
        let summary: ReframeSummary
        do {
            summary = try Reframer.run(input: invocation.positionals[0], output: invocation.positionals.count > 1 ? invocation.positionals[1] : "",
                                       options: options) { bar.update($0) }
        } catch let error as CodecError {
            bar.finish()
            throw KeepTrackError.unsupported(error.description)
        } catch KeepTrackError.refused(let refusal) where refusal.kind == .hdrNeedsTenBit {
            bar.finish()
            throw KeepTrackCLIError.usage(refusal.message + ": --codec hevc")
        } catch FaceDetector.DetectorError.unavailable(let why), PersonDetector.DetectorError.unavailable(let why) {
            // A detector library opened on first use is missing: a component not installed, not bad input.
            bar.finish()
            console.error(why + " (make setup fetches it; make install puts it under PREFIX/lib/keeptrack)")
            return ExitCode.unavailable
        }
        bar.finish()
        for note in summary.notes { console.note("note: \(note)") }
        if !summary.notApplied.isEmpty {
            let options = summary.notApplied.map { "--" + $0.rawValue }.joined(separator: ", ")
            console.note("note: \(options) not applied: nothing was re-encoded")
        }
        if invocation.flag(.json) {
            console.print(summary.json.rendered())
        } else {
            console.print(text(summary))
        }
        return ExitCode.ok
    }

    static func text(_ summary: ReframeSummary) -> String {
        if summary.output.isEmpty, let statistics = summary.statistics {
            return "planned \(summary.path?.offsets.count ?? 0) frames (crop \(summary.crop?.width ?? 0)x\(summary.crop?.height ?? 0)): \(statistics.shots) shot(s), \(summary.framesWithFaces) of \(summary.analysedFrames) detections with faces; nothing encoded"
        }
        if summary.passthrough, summary.output.isEmpty {
            return "planned nothing: the picture (\(summary.orientation.displayWidth)x\(summary.orientation.displayHeight)) is already narrow enough to pass through uncropped"
        }
        guard !summary.passthrough, let size = summary.outputSize, let codec = summary.codec,
              let statistics = summary.statistics, let coverage = summary.coverage else {
            return "wrote \(summary.output): passed through (\(summary.orientation.displayWidth)x\(summary.orientation.displayHeight))"
        }
        var lines = ["wrote \(summary.output): \(size.width)x\(size.height) \(codec.rawValue) crf \(summary.crf.map { String(format: "%g", $0) } ?? "-"), \(summary.frames) frames, tracks \(summary.keptTracks.map(String.init).joined(separator: ","))"]
        let followed = summary.framesFollowed > 0 ? "; the face followed between detections on \(summary.framesFollowed)" : ""
        lines.append("subject: faces in \(summary.framesWithFaces) of \(summary.analysedFrames) analysed frames (\(summary.decodedForAnalysis) frames decoded to analyse\(followed)), inside the crop on "
                     + String(format: "%.1f%% of them", coverage.fraction * 100))
        lines.append("camera: \(statistics.shots) shot(s), \(statistics.steadyShots) steady; moving on \(statistics.movingFrames) frames, top speed \(Int(statistics.maximumSpeed)) px/s, \(statistics.reversals) reversal(s)")
        lines.append(summary.timings.map { String(format: "%@ %.2f s", $0.stage, $0.seconds) }.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }
}

/// Reframe's progress on a terminal: one `ProgressDisplay` per phase (analysing, then encoding), in frames.
final class ReframeProgressDisplay: @unchecked Sendable {
    private let console: Console
    private var phase: ReframeProgress.Phase?
    private var display: ProgressDisplay?

    init(console: Console) { self.console = console }

    func update(_ progress: ReframeProgress) {
        guard console.isTerminal else { return }  // a bar on a terminal only; logs stay clean
        if progress.phase != phase {
            display?.finish()
            phase = progress.phase
            display = ProgressDisplay(console: console, total: max(progress.totalFrames, 1),
                                      start: Date().addingTimeInterval(-progress.seconds), unit: "frames", label: progress.phase.rawValue)
        }
        display?.update(done: progress.frames)
    }

    func finish() {
        display?.finish()
        display = nil
        phase = nil
    }
}
