/// What a decoder of a track's codec outputs, from its configuration box: the sample entry's
/// channelcount and samplerate are placeholders (2 channels, 16 bits) in most ISO audio entries.
public protocol AudioCodecConfiguration {
    /// Output channels (LFE counted), nil when the configuration does not say.
    var channels: Int? { get }
    /// Output sample rate in Hz, nil when the configuration does not say.
    var sampleRate: Int? { get }
}

/// Counts of the AC-3 / E-AC-3 bit fields shared by `dac3` and `dec3` (ETSI TS 102 366).
enum AC3Fields {
    /// Full-bandwidth channels per audio coding mode (acmod 0 is 1+1 dual mono).
    static let acmodChannels = [2, 1, 2, 3, 3, 4, 4, 5]
    static let acmodNames = ["1+1", "1/0", "2/0", "3/0", "2/1", "3/1", "2/2", "3/2"]

    static func sampleRate(fscod: Int) -> Int? {
        switch fscod {
        case 0: 48000
        case 1: 44100
        case 2: 32000
        default: nil
        }
    }

    /// Channels a dependent substream's chan_loc adds (Table F.6.1): bits 0, 1, 4, 5 and 6 are
    /// pairs (Lc/Rc, Lrs/Rrs, Lsd/Rsd, Lw/Rw, Lvh/Rvh); bits 2, 3, 7 and 8 one channel each
    /// (Cs, Ts, Cvh, LFE2).
    static func chanLocChannels(_ chanLoc: Int) -> Int {
        let pairs: Set<Int> = [0, 1, 4, 5, 6]
        return (0..<9).reduce(0) { total, bit in chanLoc >> bit & 1 == 0 ? total : total + (pairs.contains(bit) ? 2 : 1) }
    }
}

/// `dac3`: the AC-3 specific box (ETSI TS 102 366 F.4): three bytes of bit fields.
public struct AC3SpecificBox: BoxView, DumpAnnotated, AudioCodecConfiguration {
    public static let types: [FourCC] = ["dac3"]
    /// fscod (2), bsid (5), bsmod (3), acmod (3), lfeon (1), bit_rate_code (5), reserved (5).
    public var packed: UInt32 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("fields", &packed, bytes: 3)
        try coder.rest("rest", &rest)
    }

    public var fscod: Int { Int(packed >> 22 & 0x3) }
    public var bsid: Int { Int(packed >> 17 & 0x1F) }
    public var bsmod: Int { Int(packed >> 14 & 0x7) }
    public var acmod: Int { Int(packed >> 11 & 0x7) }
    public var lfeon: Bool { packed >> 10 & 1 == 1 }
    public var bitRateCode: Int { Int(packed >> 5 & 0x1F) }

    public var channels: Int? { AC3Fields.acmodChannels[acmod] + (lfeon ? 1 : 0) }
    public var sampleRate: Int? { AC3Fields.sampleRate(fscod: fscod) }

    public var annotationLines: [String] {
        ["fscod: \(fscod) (\(sampleRate.map { "\($0) Hz" } ?? "reserved"))", "bsid: \(bsid)", "bsmod: \(bsmod)",
         "acmod: \(acmod) (\(AC3Fields.acmodNames[acmod]))", "lfeon: \(lfeon ? 1 : 0)", "bit_rate_code: \(bitRateCode)",
         "channels: \(channels ?? 0)"]
    }
}

/// `dec3`: the E-AC-3 specific box (ETSI TS 102 366 F.6): the data rate, then one record per
/// independent substream, each naming the channels its dependent substreams add (chan_loc).
/// A decoder plays the first independent substream (program) with its dependent substreams;
/// further independent substreams are other programs, counted in the dump only.
public struct EAC3SpecificBox: BoxView, DumpAnnotated, AudioCodecConfiguration {
    public static let types: [FourCC] = ["dec3"]
    /// data_rate (13 bits, kbit/s), num_ind_sub (3 bits, count minus one).
    public var packed: UInt16 = 0
    public var substreams: [Substream] = []
    public var rest: [UInt8] = []
    public init() {}

    public struct Substream: FieldCodable, Equatable {
        /// fscod (2), bsid (5), reserved (1), asvc (1), bsmod (3), acmod (3), lfeon (1), reserved (3),
        /// num_dep_sub (4), then the top bit of chan_loc (or a reserved bit when there are none).
        public var packed: UInt32 = 0
        /// The low 8 bits of chan_loc, present only when num_dep_sub > 0.
        public var chanLocLow: UInt8 = 0
        public init() {}

