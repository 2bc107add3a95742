import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming
import KeepTrackTranscode

/// Reframes a movie: finds the person, plans a camera path, crops and re-encodes the video, and passes
/// every other track (audio above all) through byte for byte.
public enum Reframer {
    public static func run(input: String, output: String, options: ReframeOptions,
                           progress: (ReframeProgress) -> Void = { _ in }) throws -> ReframeSummary {
        let started = Date()
        let movie = try Movie.open(path: input)
        let tracks = try ReframeTracks(movie: movie)
        let video = tracks.video
        guard let entry = video.visualEntry else {
            throw KeepTrackError.malformed(path: video.path, offset: video.box.offset, reason: "video track has no visual sample entry")
        }
        try movie.checkDecodable(video, purpose: "reframe")
        let orientation = DisplayOrientation(rotation: video.header.rotation ?? 0, storedWidth: Int(entry.width), storedHeight: Int(entry.height))
        var summary = ReframeSummary(input: input, output: output, passthrough: false,
                                     orientation: orientation,
                                     sourceCodec: video.codecName ?? video.format?.description ?? "?", hdr: video.video?.hdr)
        if video.header.rotation == nil {
            summary.notes.append("the video matrix is not a pure rotation; treated as upright")
        }
        if options.planOnly, options.planOutput == nil, options.previewOutput == nil {
            throw KeepTrackError.usage("a plan-only run writes a plan file or a preview, and neither was asked for")
        }
        // A vertical target and a picture already as narrow: nothing to crop; the movie is copied as it is.
        // (A square or wide target cuts a portrait picture vertically instead.)
        let verticalTarget = options.aspect.width < options.aspect.height
        if verticalTarget, orientation.displayWidth * options.aspect.height <= orientation.displayHeight * options.aspect.width {
            let narrow = "the picture is already \(orientation.displayWidth)x\(orientation.displayHeight) (no wider than \(options.aspect.width):\(options.aspect.height))"
            summary.passthrough = true
            if options.planOnly {
                // No movie is asked for, and there is no crop to plan or draw: nothing is written, and the notes say why.
                summary.output = ""
                summary.notes.append("\(narrow): nothing to crop, so no plan file or preview was written")
            } else {
                var remux = MovieOutput.Options()
                remux.overwrite = options.overwrite
                let copied = try MovieOutput.remux(input: input, output: output, options: remux)
                summary.verification = copied.verification
                summary.notes += copied.notes
                summary.notes.append("\(narrow): passed through uncropped, every track copied")
                if options.planOutput != nil { summary.notes.append("no plan file was written: there is no crop to plan") }
                if options.planInput != nil { summary.notes.append("the plan file given was not used: there is nothing to crop") }
            }
            summary.notApplied = options.chosenEncodingSettings.filter { !(options.planOnly && $0 == .preview) }
            if !options.planOnly { summary.keptTracks = movie.tracks.map(\.id) }
            summary.timings = [.init("total", Date().timeIntervalSince(started))]
            return summary
        }
        // The sample entry's colour box already says HDR: refuse H.264 before a whole analysis pass, not after.
        if options.codec == .h264, !options.planOnly, let hdr = video.video?.hdr { throw EncodePlan.hdrNeedsTenBit(hdr) }
        if let layout = video.video?.layout, layout.framePacking != nil || layout.projection != nil {
            // A crop of a packed or projected picture is neither: players would show half of each eye, or a piece of a
            // flattened sphere, as if it were an ordinary picture.
            let across = layout.framePacking != nil ? "both eyes packed in it" : "the sphere it is projected from"
            throw KeepTrackError.unsupported("the picture is \(layout.summary) (its spatial media metadata): a crop would cut across \(across), and no player shows such a crop right; transcode re-encodes it with its layout kept")
        }
        for file in [options.planOutput, options.previewOutput].compactMap({ $0 }) where !options.overwrite && FileManager.default.fileExists(atPath: file) {
            throw KeepTrackError.outputExists(file)
        }
        if options.planOnly {
            return try reframe(movie: movie, tracks: tracks, orientation: orientation, destination: nil,
                               options: options, summary: summary, started: started, progress: progress)
        }
        return try OutputFile.write(to: output, overwrite: options.overwrite, inputs: [input]) { destination in
            try reframe(movie: movie, tracks: tracks, orientation: orientation, destination: destination,
                        options: options, summary: summary, started: started, progress: progress)
        }
    }

