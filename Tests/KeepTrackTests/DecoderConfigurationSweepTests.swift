import Foundation
import XCTest
@testable import KeepTrack
@testable import KeepTrackCodec
import KeepTrackFixtures

/// The codec layer's inputs swept (issue 15): the decoder configuration of every decodable track of
/// the third-party movies (wild/) and of the real iPhone recordings — avcC, hvcC, AudioSpecificConfig,
/// the alac box, Vorbis headers, as `DecoderConfiguration` hands them to libavcodec — is truncated at
/// up to 64 lengths and damaged at up to 32 bytes (all of them in short ones) (0x00, 0xFF, one bit flipped: counts and lengths that lie),
/// each opened with `avcodec_open2` and given the track's first packet; then the first packet itself
/// is truncated and damaged under the intact configuration. Every outcome must be a decoder or a
/// typed error: a trap or a memory error ends the test process, which is what the sweep looks for.
final class DecoderConfigurationSweepTests: XCTestCase {
    struct Outcomes {
        var opened = 0
        var refused = 0
        var decodeErrors = 0
        var untyped: [String] = []

        /// Opens `configuration` and decodes `packet` with it; records how that ended.
        mutating func run(_ configuration: DecoderConfiguration, _ packet: Packet?, _ label: @autoclosure () -> String) {
            let decoder: CodecDecoder
            do {
                decoder = try CodecDecoder(configuration)
                opened += 1
            } catch is CodecError { refused += 1; return } catch is KeepTrackError { refused += 1; return } catch {
                untyped.append("\(label()): open: \(error)"); return
            }
            guard let packet else { return }
            do {
                try decoder.decode(packet) { _ in }
                try decoder.finish { _ in }
            } catch is CodecError { decodeErrors += 1 } catch is KeepTrackError { decodeErrors += 1 } catch {
                untyped.append("\(label()): decode: \(error)")
            }
        }
    }

    /// Up to `limit` positions in 0..<count, evenly spread, always including the first 16.
    static func positions(_ count: Int, limit: Int) -> [Int] {
        guard count > limit else { return Array(0..<count) }
        let head = Array(0..<min(16, count))
        let step = Double(count - 16) / Double(limit - 16)
        return head + (0..<(limit - 16)).map { 16 + Int(Double($0) * step) }
    }

    /// The movies: every file of wild/ and the two real recordings beside the checkout.
    static func movies() throws -> [String] {
        let wild = RealFixtures.folder.appendingPathComponent("wild")
        guard let files = FileManager.default.enumerator(atPath: wild.path) else {
            throw unavailable("\(wild.path) not found: ../shared/fixtures is absent beside this checkout")
        }
        let movies = files.compactMap { $0 as? String }.filter { !$0.hasSuffix(".md") && !$0.hasSuffix("/") }
            .map { wild.appendingPathComponent($0).path }
            .filter { var isFolder: ObjCBool = false; return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && !isFolder.boolValue }
        return try movies.sorted() + RealFixtures.all.map(RealFixtures.require)
    }

    func testDamagedConfigurationsAndFirstPacketsEndInADecoderOrATypedError() throws {
        var outcomes = Outcomes()
        var seen = Set<[UInt8]>()
        var codecs = Set<String>()
        for path in try Self.movies() {
            guard let movie = try? Movie(source: MemoryByteSource(Array(try Data(contentsOf: URL(fileURLWithPath: path))))) else { continue }
            for track in movie.tracks {
                guard let configuration = try? DecoderConfiguration.make(for: track),
                      (try? CodecDecoder(configuration)) != nil else { continue }
                // One sweep per distinct configuration (the same encoder's avcC recurs across files).
                guard seen.insert(Array(configuration.codecName.utf8) + [0] + configuration.extradata).inserted else { continue }
                codecs.insert(configuration.codecName)
                var reader = TrackPacketReader(track: track, source: movie.source, bytesPerFrame: configuration.bytesPerFrame)
                let first = try? reader.nextPacket()
                // Decoding a big first picture under every damaged configuration costs seconds: then every 16th.
                let decodeAll = (first?.bytes.count ?? 0) <= 4_096
                let name = "\(URL(fileURLWithPath: path).lastPathComponent) track \(track.id) \(configuration.codecName)"
                let extradata = configuration.extradata
                var variant = 0
                func sweep(_ damaged: [UInt8], _ label: @autoclosure () -> String) {
                    var changed = configuration
                    changed.extradata = damaged
                    variant += 1
                    outcomes.run(changed, decodeAll || variant % 16 == 0 ? first : nil, "\(name): \(label())")
                }
                for length in Self.positions(extradata.count, limit: 64) {
                    sweep(Array(extradata.prefix(length)), "extradata cut to \(length) bytes")
                }
                for at in Self.positions(extradata.count, limit: 32) {
                    for (kind, value) in [("0x00", UInt8(0)), ("0xFF", 0xFF), ("bit flip", extradata[at] ^ UInt8(1 << (at % 8)))] {
                        var damaged = extradata
                        damaged[at] = value
                        sweep(damaged, "extradata byte \(at) set to \(kind)")
                    }
                }
                guard let first, !first.bytes.isEmpty else { continue }
                // The first packet, under the intact configuration: cut short, and damaged where
                // NAL lengths, frame headers and sync words sit (the start) and spread over the rest.
                for length in Self.positions(first.bytes.count, limit: 16) {
                    var packet = first
                    packet.bytes = Array(first.bytes.prefix(length))
                    outcomes.run(configuration, packet, "\(name): first packet cut to \(length) bytes")
                }
                for at in Self.positions(first.bytes.count, limit: 16) {
                    for value in [UInt8(0), 0xFF, first.bytes[at] ^ 0x80] {
                        var packet = first
                        packet.bytes[at] = value
                        outcomes.run(configuration, packet, "\(name): first packet byte \(at) set to \(value)")
                    }
                }
            }
        }
        print("decoder configuration sweep: \(seen.count) configurations (\(codecs.sorted().joined(separator: ", "))): "
              + "\(outcomes.opened) opened, \(outcomes.refused) refused, \(outcomes.decodeErrors) decode errors")
        XCTAssertEqual(outcomes.untyped, [])
        // The sweep reached libavcodec with every family of configuration the movies carry.
        XCTAssertTrue(codecs.isSuperset(of: ["H.264", "HEVC", "AAC", "ALAC", "Opus", "AC-3", "E-AC-3"]), "\(codecs.sorted())")
        XCTAssertGreaterThan(outcomes.opened, 1000, "damaged configurations libavcodec accepted")
        XCTAssertGreaterThan(outcomes.refused, 100, "damaged configurations refused as CodecError")
        XCTAssertGreaterThan(outcomes.decodeErrors, 10, "damaged packets reported as decode errors")
    }

