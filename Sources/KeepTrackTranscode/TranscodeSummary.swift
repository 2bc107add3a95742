import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming

/// What a transcode did, for the console and `--json`: what changed in the video, and per item what was dropped
/// or not applied and why.
public struct TranscodeSummary: Sendable {
    /// One named thing (a box, an option, frames) and why.
    public struct Item: Sendable, Equatable {
        public var item: String
        public var reason: String
        public init(_ item: String, _ reason: String) {
            self.item = item
            self.reason = reason
        }
    }

    public typealias Timing = StageTiming

    public var input: String
    public var output: String
    public var sourceCodec: String
    public var codec: VideoEncoder.Codec?
    public var crf: Double?
    public var preset: String?
    /// The ProRes or DNxHR profile.
    public var profile: String?
    public var sourceSize: PixelSize?
    public var outputSize: PixelSize?
    /// What the HDR became ("HLG kept (10-bit)", "HLG tone-mapped to SDR BT.709"), nil for an SDR source.
    public var hdr: String?
    public var frames = 0
    public var sourceFrames = 0
    /// What changed in the video track, one sentence each.
    public var changed: [String] = []
    public var dropped: [Item] = []
    public var notApplied: [Item] = []
    public var notes: [String] = []
    public var keptTracks: [UInt32] = []
    public var verification: WriteVerification.Result?
    public var timings: [Timing] = []

    public init(input: String, output: String, sourceCodec: String) {
        self.input = input
        self.output = output
        self.sourceCodec = sourceCodec
    }

    mutating func describe(plan: EncodePlan, source: PixelSize, output: PixelSize, sourceColour: VideoEncoder.Colour?, hdrName: String?) {
        codec = plan.codec
        crf = plan.crf
        preset = plan.preset
        sourceSize = source
        outputSize = output
        profile = plan.settings.profile
        let quality = plan.crf.map { "crf \(String(format: "%g", $0)), preset \(plan.preset ?? "")" } ?? "profile \(plan.settings.profile ?? "default")"
        let sampling = plan.codec.isAnnexB ? "4:2:0" : "4:2:2"
        changed.append("video codec: \(sourceCodec) to \(plan.codec.rawValue) \(plan.isTenBit ? "10" : "8")-bit \(sampling), \(quality)")
        if source != output { changed.append("picture size: \(source.width)x\(source.height) to \(output.width)x\(output.height) (tkhd and tapt scaled with it)") }
        if sourceColour?.isHDR ?? false {
            let name = hdrName ?? "HDR"
            hdr = plan.toneMaps ? "\(name) tone-mapped to SDR BT.709" : "\(name) kept (10-bit)"
            if plan.toneMaps { changed.append("colour: \(name) tone-mapped to SDR (zscale/tonemap hable), tagged BT.709") }
        }
    }

    public var json: JSONValue {
        func items(_ list: [Item]) -> JSONValue { .array(list.map { .object([("item", .string($0.item)), ("reason", .string($0.reason))]) }) }
        var fields: [(String, JSONValue)] = [
            ("input", .string(input)), ("output", .string(output)),
            ("changed", .array(changed.map(JSONValue.string))), ("dropped", items(dropped)), ("notApplied", items(notApplied)),
            ("notes", .array(notes.map(JSONValue.string))), ("keptTracks", .array(keptTracks.map { .int(Int64($0)) })),
            ("source", .object([("codec", .string(sourceCodec)), ("width", .optional(sourceSize?.width)), ("height", .optional(sourceSize?.height)),
                                ("frames", .int(Int64(sourceFrames)))])),
        ]
        if let codec, let outputSize {
            fields.append(("video", .object([
                ("codec", .string(codec.rawValue)), ("width", .int(Int64(outputSize.width))), ("height", .int(Int64(outputSize.height))),
                ("crf", .optional(crf)), ("preset", .optional(preset)), ("profile", .optional(profile)), ("hdr", .optional(hdr)), ("frames", .int(Int64(frames))),
            ])))
        }
        fields.append(("timings", .object(timings.map { ($0.stage, .double(($0.seconds * 1000).rounded() / 1000)) })))
        return .object(fields)
    }

    /// The summary for a terminal: what was written, what changed, what was dropped or not applied.
    public var text: String {
        var lines: [String]
        if let codec, let outputSize {
            lines = ["wrote \(output): \(codec.rawValue) \(outputSize.width)x\(outputSize.height), \(frames) of \(sourceFrames) frames, tracks \(keptTracks.map(String.init).joined(separator: ",")) (every track but the video byte for byte)"]
        } else {
            lines = ["wrote \(output): video copied, every track byte for byte (tracks \(keptTracks.map(String.init).joined(separator: ",")))"]
        }
        lines += changed.map { "changed: \($0)" }
        lines += dropped.map { "dropped: \($0.item): \($0.reason)" }
        // Options are one word ("crf"), shown as the option; other items ("audio track 3") as they are.
        lines += notApplied.map { "not applied: \($0.item.contains(" ") ? $0.item : "--" + $0.item): \($0.reason)" }
        return lines.joined(separator: "\n")
    }
}
