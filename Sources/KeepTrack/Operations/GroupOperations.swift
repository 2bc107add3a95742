import Foundation

/// The per-file work of `lint`, `fix` and `strip-spatial`, shaped as report rows so single files
/// and folder runs share one path.
public enum GroupOperations {
    public static func lint(_ path: String) -> BatchOutcome {
        let result = Linter.lint(path: path)
        let errors = result.findings.filter { $0.severity == .error }.count
        let summary = result.error.map { _ in "failed" }
            ?? (result.findings.isEmpty ? "clean" : "\(errors) error(s), \(result.findings.count - errors) warning(s)")
        return BatchOutcome(path: path, findings: result.findings, action: "lint", result: summary,
                            error: result.error?.description, exitCode: result.exitCode)
    }

    /// `fix`: patches in place, writes `output`, or (neither) reports what it would change.
    /// `pauseBetweenPatches`: see `GroupFix.applyInPlace`.
    public static func fix(input: String, output: String?, inPlace: Bool, overwrite: Bool, pauseBetweenPatches: UInt32 = 0) -> BatchOutcome {
        do {
            let (movie, repair) = try openForFix(input)
            var findings = Linter.lint(movie)
            if let repair, repair.staleFragments > 0 { findings.insert(LintFinding(rule: .fragmentOffsetsStale, message: repair.summary), at: 0) }
            let repairs = repair.map { repair in
                [repair.staleFragments > 0 ? "repaired fragment offsets: \(repair.baseOffsetPatches) tfhd base offsets" + (repair.randomAccessPatches > 0 ? ", \(repair.randomAccessPatches) mfra/tfra entries" : "")
                                           : "repaired the fragment index: \(repair.randomAccessPatches) mfra/tfra entries"]
            } ?? []
            let plan = GroupFix.plan(movie)
            if plan.isEmpty && repair == nil {
                return BatchOutcome(path: input, findings: findings, action: "none", result: "nothing to fix", exitCode: ExitCode.ok)
            }
            if inPlace {
                // Refuse before writing anything when the flags cannot be patched in place either.
                if plan.needsRewrite { try GroupFix.applyInPlace(plan, to: movie, path: input) }
                try repair?.applyInPlace(to: input)
                let changes = try GroupFix.applyInPlace(plan, to: movie, path: input, pauseBetweenPatches: pauseBetweenPatches)
                return BatchOutcome(path: input, findings: findings, action: "patched", result: (repairs + changes).joined(separator: "; "), exitCode: ExitCode.ok)
            }
            let edit = try GroupFix.edit(movie, plan: plan)
            let changes = repairs + edit.changes + plan.entryCountChanges
            guard let output else {
                return BatchOutcome(path: input, findings: findings, action: "check", result: "would change: " + changes.joined(separator: "; "), exitCode: ExitCode.ok)
            }
            let notes = try write(edit.writer(), to: output, input: input, overwrite: overwrite).notes
            var outcome = BatchOutcome(path: input, findings: findings, action: "fixed", result: "wrote \(output): " + changes.joined(separator: "; "), exitCode: ExitCode.ok)
            outcome.notes = notes
            return outcome
        } catch {
            return BatchOutcome(path: input, action: "fix", failure: error)
        }
    }

    /// The movie `fix` works on: as it is, or through its fragment-offset repair when it is refused
    /// for stale offsets that the evidence explains.
    static func openForFix(_ input: String) throws -> (Movie, FragmentOffsetRepair?) {
        do {
            let movie = try Movie.open(path: input)
            return (movie, FragmentOffsetRepair.indexRepair(movie))
        } catch let error as KeepTrackError where error.exitCode == ExitCode.dataError {
            guard let repaired = try? FragmentOffsetRepair.openRepaired(path: input) else { throw error }
            return (repaired.movie, repaired.repair)
        }
    }

    /// `strip-spatial`: writes `output` without spatial tracks; writes nothing when there are none.
    public static func stripSpatial(input: String, output: String, allowSilence: Bool, overwrite: Bool) -> BatchOutcome {
        do {
            let movie = try Movie.open(path: input)
            guard let edit = try StripSpatial.edit(movie, allowSilence: allowSilence) else {
                return BatchOutcome(path: input, action: "none", result: "no spatial audio track: nothing written", exitCode: ExitCode.ok)
            }
            let notes = try write(edit.writer(), to: output, input: input, overwrite: overwrite).notes
            var outcome = BatchOutcome(path: input, action: "stripped", result: "wrote \(output): " + edit.changes.joined(separator: "; "), exitCode: ExitCode.ok)
            outcome.notes = notes
            return outcome
        } catch {
            return BatchOutcome(path: input, action: "strip-spatial", failure: error)
        }
    }

    /// Writes through `MovieOutput` after creating the output's folder (folder runs mirror trees).
    @discardableResult
    public static func write(_ writer: MovieWriter, to output: String, input: String, overwrite: Bool) throws -> MovieOutput.Summary {
        try write(writer, to: output, inputs: [input], overwrite: overwrite)
    }

    /// The same from several inputs (an init segment and its media segments).
    public static func write(_ writer: MovieWriter, to output: String, inputs: [String], overwrite: Bool) throws -> MovieOutput.Summary {
        try createFolder(of: output)
        return try MovieOutput.write(writer, to: output, inputs: inputs, overwriting: overwrite)
    }

    /// Creates the folder `output` goes in, when missing (folder runs mirror trees).
    static func createFolder(of output: String) throws {
        let folder = (output as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw KeepTrackError.cannotCreate("\(folder): \(error.localizedDescription)")
            }
        }
    }
}