        public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
            try coder.uint("fields", &packed, bytes: 3)
            if numDependentSubstreams > 0 { try coder.uint("chan_loc_low", &chanLocLow, bytes: 1) }
        }

        public var fscod: Int { Int(packed >> 22 & 0x3) }
        public var bsid: Int { Int(packed >> 17 & 0x1F) }
        public var acmod: Int { Int(packed >> 9 & 0x7) }
        public var lfeon: Bool { packed >> 8 & 1 == 1 }
        public var numDependentSubstreams: Int { Int(packed >> 1 & 0xF) }
        public var chanLoc: Int { numDependentSubstreams > 0 ? Int(packed & 1) << 8 | Int(chanLocLow) : 0 }
        /// The independent substream's channels plus those its dependent substreams add.
        public var channels: Int { AC3Fields.acmodChannels[acmod] + (lfeon ? 1 : 0) + AC3Fields.chanLocChannels(chanLoc) }
    }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("fields", &packed, bytes: 2)
        try coder.records("substreams", &substreams, count: independentSubstreamCount, recordSize: 3, make: Substream.init) { coder, substream in
            try substream.code(&coder)
        }
        try coder.rest("rest", &rest)
    }

    public var dataRate: Int { Int(packed >> 3) }
    public var independentSubstreamCount: Int { Int(packed & 0x7) + 1 }

    public var channels: Int? { substreams.first?.channels }
    public var sampleRate: Int? { substreams.first.flatMap { AC3Fields.sampleRate(fscod: $0.fscod) } }

    public var annotationLines: [String] {
        var lines = ["data_rate: \(dataRate) kbit/s", "independent substreams: \(independentSubstreamCount)"]
        for (index, substream) in substreams.enumerated() {
            lines.append("substream \(index + 1): fscod \(substream.fscod), bsid \(substream.bsid), acmod \(substream.acmod) (\(AC3Fields.acmodNames[substream.acmod])), "
                + "lfeon \(substream.lfeon ? 1 : 0), dependent substreams \(substream.numDependentSubstreams), chan_loc 0x\(String(substream.chanLoc, radix: 16)), channels \(substream.channels)")
        }
        lines.append("channels: \(channels.map(String.init) ?? "unknown")")
        return lines
    }
}

/// `dmlp`: the Dolby TrueHD (MLP) specific box: format_info as in the stream's major sync, then
/// the peak data rate. format_info: sampling frequency (4), reserved (4), channel modifiers (2+2),
/// the 6-channel presentation's channel assignment (5), a modifier (2), the 8-channel
/// presentation's channel assignment (13).
public struct MLPSpecificBox: BoxView, DumpAnnotated, AudioCodecConfiguration {
    public static let types: [FourCC] = ["dmlp"]
    public var formatInfo: UInt32 = 0
    /// peak_data_rate (15 bits), reserved (1).
    public var peakDataRateField: UInt16 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("format_info", &formatInfo, bytes: 4)
        try coder.uint("peak_data_rate", &peakDataRateField, bytes: 2)
        try coder.rest("rest", &rest)
    }

    /// Channels per channel-assignment bit: L/R, C, LFE, Ls/Rs, Lvh/Rvh, Lc/Rc, Lrs/Rrs, Cs, Ts,
    /// Lsd/Rsd, Lw/Rw, Cvh, LFE2.
    static let assignmentChannels = [2, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 1, 1]

    static func channels(assignment: Int) -> Int {
        assignmentChannels.indices.reduce(0) { total, bit in assignment >> bit & 1 == 0 ? total : total + assignmentChannels[bit] }
    }

    public var sampleRateCode: Int { Int(formatInfo >> 28) }
    public var sixChannelAssignment: Int { Int(formatInfo >> 15 & 0x1F) }
    public var eightChannelAssignment: Int { Int(formatInfo & 0x1FFF) }

    /// The largest presentation a decoder outputs: the 8-channel one when assigned, else the 6-channel one.
    public var channels: Int? {
        if eightChannelAssignment != 0 { return Self.channels(assignment: eightChannelAssignment) }
        if sixChannelAssignment != 0 { return Self.channels(assignment: sixChannelAssignment) }
        return nil
    }

    /// 48 kHz or 44.1 kHz times a power of two; 0xF means not signalled.
    public var sampleRate: Int? {
        let code = sampleRateCode
        guard code != 0xF, code & 7 <= 2 else { return nil }
        return (code & 8 != 0 ? 44100 : 48000) << (code & 7)
    }

    public var annotationLines: [String] {
        ["sampling frequency: \(sampleRate.map { "\($0) Hz" } ?? "unknown (\(sampleRateCode))")",
         "6-channel presentation: 0x\(String(sixChannelAssignment, radix: 16)) (\(Self.channels(assignment: sixChannelAssignment)) channels)",
         "8-channel presentation: 0x\(String(eightChannelAssignment, radix: 16)) (\(Self.channels(assignment: eightChannelAssignment)) channels)",
         "peak data rate: \(peakDataRateField >> 1)", "channels: \(channels.map(String.init) ?? "unknown")"]
    }
}