    /// Sample-entry and media-header fields that do not fit what libavcodec takes (an `Int32` sample
    /// rate, channel count, block size) are a refusal naming the value, not a trap in the codec layer:
    /// an audio track whose sample entry rate is 0 falls back to its mdhd time scale, here 0xFFFFFFFF
    /// (third-party sowt movie, patched); a SoundDescription v2 channel count of 0xFFFFFFFF (LPCM fixture).
    func testFieldsThatDoNotFitLibavcodecAreRefusedNotTrapped() throws {
        let sowt = try RealFixtures.require(RealFixtures.folder.appendingPathComponent("wild/androidx-media/sowt-with-video.mov").path)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: sowt)))
        let movie = try Movie(source: MemoryByteSource(bytes))
        let audio = try XCTUnwrap(movie.tracks.first { $0.kind == .audio && $0.format == "sowt" })
        let trak = try XCTUnwrap(movie.moov.children.filter { $0.type == "trak" }.first { trak in
            trak.first("tkhd").map { $0.payload.count > 16 && Array($0.payload[($0.payload[0] == 1 ? 20 : 12)..<($0.payload[0] == 1 ? 24 : 16)]) == bigEndian(audio.id) } ?? false
        })
        let mdhd = try XCTUnwrap(trak.first("mdia")?.first("mdhd"))
        let timescaleAt = Int(mdhd.payloadOffset) + (mdhd.payload[0] == 1 ? 20 : 12)
        bytes.replaceSubrange(timescaleAt..<timescaleAt + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let entry = try XCTUnwrap(audio.sampleEntries.first)
        let rateAt = Int(entry.payloadOffset) + 24 // SampleEntry 8, version 2, revision 2, vendor 4, channels 2, size 2, compression 2, packet 2
        bytes.replaceSubrange(rateAt..<rateAt + 4, with: [0, 0, 0, 0])
        let patched = try XCTUnwrap(Movie(source: MemoryByteSource(bytes)).tracks.first { $0.id == audio.id })
        XCTAssertEqual(patched.mediaHeader.timescale, 0xFFFF_FFFF)
        assertRefused(try DecoderConfiguration.make(for: patched), mentioning: "sample rate 4294967295")

        var options = try XCTUnwrap(FixtureOptions.variant("lpcm-spatial"))
        options.duration = 0.1
        options.videoFrameBytes = 16
        let folder = TemporaryFolder()
        var fixture = Array(try fileBytes(try FixtureBuilder(options).write(to: folder.path("lpcm.mov"))))
        let lpcm = try XCTUnwrap(Movie(source: MemoryByteSource(fixture)).tracks.first { $0.format == "lpcm" && $0.audioEntry?.version == 2 })
        let lpcmEntry = try XCTUnwrap(lpcm.sampleEntries.first)
        let channelsAt = Int(lpcmEntry.payloadOffset) + 40 // v2: sizeOfStructOnly at 28, the float64 rate at 32, channels at 40
        fixture.replaceSubrange(channelsAt..<channelsAt + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let lying = try XCTUnwrap(Movie(source: MemoryByteSource(fixture)).tracks.first { $0.id == lpcm.id })
        XCTAssertEqual(lying.audioEntry?.audioChannels, 0xFFFF_FFFF)
        assertRefused(try DecoderConfiguration.make(for: lying), mentioning: "4294967295 channels")
    }

    func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// The configuration is refused before libavcodec sees it: by `make` or by the decoder's open.
    func assertRefused(_ make: @autoclosure () throws -> DecoderConfiguration, mentioning text: String, line: UInt = #line) {
        do {
            let configuration = try make()
            _ = try CodecDecoder(configuration)
            XCTFail("opened a decoder with \(text)", line: line)
        } catch let error as CodecError {
            XCTAssertTrue("\(error)".contains(text), "\(error)", line: line)
        } catch {
            XCTFail("\(error)", line: line)
        }
    }
}
