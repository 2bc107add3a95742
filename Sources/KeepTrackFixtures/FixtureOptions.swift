import KeepTrack

/// The variations a synthetic iPhone-layout movie can have. Defaults reproduce the layout of an
/// iPhone 16 Pro recording: HEVC video rotated to portrait, stereo AAC enabled and APAC spatial
/// audio disabled in alternate group 1 with `fall` → AAC, timed metadata tracks, moov after mdat.
public struct FixtureOptions: Sendable {
    public enum Flavour: String, Sendable, CaseIterable {
        /// QuickTime `.mov`: SoundDescription v1 (AAC) and v2 (APAC, placeholder v0 fields).
        case quickTime
        /// ISO `.mp4` as AVAssetWriter writes it: AudioSampleEntry whose APAC channelcount says 2.
        case mp4
    }

    /// Which audio tracks of the group have the enabled flag.
    public enum Enabled: String, Sendable, CaseIterable {
        case stereoOnly, spatialOnly, both, none
    }

    public var flavour: Flavour = .quickTime
    public var enabled: Enabled = .stereoOnly
    /// Store the spatial track before the stereo one (as iPhone 17 slow-motion files do).
    public var spatialFirst = false
    /// 4 (first-order ambisonics) or 5.
    public var spatialChannels = 4
    /// Spatial track as 4-channel LPCM (`lpcm`, as ProRes recordings carry it) instead of APAC.
    public var spatialAsLPCM = false
    public var includeSpatial = true
    public var includeStereo = true
    public var includeVideo = true
    /// The `tref/fall` reference from the spatial track to the stereo one.
    public var fallReference = true
    public var alternateGroup: UInt16 = 1
    /// Timed metadata (`mebx`) tracks referring to the video with `cdsc`.
    public var metadataTracks = 2
    public var moovFirst = false
    public var largeOffsets = false
    public var duration = 2.0
    public var frameRate = 30
    /// Bytes per video frame (a frame every `frameRate`th is larger: a sync sample).
    public var videoFrameBytes = 1500
    /// Video payload as zeros left as holes in the file (sparse files above 4 GiB).
    public var sparseVideo = false
    public var chunkDuration = 0.5
    /// Movie metadata (`moov/meta` with Apple keys).
    public var movieMetadata = true
    /// Extra track reference to a track id that does not exist (lint tests).
    public var danglingReference: UInt32?
    /// Rotation of the video track matrix in degrees (0, 90, 180, 270).
    public var rotation = 90
    /// Real encoded AAC for the stereo track (decodable media instead of opaque bytes).
    public var stereoAudio: FixtureAudio?
    /// With `stereoAudio`: the group's second track is a copy of the stereo AAC (same sound, decodable)
    /// instead of APAC, so playing both at once can be measured.
    public var alternateIsStereoCopy = false

    public init() {}

    /// Named variants used across tests and benchmarks.
    public static func variant(_ name: String) -> FixtureOptions? {
        var options = FixtureOptions()
        switch name {
        case "iphone": break
        case "spatial-first": options.spatialFirst = true
        case "five-channel": options.spatialChannels = 5
        case "both-enabled": options.enabled = .both
        case "none-enabled": options.enabled = .none
        case "spatial-enabled": options.enabled = .spatialOnly
        case "no-fall": options.fallReference = false
        case "moov-first": options.moovFirst = true
        case "co64": options.largeOffsets = true
        case "many-samples": options.duration = 120; options.frameRate = 60; options.videoFrameBytes = 200
        case "mp4": options.flavour = .mp4
        case "lpcm-spatial": options.spatialAsLPCM = true
        case "audio-only": options.includeVideo = false; options.metadataTracks = 0
        default: return nil
        }
        return options
    }

    public static let variantNames = ["iphone", "spatial-first", "five-channel", "both-enabled", "none-enabled", "spatial-enabled",
                                      "no-fall", "moov-first", "co64", "many-samples", "mp4", "lpcm-spatial", "audio-only"]
}

/// Encoded AAC packets to put in a synthetic movie (the codec layer produces them; fixtures stay codec-free).
public struct FixtureAudio: Sendable {
    public var packets: [[UInt8]]
    /// The AudioSpecificConfig that goes into `esds`.
    public var audioSpecificConfig: [UInt8]
    /// Encoder delay in frames: the edit list starts the presentation after it.
    public var primingFrames: Int
    /// Frames of real sound (the presented duration).
    public var presentedFrames: Int
    public var framesPerPacket = 1024
    public var sampleRate = 48000
    public var channels = 2

    public init(packets: [[UInt8]], audioSpecificConfig: [UInt8], primingFrames: Int, presentedFrames: Int) {
        self.packets = packets
        self.audioSpecificConfig = audioSpecificConfig
        self.primingFrames = primingFrames
        self.presentedFrames = presentedFrames
    }

    /// An ES_Descriptor for AAC carrying this AudioSpecificConfig (lengths fit one byte each).
    public var elementaryStreamDescriptor: [UInt8] {
        let info: [UInt8] = [0x05, UInt8(audioSpecificConfig.count)] + audioSpecificConfig
        let decoderConfig: [UInt8] = [0x04, UInt8(13 + info.count), 0x40, 0x15, 0x00, 0x06, 0x00, 0x00, 0x02, 0xEE, 0x00, 0x00, 0x02, 0xEE, 0x00] + info
        let sl: [UInt8] = [0x06, 0x01, 0x02]
        let es: [UInt8] = [0x03, UInt8(3 + decoderConfig.count + sl.count), 0x00, 0x02, 0x00] + decoderConfig + sl
        return [0, 0, 0, 0] + es
    }
}
