import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// `esds` and its AudioSpecificConfig: escape values, program config elements, SBR/PS, and the
/// channel count the track model reports when the sample entry disagrees.
final class AudioSpecificConfigTests: XCTestCase {
    /// Packs fields most significant bit first, as AudioSpecificConfig is written.
    struct BitWriter {
        var bits: [Bool] = []
        mutating func put(_ value: Int, _ width: Int) {
            for shift in stride(from: width - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        var bytes: [UInt8] {
            stride(from: 0, to: bits.count, by: 8).map { start in
                (0..<8).reduce(UInt8(0)) { byte, index in
                    byte << 1 | (start + index < bits.count && bits[start + index] ? 1 : 0)
                }
            }
        }
    }

    func testLowComplexityStereo() throws {
        let config = try AudioSpecificConfig(bytes: [0x11, 0x90])
        XCTAssertEqual(config.audioObjectType, 2)
        XCTAssertEqual(config.samplingFrequency, 48000)
        XCTAssertEqual(config.channelConfiguration, 2)
        XCTAssertEqual(config.channels, 2)
    }

    func testEscapedObjectTypeAndExplicitFrequency() throws {
        var bits = BitWriter()
        bits.put(31, 5); bits.put(42 - 32, 6) // object type 42 (USAC) via the escape
        bits.put(15, 4); bits.put(44_056, 24) // frequency index 15: explicit 24-bit rate
        bits.put(1, 4)
        let config = try AudioSpecificConfig(bytes: bits.bytes)
        XCTAssertEqual(config.audioObjectType, 42)
        XCTAssertEqual(config.samplingFrequencyIndex, 15)
        XCTAssertEqual(config.samplingFrequency, 44_056)
        XCTAssertEqual(config.channels, 1)
    }

    func testProgramConfigElementCountsChannels() throws {
        var bits = BitWriter()
        bits.put(2, 5); bits.put(3, 4); bits.put(0, 4) // AAC-LC, 48 kHz, layout in the PCE
        bits.put(0, 1); bits.put(0, 1); bits.put(0, 1) // GASpecificConfig flags
        bits.put(0, 4); bits.put(1, 2); bits.put(3, 4) // element tag, object type, frequency index
        bits.put(2, 4); bits.put(0, 4); bits.put(1, 4); bits.put(1, 2) // 2 front, 0 side, 1 back, 1 LFE
        bits.put(0, 3); bits.put(0, 4) // assoc data, valid cc
        bits.put(0, 1); bits.put(0, 1); bits.put(1, 1); bits.put(0, 3) // matrix mixdown present
        bits.put(0, 1); bits.put(0, 4) // front: centre (SCE)
        bits.put(1, 1); bits.put(1, 4) // front: left/right (CPE)
        bits.put(1, 1); bits.put(2, 4) // back: surround pair (CPE)
        bits.put(0, 4) // LFE tag
        let config = try AudioSpecificConfig(bytes: bits.bytes)
        XCTAssertEqual(config.channelConfiguration, 0)
        XCTAssertEqual(config.channels, 6)
    }

    func testParametricStereoAndSBR() throws {
        var bits = BitWriter()
        bits.put(29, 5); bits.put(6, 4); bits.put(1, 4) // HE-AAC v2 at 24 kHz core, one coded channel
        bits.put(3, 4) // SBR output at 48 kHz
        bits.put(2, 5) // core AAC-LC
        let config = try AudioSpecificConfig(bytes: bits.bytes)
        XCTAssertEqual(config.coreObjectType, 2)
        XCTAssertEqual(config.samplingFrequency, 24000)
        XCTAssertEqual(config.outputSampleRate, 48000)
        XCTAssertEqual(config.channels, 2, "parametric stereo decodes one channel to two")
    }

    func testReservedAndTruncated() throws {
        var bits = BitWriter()
        bits.put(2, 5); bits.put(3, 4); bits.put(9, 4)
        XCTAssertNil(try AudioSpecificConfig(bytes: bits.bytes).channels, "channel configuration 9 is reserved")
        XCTAssertThrowsError(try AudioSpecificConfig(bytes: [0x11]))
        XCTAssertThrowsError(try AudioSpecificConfig(bytes: [0x10, 0x00]), "a PCE that is not there")
    }

    func testRealFixtureEsdsRoundTripsAndDecodes() throws {
        for path in RealFixtures.all {
            let movie = try Movie.open(path: RealFixtures.require(path))
            for track in movie.tracks where track.format == "mp4a" {
                let entry = try XCTUnwrap(track.sampleEntries.first)
                let box = try XCTUnwrap(entry.first("esds") ?? entry.find(["wave", "esds"]))
                let view = try ElementaryStreamDescriptorBox(box: box)
                XCTAssertEqual(try view.encoded(), box.payload)
                XCTAssertEqual(view.objectTypeIndication, 0x40)
                let config = try XCTUnwrap(view.audioSpecificConfig)
                XCTAssertEqual(config.audioObjectType, 2)
                XCTAssertEqual(config.samplingFrequency, 48000)
                XCTAssertEqual(track.audio?.channels, 2)
            }
        }
    }

    /// The esds, not the sample entry field, decides: a zero or wrong channelCount is overridden.
    func testTrackChannelsComeFromEsds() throws {
        for flavour in ["iphone", "mp4"] {
            for (entryChannels, ascByte, expected) in [(0, 0x90, 2), (6, 0x90, 2), (2, 0xB0, 6)] as [(UInt64, UInt64, Int)] {
                var movie = try MovieBytes(variant: flavour)
                let entry = try movie.box("moov/trak[2]/mdia/minf/stbl/stsd/mp4a")
                movie.setUInt(entryChannels, at: entry.payloadOffset + 16, width: 2)
                let esds = try movie.box("moov/trak[2]/mdia/minf/stbl/stsd/mp4a/esds")
                let payload = Array(movie.bytes[Int(esds.payloadOffset)..<Int(esds.offset + esds.size)])
                let asc = try XCTUnwrap((0..<payload.count - 3).first { payload[$0...$0 + 3] == [0x05, 0x02, 0x11, 0x90] }) + 3
                movie.setUInt(ascByte, at: esds.payloadOffset + UInt64(asc), width: 1)
                let folder = TemporaryFolder()
                let path = try movie.write(to: folder.path("aac.mov"))
                let track = try XCTUnwrap(Movie.open(path: path).track(id: FixtureBuilder.stereoID))
                XCTAssertEqual(track.audioEntry?.channelCount, UInt16(entryChannels))
                XCTAssertEqual(track.audio?.channels, expected, "\(flavour): entry \(entryChannels), esds byte \(ascByte)")
                let json = runCLI(["inspect", path, "--json"])
                XCTAssertTrue(json.out.contains("\"channels\": \(expected)"), json.out)
                // FFmpeg reads the same AudioSpecificConfig and must agree.
                if let probe = runTool("ffprobe", ["-v", "quiet", "-select_streams", "a:0", "-show_entries", "stream=codec_name,channels",
                                                   "-of", "csv=p=0", path]) {
                    XCTAssertEqual(probe.out.trimmingCharacters(in: .whitespacesAndNewlines), "aac,\(expected)", "ffprobe on \(flavour)")
                }
            }
        }
    }
}
