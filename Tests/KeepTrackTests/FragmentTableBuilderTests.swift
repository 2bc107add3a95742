import XCTest
@testable import KeepTrack

/// A run without sample records adds its samples in one step (`appendIdenticalSamples`); the table it
/// builds must be the one sample-by-sample appending builds, from every state the earlier samples leave.
final class FragmentTableBuilderTests: XCTestCase {
    func testIdenticalSamplesInOneStepBuildTheTableOfOneByOne() throws {
        let seed = try XCTUnwrap(FuzzRegressionTests.committed("seeds").first { $0.lastPathComponent == "ff-frag.mov" })
        let track = try XCTUnwrap(Movie.open(path: seed.path).tracks.first)
        let sync = FragmentSampleFlags(rawValue: 0), nonSync = FragmentSampleFlags(rawValue: 0x1_0000)
        let dependent = FragmentSampleFlags(rawValue: 0x0110_0000)  // non-sync is clear; depends on others
        typealias Sample = (size: UInt32, duration: UInt32, offset: Int64, flags: FragmentSampleFlags)
        // What came before the run, each a different state of the builder's optional tables.
        let befores: [String: [Sample]] = [
            "nothing": [],
            "other duration": [(7, 512, 0, sync)],
            "same duration": [(7, 1024, 0, sync)],
            "composition offsets": [(7, 1024, 2048, sync)],
            "negative offset": [(7, 1024, -512, sync)],
            "non-sync before": [(7, 1024, 0, nonSync)],
            "dependencies before": [(7, 1024, 0, dependent)],
        ]
        var compared = 0
        for (label, before) in befores.sorted(by: { $0.key < $1.key }) {
            for flags in [sync, nonSync, dependent] {
                for (size, duration) in [(UInt32(0), UInt32(1024)), (188, 0), (5, 1024)] {
                    for n in [0, 1, 2, 1_000] {
                        var oneByOne = try FragmentTableBuilder(track: track, defaults: nil)
                        var inOneStep = oneByOne
                        for sample in before {
                            oneByOne.appendSample(size: sample.size, duration: sample.duration, compositionOffset: sample.offset, flags: sample.flags)
                            inOneStep.appendSample(size: sample.size, duration: sample.duration, compositionOffset: sample.offset, flags: sample.flags)
                        }
                        for _ in 0..<n { oneByOne.appendSample(size: size, duration: duration, compositionOffset: 0, flags: flags) }
                        inOneStep.appendIdenticalSamples(n, size: size, duration: duration, flags: flags)
                        let context = "\(label), flags \(flags.rawValue), size \(size), duration \(duration), \(n) samples"
                        XCTAssertEqual(inOneStep.count, oneByOne.count, context)
                        XCTAssertEqual(inOneStep.summary.sampleCount, oneByOne.summary.sampleCount, context)
                        XCTAssertEqual(inOneStep.sizes, oneByOne.sizes, context)
                        XCTAssertEqual(inOneStep.timeToSample, oneByOne.timeToSample, context)
                        XCTAssertEqual(inOneStep.compositionOffsets, oneByOne.compositionOffsets, context)
                        XCTAssertEqual(inOneStep.signedOffsets, oneByOne.signedOffsets, context)
                        XCTAssertEqual(inOneStep.syncSamples, oneByOne.syncSamples, context)
                        XCTAssertEqual(inOneStep.dependencies, oneByOne.dependencies, context)
                        XCTAssertEqual(inOneStep.endTime, oneByOne.endTime, context)
                        XCTAssertEqual(inOneStep.firstDecodeTime, oneByOne.firstDecodeTime, context)
                        compared += 1
                    }
                }
            }
        }
        XCTAssertEqual(compared, 7 * 3 * 3 * 4)
    }
}
