/// An interrupted recording (media data, no moov) read with a healthy reference recording: the samples
/// found in the data, track by track, and every byte range that could not be placed, with the reason.
/// The walk follows the reference's chunk pattern (which track's chunk may follow which); H.264/HEVC
/// access units and constant-size timed metadata are recognised by their own structure, AAC frames by
/// the decoder the caller supplies (`frameLength`, in the codec layer). Nothing is guessed: bytes no
/// recogniser accepts are reported, attributed to the opaque track (APAC) the pattern expects there.
public struct RecordingRepair {
    public struct Run: Sendable, Equatable {
        public var track: UInt32
        public var offset: UInt64
        public var sizes: [UInt32]
        public var syncs: [Bool]
        public var byteCount: UInt64 { sizes.reduce(0) { $0 + UInt64($1) } }
    }

    public struct Unplaced: Sendable, Equatable {
        public var offset: UInt64
        public var length: UInt64
        /// The opaque track the chunk pattern puts here, if one.
        public var track: UInt32?
        public var reason: String
    }

    public let reference: RecordingReference
    public let source: ByteSource
    /// The media data's payload in the broken file.
    public let data: Range<UInt64>
    public private(set) var runs: [Run] = []
    public private(set) var unplaced: [Unplaced] = []

    /// `frameLength(shape, offset)`: the length of the AAC frame of that track at `offset`, nil when none decodes there.
    public init(broken source: ByteSource, reference: RecordingReference, frameLength: (RecordingReference.TrackShape, UInt64) -> Int?) throws {
        self.source = source
        self.reference = reference
        data = try Self.mediaData(in: source)
        var position = data.lowerBound
        var previous: UInt32?
        while position < data.upperBound {
            if let run = run(at: position, after: previous, frameLength: frameLength) {
                runs.append(run)
                position += run.byteCount
                previous = run.track
                continue
            }
            var next = position + 1
            while next < data.upperBound, run(at: next, after: nil, frameLength: frameLength, withAAC: false, fewestAccessUnits: 2) == nil { next += 1 }
            let owner = reference.tracks.first { $0.syntax == .opaque && reference.mayFollow(previous, $0.id) }?.id
            let reason: String
            if next == data.upperBound, owner == nil {
                reason = "the data ends inside a sample (or in bytes no track's samples describe)"
            } else if let owner, let shape = reference.shape(owner) {
                reason = "a chunk of track \(owner) (\(shape.track.format?.description ?? "?")) by the reference's chunk pattern; its samples carry no length and no decoder here finds their ends, so they are not placed"
            } else {
                reason = "no track's samples start here and the reference's chunk pattern names no track for it"
            }
            unplaced.append(Unplaced(offset: position, length: next - position, track: owner, reason: reason))
            previous = owner ?? previous
            position = next
        }
    }

    /// The payload of the first `mdat` (to the end of the file when its size is 0 or runs past the end).
    static func mediaData(in source: ByteSource) throws -> Range<UInt64> {
        var offset: UInt64 = 0
        var data: Range<UInt64>?
        while offset + 8 <= source.size {
            let header = try source.read(at: offset, count: 8)
            var size = header.prefix(4).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let type = FourCC(bytes: header[4..<8])
            var headerSize: UInt64 = 8
            if size == 1, offset + 16 <= source.size {
                size = try source.read(at: offset + 8, count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                headerSize = 16
            }
            if type == "moov" {
                throw KeepTrackError.unsupported("the file has a moov box at byte \(offset): it is not an interrupted recording (a truncated movie is read with its moov)")
            }
            if type == "mdat", data == nil {
                let end = size == 0 || offset &+ size > source.size || size < headerSize ? source.size : offset + size
                data = (offset + headerSize)..<end
                if end == source.size { break }
            }
            guard header[4..<8].allSatisfy({ (0x20...0x7E).contains($0) }), size >= headerSize else { break }
            offset += size
        }
        guard let data else { throw KeepTrackError.malformed(path: "mdat", offset: offset, reason: "no mdat box: nothing to recover") }
        return data
    }

    /// The samples of one track that start at `position`: the first recogniser (video, timed metadata,
    /// AAC) whose track may follow `previous` and that finds a sample. Looking for where unplaced bytes
    /// end, only the recognisers that cannot mistake random bytes count (`withAAC` false, two access units).
    func run(at position: UInt64, after previous: UInt32?, frameLength: (RecordingReference.TrackShape, UInt64) -> Int?,
             withAAC: Bool = true, fewestAccessUnits: Int = 1) -> Run? {
        let order: [RecordingReference.TrackShape] = reference.tracks.filter { if case .avc = $0.syntax { true } else if case .hevc = $0.syntax { true } else { false } }
            + reference.tracks.filter { if case .keyedMetadata = $0.syntax { true } else { false } }
            + (withAAC ? reference.tracks.filter { $0.syntax == .aac } : [])
        for shape in order where reference.mayFollow(previous, shape.id) {
            var run = Run(track: shape.id, offset: position, sizes: [], syncs: [])
            var at = position
            func add(_ size: UInt64, sync: Bool) { run.sizes.append(UInt32(size)); run.syncs.append(sync); at += size }
            switch shape.syntax {
            case .avc(let lengthSize), .hevc(let lengthSize):
                let codec: AccessUnitScanner.Codec = if case .avc = shape.syntax { .avc } else { .hevc }
                let scanner = AccessUnitScanner(codec: codec, lengthSize: lengthSize, largestUnit: max(UInt64(shape.largestSample) * 4, 1 << 16),
                                                source: source, end: data.upperBound)
                while let unit = scanner.accessUnit(at: at), unit.size < UInt64(UInt32.max) { add(unit.size, sync: unit.isSync) }
                if run.sizes.count < fewestAccessUnits { continue }
            case .keyedMetadata(let size, let items):
                while run.sizes.count < shape.largestChunk, isKeyedMetadata(at: at, size: size, items: items) { add(UInt64(size), sync: true) }
            case .aac:
                let smallest = max(UInt64(shape.smallestSample) / 4, 4), largest = min(UInt64(shape.largestSample) * 2, UInt64(UInt32.max))
                while run.sizes.count < shape.largestChunk, at < data.upperBound {
                    if !run.sizes.isEmpty, followerStarts(at: at, after: shape.id, frameLength: frameLength) { break }
                    guard let length = frameLength(shape, at).map(UInt64.init), (smallest...largest).contains(length), at + length <= data.upperBound else { break }
                    add(length, sync: true)
                }
            case .opaque: continue
            }
            if !run.sizes.isEmpty { return run }
        }
        return nil
    }

    /// A video or metadata chunk of a track that may follow `track` starts at `position`.
    func followerStarts(at position: UInt64, after track: UInt32, frameLength: (RecordingReference.TrackShape, UInt64) -> Int?) -> Bool {
        guard let run = run(at: position, after: track, frameLength: frameLength, withAAC: false) else { return false }
        return run.track != track
    }

    /// A sample of `size` bytes whose items are the reference's (sizes and keys).
    func isKeyedMetadata(at position: UInt64, size: Int, items: [[Int]]) -> Bool {
        guard position + UInt64(size) <= data.upperBound, let bytes = try? source.read(at: position, count: size) else { return false }
        return RecordingReference.keyedItems(bytes) == items
    }

    /// Each track's samples in data order (runs concatenated).
    public func samples(of track: UInt32) -> [Run] { runs.filter { $0.track == track } }
}
