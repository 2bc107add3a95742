/// How bad a finding is: errors make `lint` exit 1, warnings do not.
public enum LintSeverity: String, Sendable, Comparable {
    case warning, error

    public static func < (a: LintSeverity, b: LintSeverity) -> Bool { a == .warning && b == .error }
}

/// One lint rule: a stable id (scripts and reports key on it), a severity and a one-line reason.
public struct LintRule: Sendable, Equatable {
    public let id: String
    public let severity: LintSeverity
    public let explanation: String

    public static let multipleEnabled = LintRule(id: "group-multiple-enabled", severity: .error,
        explanation: "More than one enabled track in an alternate group: players mix them (echo, comb filtering, louder yet harder to understand).")
    public static let noneEnabled = LintRule(id: "group-none-enabled", severity: .warning,
        explanation: "An alternate group with no enabled track: simple players play nothing from it (no audio).")
    public static let spatialEnabledFallbackDisabled = LintRule(id: "spatial-enabled-fallback-disabled", severity: .warning,
        explanation: "A spatial track is enabled while its stereo fallback is disabled: players without an APAC decoder play no audio.")
    public static let spatialWithoutFallback = LintRule(id: "spatial-without-fallback", severity: .warning,
        explanation: "A spatial track has no fallback in its alternate group or no `fall` reference: players without an APAC decoder have nothing to play.")
    public static let audioEnabledUngrouped = LintRule(id: "audio-enabled-ungrouped", severity: .warning,
        explanation: "Several enabled audio tracks in no alternate group: QuickTime and AVFoundation players play them all at once — an echo when they carry the same sound (VLC's mp4 muxer writes this, dropping the source's group). If they are alternatives, they belong in one alternate group with one enabled; `fix` does not guess which.")
    public static let danglingReference = LintRule(id: "dangling-reference", severity: .error,
        explanation: "A track reference (tref) names a track id that does not exist in the movie.")
    public static let mixedKinds = LintRule(id: "group-mixed-kinds", severity: .warning,
        explanation: "Tracks of different media kinds (audio, video, ...) share an alternate group: only one of them can play at a time.")
    public static let missingSampleDescription = LintRule(id: "missing-sample-description", severity: .error,
        explanation: "A track with samples has no sample description (stsd is empty): no player can decode it. ffmpeg writes this when it copies a codec it does not know, such as Apple's mebx metadata.")
    public static let unreferencedMediaData = LintRule(id: "unreferenced-media-data", severity: .warning,
        explanation: "Bytes of an mdat that no sample of any track references (more than 1,024, or not all zero): media the tracks do not describe — fragments keeptrack did not read, or data a writer left behind. A rewrite does not carry them.")
    public static let fragmentOffsetsStale = LintRule(id: "fragment-offsets-stale", severity: .error,
        explanation: "Fragments' tfhd base data offsets point where the fragments were before a tool grew the file in front of them (ffmpeg's +global_sidx, taggers such as mutagen or AtomicParsley): read as recorded, the samples are other bytes (ffmpeg decodes garbage). `fix` rewrites the offsets (in place or into a new file).")
    public static let fragmentIndexStale = LintRule(id: "fragment-index-stale", severity: .warning,
        explanation: "The fragment index (mfra/tfra) points where the fragments were before a tool moved them (mutagen and AtomicParsley move fragments without updating it): players that seek with it land elsewhere. The samples read right; `fix` rewrites the entries.")
    public static let secondLayerUndescribed = LintRule(id: "stereo-layer-undescribed", severity: .warning,
        explanation: "HEVC samples carry a second view (NAL units of layer 1) whose description is gone (no lhvC, its parameter sets neither in hvcC nor in the sample): spatial video whose samples a tool copied without their description (ffmpeg -c copy does). Players show the base view; the rest is dead weight. `flatten-stereo` removes it without re-encoding.")
    public static let apacConfigHostile = LintRule(id: "apac-config-hostile", severity: .error,
        explanation: "An APAC track's dapa configuration is shaped like the CVE-2025-31200 attack on Apple's decoder (CoreAudio before iOS 18.4.1 / macOS 15.4.1): a HOA layout of more channels than the stream has, or a channel remapping array the configuration cannot hold or that points outside the decoded channels. Do not serve the file to Apple devices; `strip-spatial` removes the track.")
    public static let apacConfigInconsistent = LintRule(id: "apac-config-inconsistent", severity: .warning,
        explanation: "An APAC track's dapa configuration disagrees with itself (a HOA layout that is not (order+1)² channels, more than 16 channels, or fields that run past its bytes): no recording device writes this.")
    public static let malformed = LintRule(id: "malformed-file", severity: .error,
        explanation: "The file cannot be read as a movie: sample tables inconsistent, pointing outside the file, or broken boxes.")

