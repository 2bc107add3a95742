import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `fix`: one enabled track per alternate group, no references to missing tracks.
public enum GroupFix {
    /// What `fix` would change in `movie`.
    public struct Plan: Sendable {
        /// Flag changes: track id → new enabled state.
        public var enabledChanges: [EnabledFlag] = []
        /// Track ids that references name but that do not exist.
        public var missingReferenceTargets: Set<UInt32> = []
        /// `stsd`/`dref` entry counts that are not the entries present (the movie was read with the right ones).
        public var entryCounts: [EntryCountCorrection] = []
        /// Flags and counts alone can be patched in place; removing a reference changes box sizes.
        public var needsRewrite: Bool { !missingReferenceTargets.isEmpty }
        public var isEmpty: Bool { enabledChanges.isEmpty && missingReferenceTargets.isEmpty && entryCounts.isEmpty }
        /// What the counts become, one line each (a written copy gets them from the movie as read).
        public var entryCountChanges: [String] { entryCounts.map(\.description) }
    }

    /// The track a group should play: the source's choice when it made exactly one, else the track
    /// the others name as their `fall`back (stereo, most compatible), else the lowest id.
    public static func preferredTrack(in group: [Track]) -> Track? {
        let enabled = group.filter(\.isEnabled)
        if enabled.count == 1 { return enabled[0] }
        let members = Set(group.map(\.id))
        let named = Set(group.flatMap { $0.referencedIDs("fall") }).intersection(members)
        let sorted = group.sorted { $0.id < $1.id }
        return sorted.first { named.contains($0.id) } ?? sorted.first
    }

    public static func plan(_ movie: Movie) -> Plan {
        var plan = Plan()
        plan.entryCounts = movie.entryCountCorrections
        for group in movie.alternateGroups {
            guard let chosen = preferredTrack(in: group.tracks) else { continue }
            for track in group.tracks.sorted(by: { $0.id < $1.id }) where track.isEnabled != (track.id == chosen.id) {
                plan.enabledChanges.append(EnabledFlag(trackID: track.id, enabled: track.id == chosen.id))
            }
        }
        let ids = Set(movie.tracks.map(\.id))
        for track in movie.tracks {
            for reference in track.references { plan.missingReferenceTargets.formUnion(reference.trackIDs.filter { !ids.contains($0) }) }
        }
        return plan
    }

    /// The plan applied to a copy of the movie's boxes (for writing a new file).
    public static func edit(_ movie: Movie, plan: Plan) throws -> MovieEdit {
        var edit = MovieEdit(movie)
        for change in plan.enabledChanges { try edit.setEnabled(change.trackID, change.enabled) }
        if !plan.missingReferenceTargets.isEmpty { try edit.removeReferences(to: plan.missingReferenceTargets) }
        return edit
    }

    /// One 3-byte overwrite of a tkhd's flags.
    public struct FlagPatch: Sendable, Equatable {
        public let trackID: UInt32
        /// File offset of the 24-bit flags field.
        public let offset: UInt64
        public let old: [UInt8]
        public let new: [UInt8]
        public var description: String { "track \(trackID): \(new[2] & 1 == 1 ? "enabled" : "disabled")" }
    }

    /// The flag patches for `plan`, in the order they are written: enables before disables. Every
    /// prefix of them is a valid movie: patches touch only flag bytes (no size or offset changes),
    /// and because a group's chosen track is enabled before any other is disabled, no group that
    /// had an enabled track passes through a state with none (silence). A `fix --in-place` killed
    /// between patches leaves each group as it was, fixed, or with extra tracks still enabled as in
    /// the source; running it again finishes the job.
    public static func inPlacePatches(_ plan: Plan, for movie: Movie) -> [FlagPatch] {
        let ordered = plan.enabledChanges.filter(\.enabled) + plan.enabledChanges.filter { !$0.enabled }
        return ordered.compactMap { change in
            guard let track = movie.track(id: change.trackID), let tkhd = track.box.first("tkhd") else { return nil }
            let range = TrackHeaderBox.flagsPayloadRange
            guard tkhd.payload.count >= range.upperBound else { return nil }
            var flags = track.header.header.flags
            flags = change.enabled ? flags | TrackHeaderBox.enabledFlag : flags & ~TrackHeaderBox.enabledFlag
            return FlagPatch(trackID: change.trackID, offset: tkhd.payloadOffset + UInt64(range.lowerBound),
                             old: Array(tkhd.payload[range]),
                             new: [UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)])
        }
    }

    /// Patches only the tkhd flag bytes of `path` with pwrite, then fsync: cost independent of file
    /// size. Refuses (nothing written) when the plan needs a rewrite or the bytes on disk are not
    /// the ones `movie` was read from. Returns the descriptions of the changes.
    /// `pauseBetweenPatches` (milliseconds after each patch but the last) lets a crash-safety test kill
    /// the process between tracks; 0 in normal use.
    @discardableResult
    public static func applyInPlace(_ plan: Plan, to movie: Movie, path: String, pauseBetweenPatches: UInt32 = 0) throws -> [String] {
        if plan.needsRewrite {
            let missing = plan.missingReferenceTargets.sorted().map(String.init).joined(separator: ", ")
            throw KeepTrackError.refused(.init(.needsRewrite,
                "\(path): removing references to missing track \(missing) changes box sizes; patching in place only changes flags (write a new file instead)"))
        }
        let patches = inPlacePatches(plan, for: movie)
        try InPlacePatching.write(patches.map { InPlacePatch(offset: $0.offset, old: $0.old, new: $0.new, what: "tkhd flags") }
                                    + plan.entryCounts.map(\.patch), to: path, pauseBetweenPatches: pauseBetweenPatches)
        return patches.map(\.description) + plan.entryCountChanges
    }

    /// Writes `patches` (checked first against the bytes on disk) and fsyncs.
    static func write(_ patches: [FlagPatch], to path: String, pauseBetweenPatches pause: UInt32 = 0) throws {
        try InPlacePatching.write(patches.map { InPlacePatch(offset: $0.offset, old: $0.old, new: $0.new, what: "tkhd flags") },
                                  to: path, pauseBetweenPatches: pause)
    }
}
