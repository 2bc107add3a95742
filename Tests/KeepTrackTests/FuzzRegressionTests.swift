import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// Every input the fuzzer ever found (Fuzz/regressions) must end in a value or a KeepTrackError
/// through the same paths the fuzzer drives (parse, inspect, lint, remux planner, edits).
final class FuzzRegressionTests: XCTestCase {
    static func committed(_ folder: String) throws -> [URL] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/" + folder)
        return try FileManager.default.contentsOfDirectory(atPath: url.path).filter { !$0.hasPrefix(".") }.sorted()
            .map { url.appendingPathComponent($0) }
    }

    func testRegressionCorpusEndsInValueOrError() throws {
        let files = try Self.committed("regressions")
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let name = file.lastPathComponent
            let bytes = Array(try Data(contentsOf: file))
            XCTAssertEqual(FuzzTargets.exercise(bytes).map { "\($0)" }, [], name)
            do {
                let movie = try Movie(source: MemoryByteSource(bytes))
                _ = InspectReport(movie: movie, name: name).json
            } catch let error as KeepTrackError {
                XCTAssertEqual(error.exitCode, 65, "\(name): \(error)")
            }
        }
    }

    /// The committed seeds (every layout read, fragmented ones included: Fuzz/make-seeds.sh) and the
    /// minimised corpus the fuzzer grew from them go through every fuzz target; most seeds are
    /// movies the edits accept (they reach the planners, not only the parser).
    /// Runs without sample records or a sample size claim samples for free: the fuzzer found 14–24 KB files
    /// whose runs, each under the old per-run limit of 2^20, claimed 0.9–1.8 million samples (seconds of
    /// work in the fuzzer; a few hundred 28-byte runs would claim billions). The limit, 2^19, holds for the file.
    func testZeroByteSampleClaimsAreBoundedForTheWholeFile() throws {
        // One run of 917,504 such samples (after one of 128); runs of 458,752 (each under the limit, together past it).
        for (name, earlier) in [("fragment-runs-claiming-zero-byte-samples", false), ("fragment-runs-claiming-zero-byte-samples-2", true)] {
            let file = try XCTUnwrap(try Self.committed("regressions").first { $0.lastPathComponent == name })
            var bytes = Array(try Data(contentsOf: file))
            if earlier {
                // The fuzzer also left a second stco in its sample table, refused (65) before the runs are
                // read since duplicate tables are; renamed to free so the runs stay what is tested.
                XCTAssertEqual(Array(bytes[563..<567]), Array("stco".utf8))
                XCTAssertThrowsError(try Movie(source: MemoryByteSource(bytes))) { error in
                    XCTAssertTrue("\(error)".contains("second stco"), "\(error)")
                }
                bytes.replaceSubrange(563..<567, with: Array("free".utf8))
            }
            XCTAssertThrowsError(try Movie(source: MemoryByteSource(bytes))) { error in
                guard case KeepTrackError.malformed(let path, _, let reason) = error else { return XCTFail("\(name): \(error)") }
                XCTAssertTrue(path.hasSuffix("trun"), "\(name): \(path)")
                XCTAssertTrue(reason.contains("samples without data"), "\(name): \(reason)")
                if earlier { XCTAssertTrue(reason.contains("in earlier runs"), "\(name): \(reason)") }
            }
        }
    }

    func testSeedsAndCorpusEndInValueOrError() throws {
        let seeds = try Self.committed("seeds")
        let corpus = try Self.committed("corpus")
        XCTAssertGreaterThanOrEqual(seeds.count, 20)
        XCTAssertGreaterThan(corpus.count, seeds.count)
        var parsed = 0
        var fragmented = 0
        var repaired: [String] = []
        var truncated: [String] = []
        var photos: [String] = []
        var chosen: [FuzzTargets.Target: Int] = [:]
        for file in seeds + corpus {
            let bytes = Array(try Data(contentsOf: file))
            chosen[FuzzTargets.target(for: bytes), default: 0] += 1
            XCTAssertEqual(FuzzTargets.exercise(bytes).map { "\($0)" }, [], file.lastPathComponent)
            guard seeds.contains(file) else { continue }
            let source = MemoryByteSource(bytes)
            if let movie = try? Movie(source: source) {
                parsed += 1
                if movie.isFragmented { fragmented += 1 }
            } else if let repair = (try? FragmentOffsetRepair.find(in: source)) ?? nil, repair.staleFragments > 0,
                      (try? Movie(source: repair.repaired(source), checkingFragmentOffsets: false)) != nil {
                // Refused as recorded (a tool moved the fragments), read right through its repair.
                repaired.append(file.lastPathComponent)
            } else if (try? Movie(source: source, allowingTruncation: true))?.truncation != nil {
                // Cut short inside its mdat: refused by the edits, read by the truncated target.
                truncated.append(file.lastPathComponent)
            } else if MotionPhoto.find(in: source) != nil {
                // A picture holding a movie: the motion photo scan's input.
                photos.append(file.lastPathComponent)
            }
        }
        // Annex B seeds (annexb.h264/.hevc) are the parameter-set parser's input, the dapa seed the APAC
        // configuration walk's (dapa-hoa.bin): not movies.
        let movieSeeds = seeds.filter { !$0.lastPathComponent.hasPrefix("annexb.") && !$0.lastPathComponent.hasPrefix("dapa-") }
        XCTAssertEqual(seeds.count - movieSeeds.count, 3, "an H.264 and an HEVC Annex B seed, a dapa seed")
        // The stale-fragment seeds (Fuzz/make-seeds.sh) reach the repair target, not the edits.
        XCTAssertEqual(repaired.sorted(), ["ff-global-sidx.mp4", "tagged-atomicparsley-frag.mp4", "tagged-mutagen-frag.mp4"])
        XCTAssertEqual(truncated, ["kt-moov-first-truncated"])
        XCTAssertEqual(photos.sorted(), ["photo-google.jpg", "photo-samsung.heic"])
        XCTAssertEqual(parsed + repaired.count + truncated.count + photos.count, movieSeeds.count,
                       "every movie seed is a valid movie, one its repair reads, a truncated one or a motion photo")
        XCTAssertGreaterThanOrEqual(fragmented, 7, "fragmented layouts among the seeds")
        // One execution runs one planner or edit, chosen by a hash of the input: every one gets a share.
        let share = (seeds.count + corpus.count) / FuzzTargets.Target.allCases.count
        for target in FuzzTargets.Target.allCases {
            XCTAssertGreaterThan(chosen[target] ?? 0, share / 3, "\(target) chosen for \(chosen[target] ?? 0) committed inputs")
        }
    }

    /// Valid movies (tiny versions of every builder variant) go through every fuzz target without an
    /// unexpected error, and the edits really run on them (they are not all refused early).
    func testFuzzTargetsRunCleanOnEveryVariant() throws {
        var edited = 0
        for name in FixtureOptions.variantNames {
            var options = try XCTUnwrap(FixtureOptions.variant(name))
            options.duration = 0.1
            options.videoFrameBytes = 16
            let folder = TemporaryFolder()
            let path = try FixtureBuilder(options).write(to: folder.path("\(name).mov"))
            let bytes = Array(try fileBytes(path))
            XCTAssertEqual(FuzzTargets.exercise(bytes).map { "\($0)" }, [], name)
            let movie = try Movie(source: MemoryByteSource(bytes))
            if try StripSpatial.edit(movie, allowSilence: true)?.isChanged == true { edited += 1 }
        }
        XCTAssertGreaterThan(edited, FixtureOptions.variantNames.count / 2, "strip-spatial changed most variants")
    }
}
