import Foundation
import XCTest
@testable import KeepTrack

/// The `dapa` walk and the CVE-2025-31200 lint, on the two real recordings' configurations and on
/// configurations shaped like the public proof-of-concept files, made here from the real ones by
/// changing the fields the attack changed (G, L, the remapping flag and its array).
final class APACConfigurationTests: XCTestCase {
    /// A real file's APAC track and its `dapa` box (payload from the version/flags on).
    func realDapa(_ path: String) throws -> (track: Track, box: Box) {
        let movie = try Movie(source: FileByteSource(path: try RealFixtures.require(path)))
        let track = try XCTUnwrap(movie.tracks.first { $0.format == "apac" })
        return (track, try XCTUnwrap(track.sampleEntries.first?.first("dapa")))
    }

    func testRealConfigurationsWalkToTheirLayoutsAndAreClean() throws {
        let iphone = try APACConfiguration(dapaPayload: realDapa(RealFixtures.iphone).box.payload)
        XCTAssertEqual(iphone.globalChannels, 4)
        XCTAssertEqual(iphone.components.count, 1)
        XCTAssertNil(iphone.stop)
        let hoa = try XCTUnwrap(iphone.components.first?.hoa)
        XCTAssertEqual([hoa.order, hoa.coefficients, hoa.coreChannels, hoa.layoutChannels], [1, 4, 4, 4])
        XCTAssertEqual(hoa.layoutTag, 0x00BE_0004)
        XCTAssertFalse(hoa.remappingPresent)

        let writer = try APACConfiguration(dapaPayload: realDapa(RealFixtures.avAssetWriter).box.payload)
        XCTAssertEqual(writer.globalChannels, 7)
        XCTAssertEqual(writer.componentCount, 2)
        XCTAssertEqual(writer.components.first?.hoa?.layoutChannels, 4)
        XCTAssertEqual(writer.components.first?.hoa?.layoutTag, 0x00BE_0004)
        // Its second component (type 1) is not walked: said, and not a finding.
        XCTAssertEqual(writer.stop?.kind, .unwalkedComponentType)

        XCTAssertTrue(APACConfigurationLint.findings(iphone).isEmpty)
        XCTAssertTrue(APACConfigurationLint.findings(writer).isEmpty)
        for path in RealFixtures.all {
            let result = runCLI(["lint", "--json", path])
            XCTAssertFalse(result.out.contains("apac-config"), result.out)
        }
    }

    /// The first proof-of-concept's shape on the iPhone configuration: G=4, L=65535, remapping flag set
    /// and no array bits behind it (the stream ends after the flag).
    func testLayoutWiderThanTheStreamWithAnEmptyRemappingIsHostile() throws {
        var edit = try ConfigurationBits(realDapa(RealFixtures.iphone).box.payload)
        let hoa = try XCTUnwrap(edit.walked().components.first?.hoa)
        edit.set(bit: hoa.layoutBit + 16, width: 16, to: 0xFFFF)
        edit.set(bit: hoa.remappingFlagBit, width: 1, to: 1)
        edit.truncate(afterBit: hoa.remappingFlagBit)
        let walked = try edit.walked()
        XCTAssertEqual(walked.globalChannels, 4)
        XCTAssertEqual(walked.components.first?.hoa?.layoutChannels, 65535)
        XCTAssertNotNil(walked.components.first?.hoa?.remappingShortfall)
        let findings = APACConfigurationLint.findings(walked)
        XCTAssertEqual(findings.filter { $0.rule == .apacConfigHostile }.count, 2, "\(findings)")
        XCTAssertTrue(findings.contains { $0.message.contains("first channel 0 + L=65535") && $0.message.contains("4 channels of the stream") })
        XCTAssertTrue(findings.contains { $0.message.contains("remapping flag set") })
    }

    /// The second proof-of-concept's shape on the AVAssetWriter configuration: G=1, L=8, flag set, no array.
    func testEightChannelLayoutOverOneChannelIsHostile() throws {
        var edit = try ConfigurationBits(realDapa(RealFixtures.avAssetWriter).box.payload)
        let hoa = try XCTUnwrap(edit.walked().components.first?.hoa)
        edit.set(bit: APACConfiguration.globalChannelsBit, width: 8, to: 1)
        edit.set(bit: hoa.layoutBit + 16, width: 16, to: 8)
        edit.set(bit: hoa.remappingFlagBit, width: 1, to: 1)
        edit.truncate(afterBit: hoa.remappingFlagBit)
        let findings = APACConfigurationLint.findings(try edit.walked())
        XCTAssertTrue(findings.contains { $0.rule == .apacConfigHostile && $0.message.contains("+ L=8") && $0.message.contains("1 channels") }, "\(findings)")
        XCTAssertTrue(findings.contains { $0.rule == .apacConfigHostile && $0.message.contains("needing 24 bits, 6 left") }, "\(findings)")
    }

