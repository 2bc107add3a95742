/// Checks a movie's alternate groups, fallbacks and references against the rules in `LintRule`.
public enum Linter {
    /// Findings for a movie that opened (its sample tables were validated on open).
    public static func lint(_ movie: Movie) -> [LintFinding] {
        var findings: [LintFinding] = []
        let ids = Set(movie.tracks.map(\.id))
        for group in movie.alternateGroups {
            let members = group.tracks.map(\.id).sorted()
            let enabled = group.tracks.filter(\.isEnabled).map(\.id).sorted()
            if enabled.count > 1 {
                findings.append(LintFinding(rule: .multipleEnabled, trackIDs: enabled,
                    message: "alternate group \(group.id): tracks \(list(enabled)) are all enabled; players mix them"))
            } else if enabled.isEmpty {
                findings.append(LintFinding(rule: .noneEnabled, trackIDs: members,
                    message: "alternate group \(group.id): none of tracks \(list(members)) is enabled"))
            }
            let kinds = Set(group.tracks.map(\.kind.rawValue))
            if kinds.count > 1 {
                findings.append(LintFinding(rule: .mixedKinds, trackIDs: members,
                    message: "alternate group \(group.id) mixes \(kinds.sorted().joined(separator: " and ")) tracks \(list(members))"))
            }
        }
        let ungrouped = movie.tracks.filter { $0.kind == .audio && $0.isEnabled && $0.alternateGroup == 0 }.map(\.id).sorted()
        if ungrouped.count > 1 {
            findings.append(LintFinding(rule: .audioEnabledUngrouped, trackIDs: ungrouped,
                message: "audio tracks \(list(ungrouped)) are all enabled and in no alternate group; players that honour the flags mix them"))
        }
        for track in movie.tracks where track.isSpatialAudio {
            let fallbacks = fallbacks(of: track, in: movie)
            if fallbacks.isEmpty {
                let why = track.referencedIDs("fall").isEmpty ? "has no tref/fall reference" : "names no existing non-spatial track of its alternate group"
                findings.append(LintFinding(rule: .spatialWithoutFallback, trackIDs: [track.id],
                    message: "spatial track \(track.id) (\(track.format?.description ?? "?")) \(why)"))
            } else if track.isEnabled, fallbacks.allSatisfy({ !$0.isEnabled }) {
                findings.append(LintFinding(rule: .spatialEnabledFallbackDisabled, trackIDs: [track.id] + fallbacks.map(\.id),
                    message: "spatial track \(track.id) is enabled, its fallback \(list(fallbacks.map(\.id))) is disabled"))
            }
        }
        for track in movie.tracks where track.sampleEntries.isEmpty && track.sampleTable.sampleCount > 0 {
            findings.append(LintFinding(rule: .missingSampleDescription, trackIDs: [track.id],
                message: "track \(track.id) (\(track.kind.rawValue)) has \(track.sampleTable.sampleCount) samples but no sample description"))
        }
        if let truncation = movie.truncation {
            findings.append(LintFinding(rule: .truncated, trackIDs: truncation.cutTracks.map(\.trackID).sorted(),
                message: truncation.summary + ": " + truncation.trackLines.joined(separator: "; ") + "; `keeptrack salvage` writes every complete sample"))
        }
        for tolerance in movie.tolerated {
            findings.append(LintFinding(rule: LintRule.rule(for: tolerance.kind), message: tolerance.text))
        }
        for track in movie.tracks {
            for reference in track.references {
                let missing = reference.trackIDs.filter { !ids.contains($0) }
                if !missing.isEmpty {
                    findings.append(LintFinding(rule: .danglingReference, trackIDs: [track.id],
                        message: "track \(track.id) tref/\(reference.type) names missing track \(list(missing))"))
                }
            }
        }
        for track in movie.tracks {
            if let units = StereoFlatten.undescribedSecondLayer(track, in: movie) {
                findings.append(LintFinding(rule: .secondLayerUndescribed, trackIDs: [track.id],
                    message: "track \(track.id): its first sample carries \(units) NAL unit(s) of a second HEVC layer that no lhvC describes (a stereo view copied without its description); flatten-stereo removes them"))
            }
        }
        for track in movie.tracks { findings += APACConfigurationLint.findings(track) }
        if let warning = MediaDataAccount(movie: movie).warning {
            findings.append(LintFinding(rule: .unreferencedMediaData, message: warning))
        }
        if let repair = FragmentOffsetRepair.indexRepair(movie) {
            findings.append(LintFinding(rule: .fragmentIndexStale, message: repair.summary))
        }
        return findings
    }

    /// Lints the file at `path`; a file that cannot be opened as a movie becomes one `malformed-file`
    /// finding (malformed) or the error itself (missing, I/O).
    public static func lint(path: String) -> FileLintResult {
        do {
            return FileLintResult(path: path, findings: lint(try Movie.open(path: path, allowingTruncation: true)), error: nil)
        } catch let error as KeepTrackError {
            if error.exitCode == ExitCode.dataError {
                if let repaired = try? FragmentOffsetRepair.openRepaired(path: path) {
                    let finding = LintFinding(rule: .fragmentOffsetsStale, message: repaired.repair.summary)
                    return FileLintResult(path: path, findings: [finding] + lint(repaired.movie), error: nil)
                }
                return FileLintResult(path: path, findings: [LintFinding(rule: .malformed, message: error.description)], error: error)
            }
            return FileLintResult(path: path, findings: [], error: error)
        } catch {
            return FileLintResult(path: path, findings: [], error: .io("\(path): \(error)"))
        }
    }

    /// The tracks that `track` names with `fall` which exist, are not spatial and share its non-zero group.
    public static func fallbacks(of track: Track, in movie: Movie) -> [Track] {
        guard track.alternateGroup != 0 else { return [] }
        return track.referencedIDs("fall").compactMap { movie.track(id: $0) }
            .filter { !$0.isSpatialAudio && $0.alternateGroup == track.alternateGroup && $0.id != track.id }
    }

    static func list(_ ids: [UInt32]) -> String { ids.map(String.init).joined(separator: ", ") }
}

/// What `lint` found in one file.
public struct FileLintResult: Sendable {
    public let path: String
    public let findings: [LintFinding]
    /// Set when the file could not be opened (malformed files also carry a `malformed-file` finding).
    public let error: KeepTrackError?

    public var hasErrors: Bool { findings.contains { $0.severity == .error } }

    /// 0 clean or warnings only, 1 error-level findings, else the error's sysexits code (65 malformed).
    public var exitCode: Int32 { error?.exitCode ?? (hasErrors ? ExitCode.findings : ExitCode.ok) }
}
