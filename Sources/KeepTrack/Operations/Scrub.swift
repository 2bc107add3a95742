import Foundation

/// `scrub`: removes where a movie was taken (every copy), the tracks of detected faces, or what
/// recorded it, and nothing else. Metadata items are overwritten where they are (the box turned into
/// `free`, its payload zeroed; stale copies in free space zeroed), so every other byte keeps its
/// place; a track to remove needs a rewrite, which goes through the movie writer.
public enum Scrub {
    public struct Selection: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let location = Selection(rawValue: 1)
        public static let faces = Selection(rawValue: 2)
        public static let device = Selection(rawValue: 4)
        public static let all: Selection = [.location, .faces, .device]

        func includes(_ kind: PrivacyItem.Kind) -> Bool {
            switch kind {
            case .location: return contains(.location)
            case .face: return contains(.faces)
            case .device: return contains(.device)
            case .owner, .date: return false
            }
        }
    }

    public struct Plan: Sendable {
        /// The items that go.
        public var items: [PrivacyItem]
        /// Renames to `free` first, then the zeroed payloads and overwritten runs: a kill between
        /// two writes leaves each item either whole or already free.
        var patches: [InPlacePatch]
        public var droppedTracks: Set<UInt32>
        public var needsRewrite: Bool { !droppedTracks.isEmpty }
        public var isEmpty: Bool { items.isEmpty }
    }

    public static func plan(_ movie: Movie, selection: Selection) throws -> Plan {
        let items = PrivacyItems.find(in: movie).filter { selection.includes($0.kind) && $0.removal != .kept }
        var renames: [InPlacePatch] = [], overwrites: [InPlacePatch] = []
        var dropped: Set<UInt32> = []
        let source = movie.source
        for item in items {
            switch item.removal {
            case .freeBox(let offset, let headerSize, let size):
                renames.append(InPlacePatch(offset: offset + 4, old: try source.read(at: offset + 4, count: 4), new: Array("free".utf8),
                                            what: "\(item.path) box type"))
                let payload = Int(size - headerSize)
                if payload > 0 {
                    overwrites.append(InPlacePatch(offset: offset + headerSize, old: try source.read(at: offset + headerSize, count: payload),
                                                   new: [UInt8](repeating: 0, count: payload), what: "\(item.path) payload"))
                }
            case .overwrite(let runs):
                for run in runs {
                    overwrites.append(InPlacePatch(offset: run.offset, old: try source.read(at: run.offset, count: run.bytes.count), new: run.bytes,
                                                   what: "\(item.path) \(item.name)"))
                }
            case .dropTrack(let id):
                dropped.insert(id)
            case .kept:
                break
            }
        }
        let patches = renames + overwrites.filter { $0.old != $0.new }
        // Refuses overlapping patches (two items claiming the same bytes) before anything is written.
        _ = try PatchedByteSource(source, patches: patches.map { .init(offset: $0.offset, bytes: $0.new) })
        let trackItems = Set(items.filter { if case .overwrite = $0.removal { return true } else { return false } }.map(\.path))
        try checkSamplesUntouched(movie, patches: patches, overwrittenTracks: trackItems)
        return Plan(items: items, patches: patches, droppedTracks: dropped)
    }

    /// No patch may change a sample's bytes, except in a track whose samples are themselves an item (the
    /// text of GoPro's `fdsc` samples): an item found where media lies must stop scrub, not change media,
    /// since the output is the input's bytes with the patches and no rewrite verifies it.
    static func checkSamplesUntouched(_ movie: Movie, patches: [InPlacePatch], overwrittenTracks: Set<String>) throws {
        let sorted = patches.sorted { $0.offset < $1.offset }
        guard !sorted.isEmpty else { return }
        for track in movie.tracks where !overwrittenTracks.contains(track.path) {
            for sample in track.sampleTable.samples where sample.size > 0 {
                let end = sample.offset + UInt64(sample.size)
                // The first patch ending after the sample starts.
                var low = 0, high = sorted.count
                while low < high {
                    let middle = (low + high) / 2
                    if sorted[middle].offset + UInt64(sorted[middle].new.count) <= sample.offset { low = middle + 1 } else { high = middle }
                }
                if low < sorted.count, sorted[low].offset < end {
                    throw KeepTrackError.malformed(path: track.path, offset: sorted[low].offset,
                        reason: "scrub would overwrite \(sorted[low].what) inside a sample of track \(track.id) (bytes \(sample.offset)-\(end)); nothing written")
                }
            }
        }
    }

    /// The movie as it reads once the plan's bytes are written.
    static func patchedSource(_ movie: Movie, _ plan: Plan) throws -> PatchedByteSource {
        try PatchedByteSource(movie.source, patches: plan.patches.map { .init(offset: $0.offset, bytes: $0.new) })
    }

    /// Writes `output`: the input's bytes with the items overwritten, or (tracks to drop) a new movie
    /// from the patched input without those tracks and the references to them.
    public static func write(_ movie: Movie, plan: Plan, to output: String, input: String, overwrite: Bool, replacingInput: Bool = false) throws -> [String] {
        let patched = try patchedSource(movie, plan)
        let inputs = replacingInput ? [] : [input]
        if plan.needsRewrite {
            var edit = MovieEdit(try Movie(source: patched))
            try edit.removeTracks(plan.droppedTracks, reason: "scrubbed")
            try GroupOperations.createFolder(of: output)
            return try MovieOutput.write(edit.writer(), to: output, inputs: inputs, overwriting: overwrite || replacingInput).notes
        }
        try GroupOperations.createFolder(of: output)
        try OutputFile.write(to: output, overwrite: overwrite, inputs: inputs) { file in
            var buffer: [UInt8] = []
            var position: UInt64 = 0
            for patch in plan.patches.sorted(by: { $0.offset < $1.offset }) {
                try file.copy(from: movie.source, offset: position, length: patch.offset - position, buffer: &buffer)
                try file.write(patch.new)
                position = patch.offset + UInt64(patch.new.count)
            }
            try file.copy(from: movie.source, offset: position, length: movie.source.size - position, buffer: &buffer)
        }
        return []
    }

    /// One file of `scrub`: to `output`, or in place (`output` nil). In place, items are overwritten
    /// where they are (pwrite, then fsync); when a track must go, the input is replaced by a rewritten
    /// movie in one rename. `pauseBetweenPatches` (milliseconds) lets a crash-safety test kill between writes.
    public static func run(input: String, output: String?, selection: Selection, overwrite: Bool, pauseBetweenPatches: UInt32 = 0) -> (BatchOutcome, Plan?) {
        do {
            let movie = try Movie.open(path: input)
            let plan = try plan(movie, selection: selection)
            let removed = plan.items.map { "\($0.kind.rawValue) \($0.name) at \($0.path)" }
            guard !plan.isEmpty else {
                return (BatchOutcome(path: input, action: "none", result: "nothing to remove", exitCode: ExitCode.ok), plan)
            }
            var outcome: BatchOutcome
            if let output {
                let notes = try write(movie, plan: plan, to: output, input: input, overwrite: overwrite)
                outcome = BatchOutcome(path: input, action: "scrubbed", result: "wrote \(output): removed " + removed.joined(separator: "; "), exitCode: ExitCode.ok)
                outcome.notes = notes
            } else if plan.needsRewrite {
                let notes = try write(movie, plan: plan, to: input, input: input, overwrite: true, replacingInput: true)
                outcome = BatchOutcome(path: input, action: "rewritten", result: "replaced \(input) (a track had to go): removed " + removed.joined(separator: "; "), exitCode: ExitCode.ok)
                outcome.notes = notes
            } else {
                try InPlacePatching.write(plan.patches, to: input, pauseBetweenPatches: pauseBetweenPatches)
                outcome = BatchOutcome(path: input, action: "patched", result: "removed " + removed.joined(separator: "; "), exitCode: ExitCode.ok)
            }
            return (outcome, plan)
        } catch {
            return (BatchOutcome(path: input, action: "scrub", failure: error), nil)
        }
    }
}