    static func reframe(movie: Movie, tracks: ReframeTracks, orientation: DisplayOrientation, destination: OutputFile?,
                        options: ReframeOptions, summary initial: ReframeSummary, started: Date,
                        progress: (ReframeProgress) -> Void) throws -> ReframeSummary {
        var summary = initial
        let video = tracks.video
        let totalFrames = video.sampleTable.sampleCount
        if let stereo = video.video?.stereo {
            // FFmpeg 5.1 decodes only MV-HEVC's base layer: say so rather than hand back a flat video as if nothing changed.
            summary.notes.append("the source is \(stereo.summary): only its base view (one eye) is decoded and reframed; the output is 2D, without the second view or the spatial metadata (keeptrack flatten-stereo copies that view uncropped, without re-encoding)")
        }

        let crop = CameraPathPlanner.cropSize(sourceWidth: orientation.displayWidth, sourceHeight: orientation.displayHeight,
                                              aspectWidth: options.aspect.width, aspectHeight: options.aspect.height)
        let outputSize = options.size ?? crop

        let planner = CameraPathPlanner(sourceWidth: orientation.displayWidth, sourceHeight: orientation.displayHeight,
                                        cropWidth: crop.width, cropHeight: crop.height, settings: options.settings)
        // Encoding starts beside the analysis once it has passed a cut for good: the shots before it are
        // planned then and there (`ShotRelease`). Not for a plan given (nothing to wait for but the frame count).
        var early: ShotRelease?
        defer { early?.cancel() }
        let release: ShotsComplete? = destination != nil && options.overlapEncoding && options.planInput == nil
            ? { analysis, frames, samples in
                if early == nil {
                    early = try ShotRelease(movie: movie, video: video, analysis: analysis, orientation: orientation, crop: crop,
                                            outputSize: outputSize, destination: destination!, options: options)
                }
                let (cuts, uncertain) = analysis.cuts()
                var planned = planPath(planner, analysis: analysis, frames: frames, samples: samples, cuts: cuts.filter { $0 < frames },
                                       crop: crop, outputSize: outputSize, options: options).path
                if options.releasedPathShift != 0 { planned.offsets = planned.offsets.map { $0 + options.releasedPathShift } }
                early!.release(planned, uncertainCuts: uncertain.filter { $0.firstAfter <= frames })
            }
            : nil

        // 1. Analyse: frame times, picture differences, faces and people within the detection budget.
        let analysis = try analyse(movie, video, orientation: orientation, options: options,
                                   outputPixels: outputSize.width * outputSize.height, detect: options.planInput == nil,
                                   keep: destination != nil, shotsComplete: release) { frames, seconds in
            progress(ReframeProgress(phase: .analysing, frames: frames, totalFrames: totalFrames, seconds: seconds))
        }
        let analysed = Date()
        guard !analysis.mediaFrameTimes.isEmpty else { throw KeepTrackError.unsupported("the video track decoded to no frames") }
        guard !analysis.frameTimes.isEmpty else { throw KeepTrackError.unsupported("the video track's edit list shows none of its frames") }
        if let note = analysis.editListNote { summary.notes.append(note) }
        let hidden = analysis.shown.hiddenCount
        if hidden > 0, analysis.editListNote == nil {
            summary.notes.append("the video's edit list hides \(hidden) of its \(analysis.shown.frameCount) frames (decoded but never shown): they take no part in the plan and are encoded with the crop of the nearest shown frame")
        }

        // 2. Plan the camera path.
        let (cuts, uncertainCuts) = analysis.cuts()
        var path: CropPath
        if let planFile = options.planInput {
            path = try PlanFile.read(planFile, sourceWidth: orientation.displayWidth, sourceHeight: orientation.displayHeight,
                                     crop: crop, frameCount: analysis.frameTimes.count, hiddenFrames: hidden,
                                     splitWindow: splitGeometry(crop: crop, output: outputSize).window)
        } else {
            let planned = planPath(planner, analysis: analysis, frames: analysis.frameTimes.count, samples: analysis.samples, cuts: cuts,
                                   crop: crop, outputSize: outputSize, options: options)
            path = planned.path
            summary.shotDecisions = planned.shots
        }
        guard let destination else {
            // --plan-only: the plan and what it is made of, no movie.
            try writePlan(path, analysis: analysis, orientation: orientation, options: options, input: summary.input)
            summary.preview = try writePreview(path, analysis: analysis, options: options, input: summary.input)
            summary.output = ""
            summary.crop = crop
            describe(path, analysis: analysis, in: &summary)
            summary.timings = [.init("analysis", analysed.timeIntervalSince(started)), .init("detection", analysis.detectionSeconds),
                               .init("total", Date().timeIntervalSince(started))]
            return summary
        }

        // 3. and 4. Encode settings (HDR stays HDR: HEVC Main10 with its transfer; SDR becomes 8-bit), then decode
        // again (or take the frames the analysis kept), crop each frame at the planned position, encode; encoded
        // frames go to a data file. When encoding began beside the analysis, the whole path must agree with the
        // part released then; otherwise (never seen) everything is encoded again from the source.
        var encodeStarted = analysed
        let stage: EncodeStage, encoded: EncodedVideo
        var agreed: ShotRelease?
        if let started = early, analysis.timeline != nil {
            if let disagreement = started.disagreement(with: path) {
                summary.notes.append("encoding began beside the analysis, but the whole plan differs on frame \(disagreement + 1) from the part released early: the video was encoded again from the source")
            } else {
                agreed = started
            }
        }
        if let started = agreed {
            early = nil
            encodeStarted = started.run.started
            stage = started.stage
            started.release(path, uncertainCuts: uncertainCuts, whole: true)
            do {
                encoded = try started.run.wait(totalFrames: analysis.mediaFrameTimes.count, progress: progress)
            } catch {
                stage.dataFile.discard()
                throw error
            }
            for (planned, actual) in started.run.movedCuts { path.moveCut(from: planned, to: actual) }
            summary.timings.append(.init("encodeBesideAnalysis", analysed.timeIntervalSince(started.run.started)))
        } else {
            // The frames an early start took from the analysis are gone: decode again.
            let retained = early == nil ? analysis.retained : nil
            early?.cancel()
            early = nil
            stage = try EncodeStage(video: video, analysis: analysis, orientation: orientation, crop: crop, outputSize: outputSize,
                                    options: options, destination: destination)
            do {
                encoded = try encodePass(movie: movie, video: video, analysis: analysis, path: &path, uncertainCuts: uncertainCuts,
                                         stage: stage, retained: retained, progress: progress)
            } catch {
                stage.dataFile.discard()
                throw error
            }
        }
        defer { stage.dataFile.discard() }
        if video.video?.dolbyVision != nil {
            summary.notes.append("Dolby Vision metadata (\(video.video?.dolbyVision ?? "")) dropped: its dynamic metadata describes the uncropped picture and cannot be carried through a re-encode; the \(summary.hdr ?? "HDR") base picture and its colour description are kept")
        }
        if orientation.rotation != 0 {
            summary.notes.append("source stored rotated \(orientation.rotation)°: cropped in display orientation, written upright with an identity matrix")
        }
        let frameIndex = encoded.framesEncoded
        let frameCount = analysis.mediaFrameTimes.count  // shown and hidden: all are encoded
        if analysis.timeline == nil || frameIndex == 0 {
            guard frameIndex == frameCount else {
                throw KeepTrackError.io("the encoding pass produced \(frameIndex) frames, the analysis \(frameCount)")
            }
        } else if frameIndex < frameCount {
            summary.notes.append("\(frameCount - frameIndex) of \(frameCount) video frames could not be decoded and are missing from the output")
        }
        let encodedAt = Date()

        // 5. Mux: the new video track in the old one's place, every other kept track byte for byte.
        let replacement = ReplacementVideoTrack(source: video, codec: stage.plan.codec, extradata: stage.encoder.extradata,
                                                colour: stage.plan.settings.colour, sourceColour: analysis.colour, size: outputSize,
                                                geometry: .upright, samples: encoded.samples, frameTimes: analysis.mediaFrameTimes)
        let (written, keptTracks) = try mux(movie: movie, tracks: tracks, video: replacement, data: stage.dataFile, into: destination)
        summary.verification = written.verification
        summary.notes += written.notes  // fragment indexes or media data the output does not carry
        if frameIndex == frameCount {
            try PassthroughMux.checkShownFrames(written: destination.temporaryPath, video: video.id, source: analysis.shown.shown.count,
                                 lastShownAt: analysis.frameTimes.last ?? 0, sourceVideo: video, editListNote: analysis.editListNote)
        }
        try writePlan(path, analysis: analysis, orientation: orientation, options: options, input: summary.input)
        summary.preview = try writePreview(path, analysis: analysis, options: options, input: summary.input)
        let muxed = Date()

        summary.crop = crop
        summary.outputSize = outputSize
        summary.codec = stage.plan.codec
        summary.crf = stage.plan.crf
        summary.preset = stage.plan.preset
        summary.frames = encoded.samples.count
        describe(path, analysis: analysis, in: &summary)
        summary.keptTracks = keptTracks
        summary.droppedTracks = tracks.dropped.map { ReframeSummary.DroppedTrack(id: $0.track.id, reason: $0.reason) }
        for dropped in tracks.dropped { summary.notes.append("dropped track \(dropped.track.id): \(dropped.reason)") }
        summary.timings = [.init("analysis", analysed.timeIntervalSince(started)), .init("detection", analysis.detectionSeconds), .init("encode", encodedAt.timeIntervalSince(encodeStarted))]
            + summary.timings + [.init("mux", muxed.timeIntervalSince(encodedAt)), .init("total", muxed.timeIntervalSince(started))]
        return summary
    }