    public static let truncated = LintRule(id: "truncated", severity: .error,
        explanation: "The file is cut short inside its last mdat (a copy or download that stopped, a card pulled): the moov is whole but samples are missing. `keeptrack salvage IN OUT` writes every complete sample, every track ending at one time; other writing commands refuse the file.")
    public static let mediaDataPastEnd = LintRule(id: "mdat-past-end-of-file", severity: .warning,
        explanation: "The last mdat claims bytes past the end of the file (a writer that did not finish its size). Every sample lies inside the file, so players and keeptrack read it; a written copy has the right size.")
    public static let movieTimescaleMissing = LintRule(id: "movie-timescale-missing", severity: .warning,
        explanation: "The movie has no mvhd, or its time scale is 0: movie-time durations (tkhd, elst) mean nothing. Read with the largest media time scale (1000 without tracks) and durations from the samples; a written copy gets a valid mvhd.")
    public static let entryCountWrong = LintRule(id: "entry-count-wrong", severity: .error,
        explanation: "An stsd or dref says it holds more or fewer entries than it does (a count of 0 with an entry present, 0xFFFFFFFF): FFmpeg trusts the count and refuses the file. keeptrack reads the entries present; any writing command (`keeptrack remux IN OUT`) writes the right count; `fix --in-place` overwrites it.")
    public static let paddingPastEnd = LintRule(id: "padding-past-end-of-file", severity: .warning,
        explanation: "The last box is free or skip padding that claims bytes past the end of the file (a copy a few bytes short): nothing of the movie is missing, so it is read as what is there, as players do; a written copy has the right size.")
    public static let fragmentTimeGap = LintRule(id: "fragment-time-gap", severity: .warning,
        explanation: "A track fragment's tfdt starts later than the samples before it end, by more than the last of them lasts: a fragment or media segment is missing (or was left out of --init). The sample before the gap is read as lasting until the next starts, as players show it; the time is kept, the missing media is not there.")
    public static let fragmentTimeOverlap = LintRule(id: "fragment-time-overlap", severity: .warning,
        explanation: "A track fragment's tfdt starts before the sample before it ends (a muxer's rounding, or fragments of another timeline): that sample is read as shortened to end where the next starts. A tfdt before the previous sample even starts is malformed input (fragments out of order or repeated).")
    public static let decoderConfigurationBroken = LintRule(id: "decoder-config-broken", severity: .error,
        explanation: "A sample description's decoder configuration is broken in a way its bytes prove: parameter sets in avcC or hvcC that run past the box, an AVC configuration of another version than 1, an AAC esds whose AudioSpecificConfig is empty, unreadable or names no object type or rate, a QuickTime sound description whose sample rate is no rate. FFmpeg refuses the file or the stream; other commands copy it as it is, join refuses it.")

    /// The warning for something the reader tolerated.
    public static func rule(for kind: Movie.Tolerance.Kind) -> LintRule {
        switch kind {
        case .mediaDataPastEnd: mediaDataPastEnd
        case .movieTimescaleMissing: movieTimescaleMissing
        case .entryCountWrong: entryCountWrong
        case .paddingPastEnd: paddingPastEnd
        case .fragmentTimeGap: fragmentTimeGap
        case .fragmentTimeOverlap: fragmentTimeOverlap
        case .decoderConfigurationBroken: decoderConfigurationBroken
        }
    }

    /// Every rule, in the order of the README table.
    public static let all: [LintRule] = [multipleEnabled, noneEnabled, audioEnabledUngrouped, spatialEnabledFallbackDisabled, spatialWithoutFallback,
                                         danglingReference, mixedKinds, missingSampleDescription, decoderConfigurationBroken, truncated, mediaDataPastEnd, paddingPastEnd, movieTimescaleMissing, entryCountWrong,
                                         fragmentTimeGap, fragmentTimeOverlap,
                                         unreferencedMediaData, fragmentOffsetsStale, fragmentIndexStale, secondLayerUndescribed, apacConfigHostile,
                                         apacConfigInconsistent, malformed]
}

/// One problem found in one movie.
public struct LintFinding: Sendable, Equatable {
    public let rule: LintRule
    /// The tracks concerned (sorted), empty for file-level findings.
    public let trackIDs: [UInt32]
    public let message: String

    public init(rule: LintRule, trackIDs: [UInt32] = [], message: String) {
        self.rule = rule
        self.trackIDs = trackIDs
        self.message = message
    }

    public var severity: LintSeverity { rule.severity }

    public var json: JSONValue {
        .object([("rule", .string(rule.id)), ("severity", .string(rule.severity.rawValue)),
                 ("tracks", .array(trackIDs.map { .int(Int64($0)) })), ("message", .string(message))])
    }

    public var text: String { "\(rule.severity.rawValue) \(rule.id): \(message)" }
}
