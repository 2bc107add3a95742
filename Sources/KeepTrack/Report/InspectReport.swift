import Foundation

/// What `inspect` tells about a movie, for people (`text`) and for scripts (`json`).
/// The JSON keys are documented in docs/commands/inspect.md and kept stable.
public struct InspectReport: Sendable {
    public let movie: Movie
    public let name: String

    public init(movie: Movie, name: String) {
        self.movie = movie
        self.name = name
    }

    // MARK: JSON

    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("file", .string(name)),
            ("container", .string(movie.isQuickTime ? "quicktime" : "mp4")),
            ("brands", .array(brands.map { .string($0.description) })),
            ("duration", .optional(movie.duration.map { rounded($0) })),
            ("fastStart", .bool(movie.isFastStart)),
            ("fragmented", .bool(movie.isFragmented)),
            ("fragments", .int(Int64(movie.fragmentCount))),
            ("tracks", .array(movie.tracks.map(trackJSON))),
        ]
        pairs.append(("alternateGroups", .array(movie.alternateGroups.map { group in
            .object([
                ("id", .int(Int64(group.id))),
                ("tracks", .array(group.tracks.map { .int(Int64($0.id)) })),
                ("enabled", .array(group.tracks.filter(\.isEnabled).map { .int(Int64($0.id)) })),
            ])
        })))
        if let truncation = movie.truncation { pairs.append(("truncated", truncation.json)) }
        pairs.append(("metadata", .object(movie.metadata.map { ($0.key, .string($0.value)) })))
        pairs.append(("identifying", .array(PrivacyItems.find(in: movie).map(\.json))))
        let account = MediaDataAccount(movie: movie)
        pairs.append(("warnings", .array(movie.tolerated.map { tolerance in
            .object([("rule", .string(LintRule.rule(for: tolerance.kind).id)), ("path", .string(tolerance.path)),
                     ("offset", .int(Int64(tolerance.offset))), ("message", .string(tolerance.message))])
        } + (account.warning.map { warning in
            [.object([("rule", .string(LintRule.unreferencedMediaData.id)), ("path", .string("mdat")),
                      ("offset", .int(Int64(account.entries.first(where: \.warrantsWarning)?.mdatOffset ?? 0))), ("message", .string(warning))])]
        } ?? []))))
        pairs.append(("mediaData", .object([("unreferencedBytes", .int(Int64(account.unreferencedBytes))),
                                            ("mdats", .array(account.entries.map(\.json)))])))
        return .object(pairs)
    }

    var brands: [FourCC] {
        guard let fileType = movie.fileType else { return [] }
        var result = [fileType.majorBrand]
        for brand in fileType.compatibleBrands where brand.rawValue != 0 && !result.contains(brand) { result.append(brand) }
        return result
    }

    func rounded(_ value: Double, places: Double = 1000) -> Double { (value * places).rounded() / places }

    static func layoutJSON(_ layout: PictureLayout) -> JSONValue {
        .object([("framePacking", .optional(layout.framePacking)), ("projection", .optional(layout.projection)),
                 ("coverageAcrossDegrees", .optional(layout.coverageAcross)), ("coverageUpDegrees", .optional(layout.coverageUp)),
                 ("cubeMapPadding", .optional(layout.cubeMapPadding.map(Int.init))), ("sphericalV1", .bool(layout.sphericalV1))])
    }

    static func stereoJSON(_ stereo: StereoVideoInfo) -> JSONValue {
        .object([("leftEye", .bool(stereo.hasLeftEye)), ("rightEye", .bool(stereo.hasRightEye)),
                 ("eyeViewsReversed", .bool(stereo.eyeViewsReversed)), ("multiviewHEVC", .bool(stereo.multiviewHEVC)),
                 ("heroEye", .optional(stereo.heroEye)), ("baselineMillimetres", .optional(stereo.baselineMillimetres)),
                 ("fieldOfViewDegrees", .optional(stereo.fieldOfViewDegrees)), ("projection", .optional(stereo.projection))])
    }

    /// The walked `dapa`: G and, per HOA component, order, L and the remapping (what apac-config-hostile judges).
    static func apacJSON(_ configuration: APACConfiguration) -> JSONValue {
        .object([
            ("globalChannels", .int(Int64(configuration.globalChannels))),
            ("components", .array(configuration.components.map { component in
                var fields: [(String, JSONValue)] = [("firstChannel", .int(Int64(component.firstChannel))), ("type", .int(Int64(component.type)))]
                if let hoa = component.hoa {
                    fields += [("hoaOrder", .int(Int64(hoa.order))), ("coreChannels", .int(Int64(hoa.coreChannels))),
                               ("layoutTag", .optional(hoa.layoutTag.map { Int($0) })), ("layoutChannels", .int(Int64(hoa.layoutChannels))),
                               ("remapping", hoa.remapping.map { .array($0.map { .int(Int64($0)) }) } ?? (hoa.remappingPresent ? .string("unreadable") : .null))]
                }
                return .object(fields)
            })),
            ("walkStopped", .optional(configuration.stop?.reason)),
        ])
    }

    func trackJSON(_ track: Track) -> JSONValue {
        var references: [(String, JSONValue)] = []
        for reference in track.references {
            references.append((reference.type.description, .array(reference.trackIDs.map { .int(Int64($0)) })))
        }
        var referencedBy: [(String, JSONValue)] = []
        for incoming in movie.referrers(of: track.id) {
            if let index = referencedBy.firstIndex(where: { $0.0 == incoming.type.description }), case .array(var ids) = referencedBy[index].1 {
                ids.append(.int(Int64(incoming.from)))
                referencedBy[index].1 = .array(ids)
            } else {
                referencedBy.append((incoming.type.description, .array([.int(Int64(incoming.from))])))
            }
        }
        var audio: JSONValue = .null
        if let info = track.audio {
            var fields: [(String, JSONValue)] = [("channels", .optional(info.channels)), ("sampleRate", .optional(info.sampleRate)), ("spatial", .bool(info.spatial))]
            if case .success(let configuration)? = APACConfigurationLint.configuration(of: track) { fields.append(("apacConfiguration", Self.apacJSON(configuration))) }
            audio = .object(fields)
        }
        var video: JSONValue = .null
        if let info = track.video {
            video = .object([
                ("width", .int(Int64(info.width))), ("height", .int(Int64(info.height))),
                ("displayWidth", .int(Int64(info.displayWidth))), ("displayHeight", .int(Int64(info.displayHeight))),
                ("rotation", .optional(info.rotation)), ("frameRate", .optional(info.frameRate.map { rounded($0) })),
                ("hdr", .optional(info.hdr)), ("dolbyVision", .optional(info.dolbyVision)),
                ("stereo", info.stereo.map(Self.stereoJSON) ?? .null),
                ("layout", info.layout.map(Self.layoutJSON) ?? .null),
                ("transcodeStereo", Self.stereoOutputsJSON(track)),
            ])
        }
        return .object([
            ("id", .int(Int64(track.id))),
            ("kind", .string(track.kind.rawValue)),
            ("handler", .string(track.handler.handlerType.description)),
            ("format", .optional(track.format?.description)),
            ("codec", .optional(track.codecName)),
            ("enabled", .bool(track.isEnabled)),
            ("alternateGroup", .int(Int64(track.alternateGroup))),
            ("references", .object(references)),
            ("referencedBy", .object(referencedBy)),
            ("duration", .optional(track.duration.map { rounded($0) })),
            ("samples", .int(Int64(track.sampleTable.sampleCount))),
            ("bytes", .int(Int64(track.sampleTable.totalBytes))),
            ("bitrate", .optional(track.bitrate.map { $0.rounded() })),
            ("language", .optional(track.language)),
            ("audio", audio),
            ("video", video),
            ("metadataKeys", .array(track.timedMetadataKeys.map(JSONValue.string))),
            ("metadata", .object(track.metadata.map { ($0.key, .string($0.value)) })),
        ])
    }

    // MARK: Text

    public var text: String {
        var lines: [String] = []
        let container = movie.isQuickTime ? "QuickTime movie" : "MP4"
        var layout = movie.isFastStart ? "moov first (fast start)" : "moov after mdat"
        if movie.isFragmented { layout += ", fragmented, \(movie.fragmentCount) fragment\(movie.fragmentCount == 1 ? "" : "s")" }
        let duration = movie.duration.map { String(format: "%.2f s", $0) } ?? "duration unknown"
        lines.append("\(name): \(container), \(duration), \(movie.tracks.count) track\(movie.tracks.count == 1 ? "" : "s"), \(layout)")
        lines.append("")
        let header = ["id", "kind", "format", "codec", "plays", "group", "details"]
        var rows: [[String]] = [header]
        for track in movie.tracks {
            rows.append([String(track.id), track.kind.rawValue, track.format?.description ?? "-", track.codecName ?? "?",
                         track.isEnabled ? "yes" : "no", track.alternateGroup == 0 ? "-" : String(track.alternateGroup), details(track)])
        }
        let widths = (0..<header.count - 1).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            var line = "  "
            for column in 0..<header.count - 1 { line += row[column].rightPadded(to: widths[column]) + "  " }
            line += row[header.count - 1]
            lines.append(line)
        }
        let groups = movie.alternateGroups
        if !groups.isEmpty { lines.append("") }
        for group in groups {
            lines.append(contentsOf: groupLines(group))
        }
        if let truncation = movie.truncation {
            lines.append("")
            lines.append("Truncated: \(truncation.summary)")
            for line in truncation.trackLines { lines.append("  " + line) }
            lines.append("  `keeptrack salvage \(name) OUT` writes every complete sample")
        }
        for track in movie.tracks where track.video?.stereo != nil {
            lines.append("")
            lines.append(contentsOf: Self.stereoLines(track))
        }
        let mediaData = MediaDataAccount(movie: movie).lines
        if !movie.tolerated.isEmpty || !mediaData.isEmpty {
            lines.append("")
            for tolerance in movie.tolerated {
                let rule = LintRule.rule(for: tolerance.kind)
                lines.append("\(rule.severity.rawValue) \(rule.id): \(tolerance.text)")
            }
            lines.append(contentsOf: mediaData)
        }
        if !movie.metadata.isEmpty {
            lines.append("")
            lines.append("Metadata")
            let width = movie.metadata.map(\.key.count).max() ?? 0
            for item in movie.metadata { lines.append("  \(item.key.rightPadded(to: width))  \(item.value)") }
        }
        lines.append(contentsOf: identifyingLines)
        return lines.joined(separator: "\n")
    }

    /// What tells where, who, with what and when, with the box and offset of each (what `scrub` removes).
    var identifyingLines: [String] {
        let items = PrivacyItems.find(in: movie)
        guard !items.isEmpty else { return [] }
        var lines = ["", "Identifying (kind, what, where; how scrub removes it)"]
        for item in items {
            let value = item.value.count > 60 ? String(item.value.prefix(57)) + "..." : item.value
            lines.append("  \(item.kind.rawValue.rightPadded(to: 8))  \(item.name): \(value)  [\(item.path) at byte \(item.offset); \(item.removalText)]")
        }
        return lines
    }

    func details(_ track: Track) -> String {
        var parts: [String] = []
        if let audio = track.audio {
            parts.append(audio.channels.map { "\($0) ch" } ?? "channels unknown")
            if let rate = audio.sampleRate { parts.append("\(Int(rate)) Hz") }
            if audio.spatial { parts.append("spatial") }
        }
        if let video = track.video {
            var size = "\(video.width)x\(video.height)"
            if let rotation = video.rotation, rotation != 0 {
                size += " shown \(video.displayWidth)x\(video.displayHeight) (rotated \(rotation)°)"
            }
            parts.append(size)
            if let rate = video.frameRate { parts.append(String(format: "%.2f fps", rate)) }
            if let hdr = video.hdr { parts.append(hdr) }
            if let dolby = video.dolbyVision { parts.append("Dolby Vision \(dolby)") }
            if let stereo = video.stereo { parts.append(stereo.summary) }
            if let layout = video.layout { parts.append(layout.summary) }
        }
        let keys = track.timedMetadataKeys.map { $0.replacingOccurrences(of: "com.apple.quicktime.", with: "") }
        if !keys.isEmpty { parts.append(keys.count <= 2 ? keys.joined(separator: " ") : "\(keys[0]) +\(keys.count - 1) keys") }
        for reference in track.references {
            let ids = reference.trackIDs.map(String.init).joined(separator: ",")
            parts.append(reference.type == "fall" ? "falls back to \(ids)" : "\(reference.type)→\(ids)")
        }
        let fallbackFor = movie.referrers(of: track.id).filter { $0.type == "fall" }.map { String($0.from) }
        if !fallbackFor.isEmpty { parts.append("fallback for \(fallbackFor.joined(separator: ","))") }
        if let language = track.language { parts.append(language) }
        return parts.joined(separator: ", ")
    }

    func groupLines(_ group: AlternateGroup) -> [String] {
        let enabled = group.tracks.filter(\.isEnabled)
        let describe = { (track: Track) in "track \(track.id) (\(track.format?.description ?? "?")\(track.audio?.spatial == true ? ", spatial" : ""))" }
        var lines = ["Alternate group \(group.id): " + group.tracks.map(describe).joined(separator: " / ")]
        switch enabled.count {
        case 1:
            let others = group.tracks.filter { !$0.isEnabled }.map { String($0.id) }
            lines.append("  plays track \(enabled[0].id)" + (others.isEmpty ? "" : "; track\(others.count == 1 ? "" : "s") \(others.joined(separator: ", ")) available as alternative"))
        case 0:
            lines.append("  no track enabled: simple players play nothing from this group")
        default:
            lines.append("  \(enabled.count) tracks enabled (\(enabled.map { String($0.id) }.joined(separator: ", "))): players mix them — echo")
        }
        return lines
    }
}
