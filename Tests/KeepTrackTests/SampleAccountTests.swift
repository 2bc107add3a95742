import Foundation
import XCTest
@testable import KeepTrack

/// Three losses an outside sweep found where remux said "verified": an init segment lost `mvex`, an
/// unknown track duration became the movie's, and a defragmented `sdtp` lost its first byte. And the
/// independent account (`SampleAccount`) that the write verification and `compare` now add, shown to
/// catch each kind of damage the old checks let through.
final class SampleAccountTests: XCTestCase {
    static func ffmpeg(_ arguments: [String]) throws {
        guard let result = runTool("ffmpeg", ["-v", "error", "-y"] + arguments), result.code == 0 else {
            throw unavailable("ffmpeg is not installed or failed: \(arguments.joined(separator: " "))")
        }
    }

    static func packetCount(_ bytes: Data, in folder: TemporaryFolder, name: String) throws -> Int? {
        let path = folder.path(name)
        try bytes.write(to: URL(fileURLWithPath: path))
        guard let result = runTool("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path]),
              result.code == 0 else { return nil }
        return result.out.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
    }

    static func read(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// ffmpeg's DASH and HLS (fMP4) init segments: remux keeps them init segments, so they still
    /// initialise their media segments for ffprobe (it failed with "trun track id unknown" before).
    func testRemuxedInitSegmentsStillInitialiseTheirSegments() throws {
        let folder = TemporaryFolder()
        let source = ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=3", "-c:v", "libx264", "-g", "30"]
        try FileManager.default.createDirectory(atPath: folder.path("dash"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path("hls"), withIntermediateDirectories: true)
        try Self.ffmpeg(source + ["-f", "dash", "-seg_duration", "1", "-init_seg_name", "init.m4s",
                                  "-media_seg_name", "seg-$Number$.m4s", folder.path("dash/m.mpd")])
        try Self.ffmpeg(source + ["-f", "hls", "-hls_segment_type", "fmp4", "-hls_time", "1", "-hls_fmp4_init_filename", "init.mp4",
                                  "-hls_segment_filename", folder.path("hls/seg-%d.m4s"), folder.path("hls/m.m3u8")])
        for (name, initName, pattern) in [("dash", "init.m4s", "seg-"), ("hls", "init.mp4", "seg-")] {
            let dir = folder.path(name)
            let segments = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(pattern) }
                .sorted { Int($0.filter(\.isNumber))! < Int($1.filter(\.isNumber))! }
            XCTAssertGreaterThanOrEqual(segments.count, 3, name)
            var media = Data()
            for segment in segments { media += try Self.read(dir + "/" + segment) }
            let initPath = dir + "/" + initName, remuxed = folder.path("\(name)-remuxed.mp4")
            let expected = try Self.packetCount(try Self.read(initPath) + media, in: folder, name: "\(name)-original.mp4")
            XCTAssertEqual(expected, 90, name)
            let run = runCLI(["remux", initPath, remuxed])
            XCTAssertEqual(run.code, 0, "\(name): \(run.error)")
            XCTAssertEqual(try Self.packetCount(try Self.read(remuxed) + media, in: folder, name: "\(name)-joined.mp4"), expected, name)
            XCTAssertEqual(runCLI(["compare", initPath, remuxed]).code, 0, name)
            let movie = try Movie.open(path: remuxed)
            XCTAssertNotNil(movie.moov.first("mvex")?.first("trex"), name)
        }
    }

    /// mp4ff's init segments: mvex, mvhd (duration 0, tracks all ones) and the trailing sidx, which
    /// counts from its own end, stay as they were; compare finds the copy identical.
    func testWildInitSegmentsKeepMvexDurationAndTrailingIndex() throws {
        let folder = TemporaryFolder()
        for name in ["init.mp4", "init_with_colr.mp4"] {
            let path = try FragmentedTests.wildPath("eyevinn-mp4ff/" + name)
            let output = folder.path(name)
            let run = runCLI(["remux", path, output])
            XCTAssertEqual(run.code, 0, run.error)
            let (source, copy) = (try Movie.open(path: path), try Movie.open(path: output))
            XCTAssertEqual(copy.moov.first("mvhd")?.payload, source.moov.first("mvhd")?.payload, name)
            XCTAssertEqual(copy.moov.first("mvex")?.payload, source.moov.first("mvex")?.payload, name)
            XCTAssertEqual(copy.boxes.last?.type, "sidx", name)
            XCTAssertEqual(copy.boxes.last?.payload, source.boxes.last?.payload, name)
            XCTAssertFalse(run.error.contains("dropped sidx"), run.error)
            let compare = runCLI(["compare", path, output])
            XCTAssertEqual(compare.code, 0, compare.out)
            let durations = try [path, output].map { file -> String in
                guard let probe = runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]) else {
                    throw unavailable("ffprobe is not installed")
                }
                return probe.out
            }
            XCTAssertEqual(durations[0], durations[1], name)
            XCTAssertFalse(durations[1].hasPrefix("-"), name)
        }
    }