    /// A remapping array that is there: a permutation of the core is clean, an entry past the core is hostile.
    func testRemappingArrayIsReadAndItsEntriesChecked() throws {
        var edit = try ConfigurationBits(realDapa(RealFixtures.iphone).box.payload)
        let flag = try XCTUnwrap(edit.walked().components.first?.hoa?.remappingFlagBit)
        edit.set(bit: flag, width: 1, to: 1)
        edit.insert(bits: [1, 0, 3, 2].map { ($0, 2) }, at: flag + 1)
        let permuted = try edit.walked()
        XCTAssertEqual(permuted.components.first?.hoa?.remapping, [1, 0, 3, 2])
        XCTAssertTrue(APACConfigurationLint.findings(permuted).isEmpty, "\(APACConfigurationLint.findings(permuted))")

        // G=8, L=8 (3-bit entries), core 4: entry 2 names channel 6, which the decoder never has.
        var wide = try ConfigurationBits(realDapa(RealFixtures.iphone).box.payload)
        let hoa = try XCTUnwrap(wide.walked().components.first?.hoa)
        wide.set(bit: APACConfiguration.globalChannelsBit, width: 8, to: 8)
        wide.set(bit: hoa.layoutBit + 16, width: 16, to: 8)
        wide.set(bit: hoa.remappingFlagBit, width: 1, to: 1)
        wide.insert(bits: [0, 1, 6, 3, 4, 5, 6, 7].map { ($0, 3) }, at: hoa.remappingFlagBit + 1)
        let findings = APACConfigurationLint.findings(try wide.walked())
        XCTAssertEqual(findings.filter { $0.rule == .apacConfigHostile }.map(\.message).count, 1, "\(findings)")
        XCTAssertTrue(findings.contains { $0.rule == .apacConfigHostile && $0.message.contains("entry 2 is 6, outside the 4 core channels") }, "\(findings)")
        XCTAssertTrue(findings.contains { $0.rule == .apacConfigInconsistent && $0.message.contains("not (order+1)² = 4") }, "\(findings)")
    }

    /// Inconsistent but inside the stream: warnings, never the error.
    func testOddLayoutsAreWarnings() throws {
        var three = try ConfigurationBits(realDapa(RealFixtures.iphone).box.payload)
        let hoa = try XCTUnwrap(three.walked().components.first?.hoa)
        three.set(bit: hoa.layoutBit + 16, width: 16, to: 3)
        XCTAssertEqual(APACConfigurationLint.findings(try three.walked()).map(\.rule), [.apacConfigInconsistent])

        var wide = try ConfigurationBits(realDapa(RealFixtures.iphone).box.payload)
        wide.set(bit: APACConfiguration.globalChannelsBit, width: 8, to: 25)
        wide.set(bit: hoa.layoutBit + 16, width: 16, to: 25)
        let findings = APACConfigurationLint.findings(try wide.walked())
        XCTAssertEqual(findings.map(\.rule), [.apacConfigInconsistent, .apacConfigInconsistent], "\(findings)")
        XCTAssertTrue(findings.contains { $0.message.contains("more than 16 channels") })
    }

    /// Every prefix and every single-bit flip of both real configurations walks to a value or a
    /// KeepTrackError: every read is bounded by the bytes (a trap would end the test process).
    func testEveryPrefixAndBitFlipIsBounded() throws {
        for path in RealFixtures.all {
            let payload = try realDapa(path).box.payload
            for length in 0...payload.count {
                do { _ = APACConfigurationLint.findings(try APACConfiguration(dapaPayload: Array(payload.prefix(length)))) }
                catch is KeepTrackError { XCTAssertLessThan(length, 4 + 6) }
            }
            for bit in 32..<(payload.count * 8) {
                var flipped = payload
                flipped[bit / 8] ^= 0x80 >> UInt8(bit % 8)
                _ = APACConfigurationLint.findings(try APACConfiguration(dapaPayload: flipped))
            }
        }
    }