/// `dac4`: the AC-4 specific box (ETSI TS 103 190-2 E.6). The fixed start (dsi version, bitstream
/// version, sampling frequency, frame rate, presentation count) is typed; the channels come from
/// the first presentation when it is channel-coded (presentation versions 1 and 2), else unknown.
public struct AC4SpecificBox: BoxView, DumpAnnotated, AudioCodecConfiguration {
    public static let types: [FourCC] = ["dac4"]
    /// ac4_dsi_version (3), bitstream_version (7), fs_index (1), frame_rate_index (4), n_presentations (9).
    public var packed: UInt32 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("fields", &packed, bytes: 3)
        try coder.rest("presentations", &rest)
    }

    public var dsiVersion: Int { Int(packed >> 21) }
    public var bitstreamVersion: Int { Int(packed >> 14 & 0x7F) }
    public var fsIndex: Int { Int(packed >> 13 & 1) }
    public var frameRateIndex: Int { Int(packed >> 9 & 0xF) }
    public var presentationCount: Int { Int(packed & 0x1FF) }

    public var sampleRate: Int? { fsIndex == 1 ? 48000 : 44100 }

    /// Channels per dsi_presentation_ch_mode (mono, stereo, 3.0, 5.0, 5.1, 7.0 and 7.1 in three
    /// layouts, 7.0.4, 7.1.4, 9.0.4, 9.1.4, 22.2).
    static let channelModeChannels = [1, 2, 3, 5, 6, 7, 8, 7, 8, 7, 8, 11, 12, 13, 14, 24]

    public var channels: Int? { (try? firstPresentationChannels()) ?? nil }

    /// Walks the dsi to the first presentation's channel mode. nil when it is not channel-coded
    /// (object-based audio) or of a version this reader does not know.
    func firstPresentationChannels() throws -> Int? {
        guard dsiVersion == 1, presentationCount > 0 else { return nil }
        var bits = BitReader(rest, path: "dac4")
        if bitstreamVersion > 1, try bits.read(1) == 1 { // b_program_id
            try bits.skip(16) // short_program_id
            if try bits.read(1) == 1 { try bits.skip(128) } // b_uuid, program_uuid
        }
        try bits.skip(2 + 32 + 32) // ac4_bitrate_dsi
        bits.alignToByte()
        let presentationVersion = try bits.read(8)
        if try bits.read(8) == 255 { try bits.skip(16) } // pres_bytes, add_pres_bytes
        guard presentationVersion == 1 || presentationVersion == 2 else { return nil }
        let config = try bits.read(5)
        guard config != 0x06 else { return nil } // EMDF only
        try bits.skip(3) // mdcompat
        if try bits.read(1) == 1 { try bits.skip(5) } // b_presentation_id, presentation_id
        try bits.skip(2 + 2 + 5 + 10) // frame rate multiply and fraction, emdf version, key id
        guard try bits.read(1) == 1 else { return nil } // b_presentation_channel_coded
        let mode = try bits.read(5)
        guard mode < Self.channelModeChannels.count else { return nil }
        var channels = Self.channelModeChannels[mode]
        if (11...14).contains(mode) {
            // The immersive modes name their back channels and top pairs.
            if try bits.read(1) == 0 { channels -= 2 } // pres_b_4_back_channels_present
            channels -= 2 * (2 - min(2, try bits.read(2))) // pres_top_channel_pairs
        }
        return channels
    }

    public var annotationLines: [String] {
        ["ac4_dsi_version: \(dsiVersion)", "bitstream_version: \(bitstreamVersion)", "fs_index: \(fsIndex) (\(sampleRate ?? 0) Hz)",
         "frame_rate_index: \(frameRateIndex)", "n_presentations: \(presentationCount)",
         "channels: \(channels.map(String.init) ?? "unknown (not channel-coded)")"]
    }
}
