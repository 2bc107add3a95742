/// Inspect's account of a stereo video track: both views and which eye each is, the projection and camera
/// facts, and what `transcode --stereo` would write for each arrangement (`StereoPacking`).
extension InspectReport {
    static func stereoLines(_ track: Track) -> [String] {
        guard let stereo = track.video?.stereo, let entry = track.visualEntry else { return [] }
        var lines = ["Stereo video track \(track.id): \(stereo.multiviewHEVC ? "MV-HEVC, two views" : "stereo boxes (vexu) without a second HEVC layer (no lhvC)") of \(entry.width)x\(entry.height)"]
        guard stereo.multiviewHEVC else {
            lines.append("  one coded view: transcode --stereo refuses it")
            return lines
        }
        let (base, second) = stereo.eyeViewsReversed ? ("right", "left") : ("left", "right")
        lines.append("  view 0 (base layer, hvcC): \(base) eye\(stereo.heroEye == base ? ", hero" : "") — the one a 2D player shows")
        lines.append("  view 1 (second layer, lhvC): \(second) eye\(stereo.heroEye == second ? ", hero" : "")")
        let facts = [
            "projection \(stereo.projection ?? "rectilinear")",
            stereo.baselineMillimetres.map { String(format: "baseline %g mm", $0) } ?? "baseline not said",
            stereo.fieldOfViewDegrees.map { String(format: "field of view %g°", $0) } ?? "field of view not said",
        ]
        lines.append("  " + facts.joined(separator: "; "))
        let view = StereoPacking.Size(width: Int(entry.width), height: Int(entry.height))
        let hfov = track.sampleEntries.first?.first("hfov")
        for arrangement in StereoPacking.Arrangement.allCases {
            let packing = StereoPacking(arrangement)
            var line = "  transcode --stereo \(arrangement.rawValue) writes \(packing.plan(for: stereo, view: view, hfov: hfov))"
            if packing.isStereo {
                let half = StereoPacking(arrangement, half: true).pictureSize(view: view)
                line += " (--half: \(half.width)x\(half.height))"
            }
            lines.append(line)
        }
        for reason in StereoPacking(.sbs).metadata(for: stereo, hfov: hfov).notCarried { lines.append("  not carried: \(reason)") }
        return lines
    }

    /// The same for `--json`: each arrangement's picture size and the boxes it writes.
    static func stereoOutputsJSON(_ track: Track) -> JSONValue {
        guard let stereo = track.video?.stereo, stereo.multiviewHEVC, let entry = track.visualEntry else { return .null }
        let view = StereoPacking.Size(width: Int(entry.width), height: Int(entry.height))
        let hfov = track.sampleEntries.first?.first("hfov")
        return .object(StereoPacking.Arrangement.allCases.flatMap { arrangement in
            [false, true].filter { !$0 || StereoPacking(arrangement).isStereo }.map { half in
                let packing = StereoPacking(arrangement, half: half), size = packing.pictureSize(view: view)
                return (arrangement.rawValue + (half ? "-half" : ""), JSONValue.object([
                    ("width", .int(Int64(size.width))), ("height", .int(Int64(size.height))),
                    ("boxes", .array(packing.metadata(for: stereo, hfov: hfov).written.map(JSONValue.string))),
                ]))
            }
        })
    }
}