    /// The whole path on a movie: a copy of the AVAssetWriter file whose dapa says L=65535 with a remapping
    /// flag (same size, patched) fails lint with the CVE named in the JSON; inspect shows the fields.
    func testLintOfAMovieWithAHostileConfiguration() throws {
        let (_, box) = try realDapa(RealFixtures.avAssetWriter)
        var edit = ConfigurationBits(box.payload)
        let hoa = try XCTUnwrap(edit.walked().components.first?.hoa)
        edit.set(bit: hoa.layoutBit + 16, width: 16, to: 0xFFFF)
        edit.set(bit: hoa.remappingFlagBit, width: 1, to: 1)
        let folder = TemporaryFolder()
        let path = folder.path("hostile.mp4")
        var bytes = try fileBytes(RealFixtures.avAssetWriter)
        let start = Int(box.payloadOffset)
        bytes.replaceSubrange(start..<(start + edit.payload.count), with: edit.payload)
        try bytes.write(to: URL(fileURLWithPath: path))

        let result = runCLI(["lint", "--json", path])
        XCTAssertEqual(result.code, 1, result.out + result.error)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        let hostile = findings.filter { $0["rule"] as? String == "apac-config-hostile" }
        XCTAssertFalse(hostile.isEmpty, result.out)
        XCTAssertTrue(hostile.allSatisfy { ($0["message"] as? String)?.contains("CVE-2025-31200") == true && $0["severity"] as? String == "error" }, result.out)

        let inspect = runCLI(["inspect", "--json", path])
        XCTAssertTrue(inspect.out.contains("\"layoutChannels\" : 65535") || inspect.out.contains("\"layoutChannels\": 65535"), inspect.out)
        let clean = runCLI(["inspect", "--json", RealFixtures.iphone]).out
        XCTAssertTrue(clean.contains("\"globalChannels\""), clean)
    }

    /// The fuzz seed (Fuzz/make-seeds.sh) is a bare dapa box: the fuzz targets send it to the walk alone.
    func testFuzzSeedReachesTheWalk() throws {
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/seeds/dapa-hoa.bin")
        let bytes = [UInt8](try Data(contentsOf: seed))
        XCTAssertTrue(FuzzTargets.isAPACConfigurationBox(bytes))
        let walked = try APACConfiguration(dapaPayload: Array(bytes[8...]))
        XCTAssertEqual(walked.components.first?.hoa?.remapping, [1, 0, 3, 2])
        XCTAssertTrue(FuzzTargets.exercise(bytes).isEmpty)
    }

    /// No wild movie is flagged (none was made to attack a decoder).
    func testWildMoviesAreClean() throws {
        let folder = try RealFixtures.require(WildCorpusTests.folder.path)
        var linted = 0
        for file in try WildCorpusTests.files(in: folder) {
            guard let movie = try? Movie(source: FileByteSource(path: folder + "/" + file)) else { continue }
            linted += 1
            for track in movie.tracks {
                XCTAssertTrue(APACConfigurationLint.findings(track).isEmpty, file)
            }
            XCTAssertFalse(Linter.lint(movie).contains { $0.rule.id.hasPrefix("apac-config") }, file)
        }
        XCTAssertGreaterThan(linted, 20)
    }
}

/// A `dapa` payload edited at bit positions of its configuration stream (which starts after the 4 bytes
/// of version and flags).
struct ConfigurationBits {
    var payload: [UInt8]
    init(_ payload: [UInt8]) { self.payload = payload }

    func walked() throws -> APACConfiguration { try APACConfiguration(dapaPayload: payload) }

    private var bits: [Int] {
        get { payload.flatMap { byte in (0..<8).map { Int(byte >> (7 - $0) & 1) } } }
        set {
            let padded = newValue + Array(repeating: 0, count: (8 - newValue.count % 8) % 8)
            payload = stride(from: 0, to: padded.count, by: 8).map { start in padded[start..<(start + 8)].reduce(0) { $0 << 1 | UInt8($1) } }
        }
    }

    mutating func set(bit: Int, width: Int, to value: Int) {
        var all = bits
        for index in 0..<width { all[32 + bit + index] = value >> (width - 1 - index) & 1 }
        bits = all
    }

    /// Inserts fields (value, width) at a stream bit; the stream grows (zero-padded to a byte).
    mutating func insert(bits fields: [(Int, Int)], at bit: Int) {
        var all = bits
        let inserted = fields.flatMap { value, width in (0..<width).map { value >> (width - 1 - $0) & 1 } }
        all.insert(contentsOf: inserted, at: 32 + bit)
        bits = all
    }

    /// Ends the stream at the byte holding `bit` (the rest of that byte zero).
    mutating func truncate(afterBit bit: Int) {
        var all = Array(bits.prefix(32 + bit + 1))
        all += Array(repeating: 0, count: (8 - all.count % 8) % 8)
        bits = all
    }
}