    /// The halves and windows of the `split` layout for a follow crop of `crop` scaled to `output`.
    static func splitGeometry(crop: PixelSize, output: PixelSize) -> SplitGeometry {
        SplitGeometry(crop: SplitSize(width: crop.width, height: crop.height), output: SplitSize(width: output.width, height: output.height))
    }

    static func writePlan(_ path: CropPath, analysis: Analysis, orientation: DisplayOrientation, options: ReframeOptions, input: String) throws {
        guard let plan = options.planOutput else { return }
        try PlanFile.write(PlanFile.json(path: path, frameTimes: analysis.frameTimes, sourceWidth: orientation.displayWidth,
                                         sourceHeight: orientation.displayHeight),
                           to: plan, overwrite: options.overwrite, inputs: [input])
    }
}

extension Reframer {
    /// The plan of the first `frames` shown frames (all of them, or the complete shots the analysis has passed):
    /// the same call either way, so the part released early is planned as the whole will be.
    static func planPath(_ planner: CameraPathPlanner, analysis: Analysis, frames: Int, samples: [DetectionSample], cuts: [Int],
                         crop: PixelSize, outputSize: PixelSize, options: ReframeOptions) -> LayoutPlan {
        planner.plan(frameTimes: Array(analysis.frameTimes.prefix(frames)), samples: DetectionSample.holding(samples, still: analysis.still),
                     cuts: cuts, layout: options.layout,
                     splitWindow: splitGeometry(crop: crop, output: outputSize).window, motions: analysis.motions,
                     appearance: options.followColours ? analysis.colours.map { SubjectAppearance(thumbnails: $0, axis: planner.axis) } : nil,
                     followed: analysis.following?.followed ?? [])
    }
}