    /// An unknown track duration (all ones: no samples anywhere) says nothing about the movie's.
    func testUnknownTrackDurationLeavesMovieDurationAlone() throws {
        let path = try FragmentedTests.wildPath("eyevinn-mp4ff/init.mp4")
        let movie = try Movie.open(path: path)
        let mvhd = try XCTUnwrap(movie.moov.first("mvhd"))
        let trak = try XCTUnwrap(movie.moov.first("trak"))
        XCTAssertTrue(try TrackHeaderBox(box: XCTUnwrap(trak.first("tkhd"))).durationIsUnknown)
        XCTAssertEqual(try MovieWriter.movieHeader(mvhd, lastingAsLongAs: [trak]).payload, mvhd.payload)
    }

    /// Extracting one track of a two-track init segment keeps that track's trex, and only it.
    func testExtractFromInitSegmentKeepsItsTrex() throws {
        let folder = TemporaryFolder()
        let fragmented = try FragmentedTests.makeFlavour("empty_moov", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov"], in: folder)
        let movie = try Movie.open(path: fragmented)
        let moov = try XCTUnwrap(movie.boxes.first { $0.type == "moov" })
        let initPath = folder.path("init.mp4")
        try Self.read(fragmented).prefix(Int(moov.offset + moov.size)).write(to: URL(fileURLWithPath: initPath))
        XCTAssertEqual(try Movie.open(path: initPath).moov.first("mvex")?.all("trex").count, 2)
        let audio = try XCTUnwrap(movie.tracks.first(where: { $0.handler.handlerType == "soun" }))
        let output = folder.path("audio.mp4")
        let run = runCLI(["extract", initPath, output, "--track", String(audio.id)])
        XCTAssertEqual(run.code, 0, run.error)
        let trex = try XCTUnwrap(try Movie.open(path: output).moov.first("mvex")).all("trex").map { try TrackExtendsBox(box: $0) }
        XCTAssertEqual(trex.map(\.trackID), try Movie.open(path: output).tracks.map(\.id))
    }

    /// Every ffmpeg fragmenting flavour, defragmented: sdtp's first byte is the first sample's
    /// dependencies from its trun flags (it was 0, "unknown"), and the independent account agrees
    /// sample by sample with the source.
    func testDefragmentingKeepsFirstSampleDependencies() throws {
        let folder = TemporaryFolder()
        var checked = 0
        for flavour in FragmentedTests.flavours {
            let path = try FragmentedTests.makeFlavour(flavour.name, ext: flavour.ext, arguments: flavour.arguments, in: folder)
            let output = folder.path("out-" + flavour.name.replacingOccurrences(of: "+", with: "_") + "." + flavour.ext)
            let run = runCLI(["remux", path, output])
            XCTAssertEqual(run.code, 0, "\(flavour.name): \(run.error)")
            let (source, copy) = (try SampleAccount(source: FileByteSource(path: path)), try SampleAccount(source: FileByteSource(path: output)))
            for (id, track) in source.tracks {
                XCTAssertNil(SampleAccount.difference(track, try XCTUnwrap(copy.tracks[id]), nameA: "source", nameB: "copy"), flavour.name)
            }
            let video = try XCTUnwrap(try Movie.open(path: output).tracks.first(where: { $0.handler.handlerType == "vide" }))
            if let sdtp = video.box.find(["mdia", "minf", "stbl", "sdtp"]), let first = source.tracks[video.id]?.runs.first?.sample {
                XCTAssertEqual(sdtp.payload.dropFirst(4).first, first.dependencies, flavour.name)
                // frag_keyframe without empty_moov keeps the first fragment's samples in moov, without sdtp.
                if first.dependencies != 0 { checked += 1 }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 6)
    }

    // MARK: The independent account catches what the old checks let through

    /// A writer whose planned tables were damaged on purpose (as a bug in the reader that built them
    /// would): the planned and written tables agree, so only the independent reading can tell.
    func assertCaught(_ path: String, _ damage: (inout MovieWriter) throws -> Void, expecting words: String,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = TemporaryFolder()
        let movie = try Movie.open(path: path)
        var writer = MovieWriter(passingThrough: movie)
        try damage(&writer)
        XCTAssertThrowsError(try MovieOutput.write(writer, to: folder.path("damaged.mp4"), inputs: [path], options: MovieOutput.Options()),
                             file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(words), "\(error)", file: file, line: line)
        }
        // The same damage written without verification: compare reads both files independently too.
        var options = MovieOutput.Options()
        options.verify = false
        _ = try MovieOutput.write(writer, to: folder.path("unverified.mp4"), inputs: [path], options: options)
        let comparison = try MovieComparison(movie, try Movie.open(path: folder.path("unverified.mp4")))
        if !words.contains("mvex") {
            XCTAssertTrue(comparison.differences.contains { $0.contains("read independently") }, "\(comparison.differences)", file: file, line: line)
        } else {
            XCTAssertFalse(comparison.isIdentical, file: file, line: line)
        }
    }

    /// Rebuilds one defragmented track's trak and table from a damaged table, as a bug in the reading
    /// of its fragments would: the planned and the written tables then agree with each other.
    static func damageTable(_ writer: inout MovieWriter, handler: FourCC, in movie: Movie, _ change: (inout SampleTable) -> Void) throws {
        let index = movie.tracks.firstIndex(where: { $0.handler.handlerType == handler })!
        let track = movie.tracks[index]
        var table = track.sampleTable
        change(&table)
        var damaged = try OutputTrack(trak: track.box, rebuilding: table, timing: XCTUnwrap(track.defragmentedTiming), groups: nil,
                                      data: movie.source, timescale: track.mediaHeader.timescale)
        damaged.sampleFactsSource = track.id
        writer.tracks[index] = damaged
    }

    /// `table` with other sync samples or composition offsets (the fields are constants).
    static func table(_ table: SampleTable, syncSamples: [UInt32]?? = nil, compositionOffsets: [UInt32]? = nil) -> SampleTable {
        var result = SampleTable(sampleCount: table.sampleCount, sizes: table.sizes, constantSize: table.constantSize,
                                 chunkOffsets: table.chunkOffsets, sampleToChunk: table.sampleToChunk, timeToSample: table.timeToSample,
                                 compositionOffsets: compositionOffsets ?? table.compositionOffsets,
                                 compositionOffsetsSigned: table.compositionOffsetsSigned,
                                 syncSamples: syncSamples ?? table.syncSamples, usesLargeOffsets: table.usesLargeOffsets)
        result.boxOffsets = table.boxOffsets
        result.dependencies = table.dependencies
        result.firstDecodeTime = table.firstDecodeTime
        return result
    }

    func testIndependentAccountCatchesDamagedDependencies() throws {
        let folder = TemporaryFolder()
        let path = try FragmentedTests.makeFlavour("cmaf", ext: "mp4", arguments: ["-movflags", "cmaf"], in: folder)
        let movie = try Movie.open(path: path)
        try assertCaught(path, { writer in
            try Self.damageTable(&writer, handler: "vide", in: movie) { $0.dependencies[0] = 0 }
        }, expecting: "dependencies (sdtp) 0x20 in the source, 0x00 in the output")
    }

    func testIndependentAccountCatchesADroppedSyncSample() throws {
        let folder = TemporaryFolder()
        let path = try FragmentedTests.makeFlavour("frag", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov"], in: folder)
        let movie = try Movie.open(path: path)
        try assertCaught(path, { writer in
            try Self.damageTable(&writer, handler: "vide", in: movie) { $0 = Self.table($0, syncSamples: .some($0.syncSamples.map { Array($0.dropLast()) })) }
        }, expecting: "a sync sample in the source only")
    }

    func testIndependentAccountCatchesAChangedCompositionOffset() throws {
        let folder = TemporaryFolder()
        let path = try FragmentedTests.makeFlavour("frag", ext: "mp4", arguments: ["-movflags", "frag_keyframe+empty_moov"], in: folder)
        let movie = try Movie.open(path: path)
        try assertCaught(path, { writer in
            try Self.damageTable(&writer, handler: "vide", in: movie) { table in
                // Split the first run of offsets and give its first sample one more tick.
                let (count, offset) = (table.compositionOffsets[0], table.compositionOffsets[1])
                table = Self.table(table, compositionOffsets: [1, offset &+ 1] + (count > 1 ? [count - 1, offset] : []) + table.compositionOffsets.dropFirst(2))
            }
        }, expecting: "composition offset")
    }

    func testIndependentAccountCatchesADroppedMvex() throws {
        let path = try FragmentedTests.wildPath("eyevinn-mp4ff/init_with_colr.mp4")
        try assertCaught(path, { writer in writer.defragments = true }, expecting: "mvex/trex is missing")
    }

    // MARK: Sweep: tables rebuilt by trim

    /// Trim rebuilds every table for the kept samples: each output track's samples, read independently,
    /// are one run of the source's with every fact kept (a sample's duration aside where the range cuts it:
    /// the last one, and a timed-metadata sample spanning the start).
    func testTrimmedSamplesKeepEveryFactOfTheSource() throws {
        let folder = TemporaryFolder()
        let grouped = try FragmentSampleGroupTests.makeGroupedMovie(folder).path
        let inputs = [try RealFixtures.require(RealFixtures.iphone), try RealFixtures.require(RealFixtures.avAssetWriter), grouped,
                      try FragmentedTests.makeFlavour("cmaf", ext: "mp4", arguments: ["-movflags", "cmaf"], in: folder),
                      try FragmentedTests.makeFlavour("negative_cts", ext: "mp4",
                                                      arguments: ["-use_editlist", "0", "-movflags", "frag_keyframe+empty_moov+negative_cts_offsets"], in: folder)]
        for (number, input) in inputs.enumerated() {
            let output = folder.path("trim-\(number).mp4")
            let range = input.hasSuffix("avassetwriter-apac.mp4") ? ["0.1", "0.25"] : ["0.9", "2.1"]
            let run = runCLI(["trim", input, output, "--start", range[0], "--end", range[1]])
            XCTAssertEqual(run.code, 0, "\(input): \(run.error)")
            let (source, copy) = (try SampleAccount(source: FileByteSource(path: input)), try SampleAccount(source: FileByteSource(path: output)))
            for (id, trimmed) in copy.tracks {
                let original = try XCTUnwrap(source.tracks[id]).expandedSamples(), kept = trimmed.expandedSamples()
                XCTAssertFalse(kept.isEmpty, "\(input) track \(id)")
                let groupsA = try XCTUnwrap(source.tracks[id])
                let found = (0...max(0, original.count - kept.count)).first { start in
                    zip(original[start...], kept).enumerated().allSatisfy { index, pair in
                        let (x, y) = pair
                        return x.size == y.size && x.compositionOffset == y.compositionOffset && x.isSync == y.isSync
                            && x.dependencies == y.dependencies && x.descriptionIndex == y.descriptionIndex
                            && groupsA.groups(of: x) == trimmed.groups(of: y)
                            && (x.duration == y.duration || index == 0 || index == kept.count - 1)
                    }
                }
                XCTAssertNotNil(found, "\(input) track \(id): the trimmed samples are no run of the source's")
            }
        }
    }

    // MARK: Sweep: flatten-stereo's rebuilt sizes

    /// flatten-stereo keeps each sample's base layer: read independently, the video's samples have new
    /// sizes and every other fact of the source's (the write verification checks the same, sizes aside).
    func testFlattenedStereoKeepsEveryFactButTheSizes() throws {
        let folder = TemporaryFolder()
        for name in ["androidx-media/water_180_mvhevc_5frames.mov", "eyevinn-mp4ff/stereo_spatial.mp4"] {
            let input = try FragmentedTests.wildPath(name)
            let output = folder.path(name.replacingOccurrences(of: "/", with: "-"))
            let run = runCLI(["flatten-stereo", input, output])
            XCTAssertEqual(run.code, 0, "\(name): \(run.error)")
            let (source, copy) = (try SampleAccount(source: FileByteSource(path: input)), try SampleAccount(source: FileByteSource(path: output)))
            let video = try XCTUnwrap(try Movie.open(path: input).tracks.first(where: { $0.handler.handlerType == "vide" })).id
            let (a, b) = (try XCTUnwrap(source.tracks[video]), try XCTUnwrap(copy.tracks[video]))
            XCTAssertNil(SampleAccount.difference(a, b, nameA: "source", nameB: "copy", sizes: false), name)
            XCTAssertNotNil(SampleAccount.difference(a, b, nameA: "source", nameB: "copy"), "\(name): the base layers are smaller")
        }
    }
}
