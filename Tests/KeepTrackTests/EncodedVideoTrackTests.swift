import Foundation
import XCTest
@testable import KeepTrack
import KeepTrackCodec
@testable import KeepTrackTranscode
import KeepTrackReframePipeline

final class EncodedVideoTrackTests: XCTestCase {
    /// Rebuilds the video track of an ffmpeg-made movie (H.264 with B-frames, so decode and presentation
    /// order differ) from its samples as an encoder would hand them over, writes it with two audio tracks
    /// passed through, and checks with ffprobe/ffmpeg that every frame decodes at the same time as before.
    func testRebuiltTrackPresentsEveryFrameAtTheSameTime() throws {
        try checkRebuiltTrackPresentsEveryFrameAtTheSameTime(muxerOptions: [])
    }

    /// Without an edit list a movie presents each frame at its composition time, so B-frames make the first
    /// frame late (two frames here, as in eyevinn-mp4ff's prog_8s.mp4). The rebuilt track keeps that time
    /// (an empty edit before it) and every frame to the last: it once began at 0, two frames early against
    /// the audio, and its edit ended two frames before the last frame (ffprobe counted 48 of 50).
    func testRebuiltTrackOfAMovieWithoutEditListPresentsEveryFrameAtTheSameTime() throws {
        try checkRebuiltTrackPresentsEveryFrameAtTheSameTime(muxerOptions: ["-use_editlist", "0"])
    }

    private func checkRebuiltTrackPresentsEveryFrameAtTheSameTime(muxerOptions: [String]) throws {
        let folder = TemporaryFolder()
        let source = folder.path("source.mov"), raw = folder.path("source.h264")
        let encode = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
                      "-f", "lavfi", "-i", "sine=duration=2", "-f", "lavfi", "-i", "sine=frequency=600:duration=2",
                      "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-bf", "2", "-g", "20", "-pix_fmt", "yuv420p",
                      "-c:a", "aac", "-disposition:a:1", "0"] + muxerOptions
        guard runTool("ffmpeg", encode + [source])?.code == 0,
              runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-map", "0:v", "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", raw])?.code == 0
        else { throw unavailable("ffmpeg with libx264 is not available") }
        let movie = try Movie.open(path: source)
        let video = try XCTUnwrap(movie.tracks.first { $0.kind == .video })
        XCTAssertEqual(video.editList == nil, muxerOptions.contains("-use_editlist"), "the source has an edit list only when ffmpeg wrote one")

        // The "encoder output": sample bytes back to back in a data file, presentation times as the source's
        // (an encoder is fed the source frames' times) and decode times starting before them, as libx264 does.
        let dataPath = folder.path("video.data")
        var data = Data()
        var samples: [EncodedVideoSample] = []
        let shift: Int64 = -1024
        for sample in video.sampleTable.samples {
            data.append(contentsOf: try movie.source.read(at: sample.offset, count: Int(sample.size)))
            samples.append(EncodedVideoSample(size: sample.size, decodeTime: Int64(sample.decodeTime) + shift,
                                              presentationTime: Int64(sample.decodeTime) + sample.compositionOffset,
                                              isSync: sample.isSync))
        }
        try data.write(to: URL(fileURLWithPath: dataPath))
        let configuration = try VideoParameterSets.avcConfiguration(annexB: [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
        var colour = ColourInformationBox()
        (colour.primaries, colour.transfer, colour.matrixCoefficients) = (1, 1, 1)
        let entry = try EncodedVideoTrack.sampleEntry(format: "avc1", configuration: [Box(type: "avcC", bytes: configuration)], width: 320, height: 240,
                                                  colour: colour, compressorName: "keeptrack test")
        let built = try EncodedVideoTrack(source: video, sampleEntry: entry, width: 320, height: 240, samples: samples,
                                          lastSampleDuration: 512).build()
        let trak = built.trak, table = built.table
        XCTAssertEqual(table.syncSamples?.count, samples.filter(\.isSync).count)
        XCTAssertFalse(table.compositionOffsets.isEmpty)
        var tracks = movie.tracks.map { OutputTrack($0, in: movie) }
        let videoIndex = try XCTUnwrap(movie.tracks.firstIndex { $0.kind == .video })
        tracks[videoIndex] = OutputTrack(trak: trak, table: table, data: try FileByteSource(path: dataPath), timescale: video.mediaHeader.timescale)
        var writer = MovieWriter(passingThrough: movie)
        writer.tracks = tracks
        let output = folder.path("rebuilt.mov")
        try MovieOutput.write(writer, to: output, inputs: [source], overwrite: false)

        func frameTimes(_ path: String) throws -> [String] {
            let probe = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time,key_frame",
                                                          "-of", "csv=p=0", path]))
            return probe.out.split(separator: "\n").map(String.init)
        }
        let before = try frameTimes(source), after = try frameTimes(output)
        XCTAssertEqual(before.count, 50)
        XCTAssertEqual(after, before)
        let decode = try XCTUnwrap(runTool("ffmpeg", ["-v", "error", "-xerror", "-i", output, "-f", "null", "-"]))
        XCTAssertEqual(decode.code, 0)
        let streams = try XCTUnwrap(runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,width,height,color_primaries:stream_disposition=default",
                                                        "-of", "csv=p=0", output])).out
        XCTAssertEqual(streams.split(separator: "\n").map(String.init), ["video,320,240,bt709,1", "audio,1", "audio,0"])
        // Audio samples are the source's, byte for byte.
        let rebuilt = try Movie.open(path: output)
        for (old, new) in zip(movie.tracks, rebuilt.tracks) where old.kind == .audio {
            XCTAssertEqual(new.header.isEnabled, old.header.isEnabled)
            XCTAssertEqual(new.header.alternateGroup, old.header.alternateGroup)
            let oldBytes = try old.sampleTable.samples.map { try movie.source.read(at: $0.offset, count: Int($0.size)) }
            let newBytes = try new.sampleTable.samples.map { try rebuilt.source.read(at: $0.offset, count: Int($0.size)) }
            XCTAssertEqual(oldBytes, newBytes)
        }
        let newVideo = try XCTUnwrap(rebuilt.tracks.first { $0.kind == .video })
        XCTAssertEqual(newVideo.header.matrix, TrackHeaderBox.identityMatrix)
        XCTAssertEqual(newVideo.id, video.id)
    }

    /// A sample entry holds 16-bit sizes: a larger picture is an error naming the size, not a trap.
    func testPictureTooLargeForASampleEntryIsAnError() throws {
        XCTAssertThrowsError(try EncodedVideoTrack.sampleEntry(format: "avc1", configuration: [Box(type: "avcC", bytes: [1])], width: 70_000, height: 1_080,
                                                               colour: nil, compressorName: "keeptrack test")) { error in
            XCTAssertTrue("\(error)".contains("70000x1080"), "\(error)")
        }
        let entry = try EncodedVideoTrack.sampleEntry(format: "hvc1", configuration: [Box(type: "hvcC", bytes: [1])], width: 65_535, height: 2, colour: nil, compressorName: "x")
        XCTAssertEqual(try VisualSampleEntry(decoding: entry.payload).width, 65_535)
    }
}
