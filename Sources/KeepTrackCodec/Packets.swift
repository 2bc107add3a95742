import KeepTrack

/// One unit handed to a decoder: a sample's bytes (or, for LPCM, a whole chunk of frames) with its times.
public struct Packet: Sendable {
    /// Index of the first sample in decode order.
    public var index: Int
    public var offset: UInt64
    public var bytes: [UInt8]
    /// Media time scale units.
    public var decodeTime: Int64
    public var presentationTime: Int64
    public var isSync: Bool
}

/// Reads a track's samples from the movie's own byte source in decode order, as packets.
/// LPCM tracks come a chunk at a time: QuickTime describes them one frame per "sample".
public struct TrackPacketReader: IteratorProtocol {
    let source: ByteSource
    let table: SampleTable
    var samples: SampleTable.SampleIterator
    var chunks: SampleTable.ChunkIterator
    /// Non-nil for LPCM: bytes per frame of all channels.
    let bytesPerFrame: Int?

    public init(track: Track, source: ByteSource, bytesPerFrame: Int? = nil) {
        self.source = source
        table = track.sampleTable
        samples = track.sampleTable.samples.makeIterator()
        chunks = track.sampleTable.makeChunkIterator()
        self.bytesPerFrame = bytesPerFrame
    }

    public mutating func next() -> Packet? { try? nextPacket() }

    /// The next packet; throws when the bytes cannot be read.
    public mutating func nextPacket() throws -> Packet? {
        if let bytesPerFrame {
            guard let chunk = chunks.next() else { return nil }
            // QuickTime's "one frame per sample, size 1" convention: the real extent is frames × bytes per frame.
            let perSampleBytes = table.sizes.isEmpty && table.constantSize <= 1 ? UInt64(bytesPerFrame) : nil
            let count = perSampleBytes.map { $0 * UInt64(chunk.sampleCount) } ?? chunk.byteCount
            let bytes = try source.read(at: chunk.offset, count: Int(min(count, source.size - min(chunk.offset, source.size))))
            return Packet(index: chunk.firstSample, offset: chunk.offset, bytes: bytes, decodeTime: Int64(chunk.firstSample),
                          presentationTime: Int64(chunk.firstSample), isSync: true)
        }
        guard let sample = samples.next() else { return nil }
        let bytes = try source.read(at: sample.offset, count: Int(sample.size))
        guard let decode = Int64(exactly: sample.decodeTime), case let (presentation, false) = decode.addingReportingOverflow(sample.compositionOffset) else {
            throw KeepTrackError.malformed(path: "stts", offset: sample.offset, reason: "sample \(sample.index + 1)'s decode time \(sample.decodeTime) does not fit a signed 64-bit time")
        }
        return Packet(index: sample.index, offset: sample.offset, bytes: bytes, decodeTime: decode,
                      presentationTime: presentation, isSync: sample.isSync)
    }
}
