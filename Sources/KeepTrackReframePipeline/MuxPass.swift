import Foundation
import KeepTrack
import KeepTrackCodec
import KeepTrackFraming

extension Reframer {
    /// The mux: the new video track in the old one's place (same track id), every other kept track byte for
    /// byte, read back like every other write (tracks, sample tables, placement and the movie's own boxes).
    /// Returns the write's summary and the ids of the tracks written.
    static func mux(movie: Movie, tracks: ReframeTracks, codec: VideoEncoder.Codec, extradata: [UInt8], colour: VideoEncoder.Colour?,
                    outputSize: PixelSize, samples: [EncodedVideoSample], frameTimes: [Double],
                    data dataFile: OutputFile, into destination: OutputFile) throws -> (written: MovieOutput.Summary, keptTracks: [UInt32]) {
        let video = tracks.video
        let configuration = codec == .h264
            ? try VideoParameterSets.avcConfiguration(annexB: extradata)
            : try VideoParameterSets.hevcConfiguration(annexB: extradata)
        var colourBox: ColourInformationBox?
        if let colour {
            var box = ColourInformationBox()
            box.primaries = UInt16(colour.primaries)
            box.transfer = UInt16(colour.transfer)
            box.matrixCoefficients = UInt16(colour.matrix)
            box.rangeByte = colour.fullRange ? 0x80 : 0
            colourBox = box
        }
        let sampleEntry = try EncodedVideoTrack.sampleEntry(format: codec == .h264 ? "avc1" : "hvc1", configuration: configuration,
                                                        width: outputSize.width, height: outputSize.height, colour: colourBox,
                                                        compressorName: codec == .h264 ? "keeptrack x264" : "keeptrack x265")
        let lastDuration = lastFrameDuration(video: video, times: frameTimes)
        let built = try EncodedVideoTrack(source: video, sampleEntry: sampleEntry, width: outputSize.width, height: outputSize.height,
                                          samples: samples, lastSampleDuration: lastDuration).build()
        let replacement = OutputTrack(trak: built.trak, table: built.table, data: try FileByteSource(path: dataFile.temporaryPath),
                                      timescale: video.mediaHeader.timescale)
        var writer = MovieWriter(passingThrough: movie)
        writer.tracks = tracks.outputTracks(in: movie, video: replacement)
        let written = try MovieOutput.write(writer, into: destination, options: MovieOutput.Options())
        let kept = writer.tracks.compactMap { try? TrackHeaderBox(box: $0.trak.first("tkhd")!).trackID }
        return (written, kept)
    }

    /// The last frame shows as long as the last step between two different frame times (or the track's nominal
    /// frame duration). Two frames at the same time at the end (ffmpeg's frag_every_frame seed) once gave the
    /// last frame one tick, and the edit ended before the frames at that time were shown.
    static func lastFrameDuration(video: Track, times: [Double]) -> UInt32 {
        let timescale = Double(max(video.mediaHeader.timescale, 1))
        if let step = zip(times.dropFirst(), times).lazy.map({ $0 - $1 }).reversed().first(where: { $0 > 0 }) {
            return UInt32(clamping: max(1, Int64((step * timescale).rounded())))
        }
        return UInt32(max(1, (timescale / (video.video?.frameRate ?? 30)).rounded()))
    }
}
