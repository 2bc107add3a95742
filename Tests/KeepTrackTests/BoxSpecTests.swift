import XCTest
@testable import KeepTrack

/// Per-box specification tests: for every registered box view (and the sample-entry field views),
/// one row holds a value, the payload bytes written by hand from ISO/IEC 14496-12 (and the codec
/// specifications named in each view), and the dump text. Each row checks all three directions:
/// the bytes decode to the value, the value encodes to the bytes, and `keeptrack dump` prints the
/// text — through the registry and the context (parent, handler) the parser would give it.
///
/// Adding a box: one small file in `Sources/KeepTrack/Boxes/Types`, one line in `BoxRegistry.views`,
/// one row here (`testEveryRegisteredViewHasASpecRow` fails until there is one).
final class BoxSpecTests: XCTestCase {
    struct Spec {
        let name: String
        let type: FourCC
        /// Where the box sits (its ancestors, outermost first) and the track's handler.
        let ancestors: [FourCC]
        let handler: FourCC?
        let view: any FieldCodable.Type
        let bytes: [UInt8]
        let dump: [String]
        let equalsValue: (any FieldCodable) -> Bool
        let encodeValue: () throws -> [UInt8]

        init<V: FieldCodable & Equatable>(_ name: String, _ type: FourCC, at ancestors: [FourCC], handler: FourCC? = nil,
                                          _ hex: String, dump: [String], _ view: V.Type, value set: (inout V) -> Void) {
            var value = V()
            set(&value)
            self.name = name
            self.type = type
            self.ancestors = ancestors
            self.handler = handler
            self.view = view
            bytes = BoxSpecTests.bytes(hex)
            self.dump = dump
            equalsValue = { ($0 as? V) == value }
            encodeValue = { try value.encoded() }
        }

        var context: ParseContext {
            var context = ParseContext()
            context.ancestors = ancestors
            context.handler = handler
            return context
        }

        /// The box as the parser would hold it: sample entries are containers whose prefix holds the fields.
        var box: Box { ancestors.last == "stsd" ? Box(type: type, prefix: bytes, children: []) : Box(type: type, bytes: bytes) }
    }

    /// Hex digits; spaces and `|` (field separators in the rows) are ignored.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { $0.isHexDigit })
        precondition(digits.count % 2 == 0, "odd number of hex digits in \(hex)")
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    static let identity = "00010000 00000000 00000000 00000000 00010000 00000000 00000000 00000000 40000000"
    static let identityDump = "matrix: [9] 65536 0 0 0 65536 0 0 0 1073741824"
    static let stbl: [FourCC] = ["moov", "trak", "mdia", "minf", "stbl"]
    static let stsd: [FourCC] = stbl + ["stsd"]
    static let traf: [FourCC] = ["moof", "traf"]
    static func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }

    // MARK: - The rows

    static var fileRows: [Spec] { [
        Spec("ftyp", "ftyp", at: [], "69736f6d | 00000200 | 69736f6d 69736f32 6d703431",
             dump: ["majorBrand: isom", "minorVersion: 512", "compatibleBrands: [3] 1769172845 1769172786 1836069937",
                    "brands: 'isom' 'iso2' 'mp41'"], FileTypeBox.self) {
            $0.majorBrand = "isom"; $0.minorVersion = 512; $0.compatibleBrands = ["isom", "iso2", "mp41"]
        },
        Spec("styp", "styp", at: [], "6d736468 | 00000000 | 6d736468 6d736978",
             dump: ["majorBrand: msdh", "minorVersion: 0", "compatibleBrands: [2] 1836278888 1836280184", "brands: 'msdh' 'msix'"],
             FileTypeBox.self) {
            $0.majorBrand = "msdh"; $0.compatibleBrands = ["msdh", "msix"]
        },
    ] }

    static var headerRows: [Spec] { [
        Spec("mvhd version 0", "mvhd", at: ["moov"],
             "00 000000 | e0000001 | e0000002 | 000003e8 | 00001388 | 00010000 | 0100 | 0000 00000000 00000000 | \(identity) | "
                + String(repeating: "00", count: 24) + " | 00000003",
             dump: ["version: 0", "flags: 0", "creationTime: 3758096385", "modificationTime: 3758096386", "timescale: 1000",
                    "duration: 5000", "rate: 65536", "volume: 256", identityDump, "nextTrackID: 3"], MovieHeaderBox.self) {
            $0.times = VersionedTimes(creationTime: 0xE000_0001, modificationTime: 0xE000_0002)
            $0.timescale = 1000; $0.duration = 5000; $0.reserved = zeros(10); $0.quickTimeTimes = zeros(24); $0.nextTrackID = 3
        },
        Spec("mvhd version 1", "mvhd", at: ["moov"],
             "01 000000 | 00000001 00000000 | 00000001 00000001 | 0000ac44 | 00000001 00000000 | 00010000 | 0100 | "
                + String(repeating: "00", count: 10) + " | \(identity) | " + String(repeating: "00", count: 24) + " | 00000002",
             dump: ["version: 1", "flags: 0", "creationTime: 4294967296", "modificationTime: 4294967297", "timescale: 44100",
                    "duration: 4294967296", "rate: 65536", "volume: 256", identityDump, "nextTrackID: 2"], MovieHeaderBox.self) {
            $0.header.version = 1
            $0.times = VersionedTimes(creationTime: 1 << 32, modificationTime: 1 << 32 + 1)
            $0.timescale = 44100; $0.duration = 1 << 32; $0.reserved = zeros(10); $0.quickTimeTimes = zeros(24); $0.nextTrackID = 2
        },
        Spec("tkhd version 0", "tkhd", at: ["moov", "trak"],
             "00 000003 | e0000001 | e0000002 | 00000001 | 00000000 | 00001388 | 00000000 00000000 | 0000 | 0001 | 0100 | 0000 | "
                + "\(identity) | 07800000 | 04380000",
             dump: ["version: 0", "flags: 3", "creationTime: 3758096385", "modificationTime: 3758096386", "trackID: 1", "duration: 5000",
                    "layer: 0", "alternateGroup: 1", "volume: 256", identityDump, "width: 125829120", "height: 70778880"],
             TrackHeaderBox.self) {
            $0.header = FullBoxHeader(version: 0, flags: 3)
            $0.times = VersionedTimes(creationTime: 0xE000_0001, modificationTime: 0xE000_0002)
            $0.trackID = 1; $0.duration = 5000; $0.reserved2 = zeros(8); $0.alternateGroup = 1; $0.volume = 0x100
            $0.width = 1920 << 16; $0.height = 1080 << 16
        },
        Spec("tkhd version 1, rotated 90°", "tkhd", at: ["moov", "trak"],
             "01 000001 | 00000001 00000000 | 00000001 00000001 | 00000002 | 00000000 | 00000001 00000000 | 00000000 00000000 | "
                + "ffff | 0000 | 0000 | 0000 | 00000000 00010000 00000000 ffff0000 00000000 00000000 00000000 00000000 40000000 | "
                + "00000000 | 00000000",
             dump: ["version: 1", "flags: 1", "creationTime: 4294967296", "modificationTime: 4294967297", "trackID: 2",
                    "duration: 4294967296", "layer: -1", "alternateGroup: 0", "volume: 0",
                    "matrix: [9] 0 65536 0 4294901760 0 0 0 0 1073741824", "width: 0", "height: 0"], TrackHeaderBox.self) {
            $0.header = FullBoxHeader(version: 1, flags: 1)
            $0.times = VersionedTimes(creationTime: 1 << 32, modificationTime: 1 << 32 + 1)
            $0.trackID = 2; $0.duration = 1 << 32; $0.reserved2 = zeros(8); $0.layer = -1
            $0.matrix = [0, 0x10000, 0, 0xFFFF_0000, 0, 0, 0, 0, 0x4000_0000]
        },
        Spec("mdhd version 0", "mdhd", at: ["moov", "trak", "mdia"],
             "00 000000 | e0000001 | e0000002 | 0000bb80 | 0003a980 | 55c4 | 0000",
             dump: ["version: 0", "flags: 0", "creationTime: 3758096385", "modificationTime: 3758096386", "timescale: 48000",
                    "duration: 240000", "language: 21956", "quality: 0"], MediaHeaderBox.self) {
            $0.times = VersionedTimes(creationTime: 0xE000_0001, modificationTime: 0xE000_0002)
            $0.timescale = 48000; $0.duration = 240_000; $0.language = 0x55C4
        },
        Spec("mdhd version 1", "mdhd", at: ["moov", "trak", "mdia"],
             "01 000000 | 00000001 00000000 | 00000001 00000001 | 00015f90 | 00000001 00000000 | 15c7 | 0000",
             dump: ["version: 1", "flags: 0", "creationTime: 4294967296", "modificationTime: 4294967297", "timescale: 90000",
                    "duration: 4294967296", "language: 5575", "quality: 0"], MediaHeaderBox.self) {
            $0.header.version = 1
            $0.times = VersionedTimes(creationTime: 1 << 32, modificationTime: 1 << 32 + 1)
            $0.timescale = 90000; $0.duration = 1 << 32; $0.language = 0x15C7
        },
        Spec("elst version 0", "elst", at: ["moov", "trak", "edts"], "00 000000 | 00000001 | 00001388 | 00000400 | 0001 | 0000",
             dump: ["version: 0", "flags: 0", "entryCount: 1", "entries: [1]", "  [1] segmentDuration: 5000", "  [1] mediaTime: 1024",
                    "  [1] rateInteger: 1", "  [1] rateFraction: 0"], EditListBox.self) {
            var entry = EditListBox.Entry(); entry.segmentDuration = 5000; entry.mediaTime = 1024
            $0.entries = [entry]
        },
        Spec("elst version 1 with an empty edit", "elst", at: ["moov", "trak", "edts"],
             "01 000000 | 00000002 | 00000000 000003e8 | ffffffff ffffffff | 0001 | 0000 | 00000001 00000000 | 00000000 00000800 | 0001 | 0000",
             dump: ["version: 1", "flags: 0", "entryCount: 2", "entries: [2]", "  [1] segmentDuration: 1000", "  [1] mediaTime: -1",
                    "  [1] rateInteger: 1", "  [1] rateFraction: 0", "  [2] segmentDuration: 4294967296", "  [2] mediaTime: 2048",
                    "  [2] rateInteger: 1", "  [2] rateFraction: 0"], EditListBox.self) {
            $0.header.version = 1
            var empty = EditListBox.Entry(); empty.segmentDuration = 1000; empty.mediaTime = -1
            var media = EditListBox.Entry(); media.segmentDuration = 1 << 32; media.mediaTime = 2048
            $0.entries = [empty, media]
        },
        Spec("elng", "elng", at: ["moov", "trak", "mdia"], "00 000000 | 656e2d555300",
             dump: ["version: 0", "flags: 0", "tag: 656e2d555300"], ExtendedLanguageBox.self) {
            $0.tag = Array("en-US".utf8) + [0]
        },
        Spec("hdlr (ISO)", "hdlr", at: ["moov", "trak", "mdia"],
             "00 000000 | 00000000 | 76696465 | 00000000 00000000 00000000 | 566964656f48616e646c657200",
             dump: ["version: 0", "flags: 0", "componentType: 0x00000000", "handlerType: vide", "name: 566964656f48616e646c657200",
                    "nameText: VideoHandler"], HandlerBox.self) {
            $0.handlerType = "vide"; $0.reserved = zeros(12); $0.nameBytes = Array("VideoHandler".utf8) + [0]
        },
        Spec("hdlr (QuickTime, Pascal name)", "hdlr", at: ["moov", "trak", "mdia"],
             "00 000000 | 6d686c72 | 736f756e | 6170706c 00000000 00000000 | 05 536f756e64",
             dump: ["version: 0", "flags: 0", "componentType: mhlr", "handlerType: soun", "name: 05536f756e64", "nameText: Sound"],
             HandlerBox.self) {
            $0.componentType = "mhlr"; $0.handlerType = "soun"; $0.reserved = Array("appl".utf8) + zeros(8)
            $0.nameBytes = [5] + Array("Sound".utf8)
        },
        Spec("hdlr of a meta box", "hdlr", at: ["moov", "meta"], "00 000000 | 00000000 | 6d647461 | 00000000 00000000 00000000",
             dump: ["version: 0", "flags: 0", "componentType: 0x00000000", "handlerType: mdta", "nameText: "], HandlerBox.self) {
            $0.handlerType = "mdta"; $0.reserved = zeros(12)
        },
        Spec("tref/fall", "fall", at: ["moov", "trak", "tref"], "00000002", dump: ["trackIDs: [1] 2"], TrackReferenceTypeBox.self) {
            $0.trackIDs = [2]
        },
        Spec("tref/cdsc with two tracks", "cdsc", at: ["moov", "trak", "tref"], "00000001 | 00000003",
             dump: ["trackIDs: [2] 1 3"], TrackReferenceTypeBox.self) {
            $0.trackIDs = [1, 3]
        },
        Spec("dref/url  (self-contained)", "url ", at: ["moov", "trak", "mdia", "minf", "dinf", "dref"], "00 000001",
             dump: ["version: 0", "flags: 1", "selfContained: yes (media in this file)"], DataEntryBox.self) {
            $0.header = FullBoxHeader(version: 0, flags: 1)
        },
        Spec("dref/urn ", "urn ", at: ["moov", "trak", "mdia", "minf", "dinf", "dref"], "00 000000 | 75726e3a7800 | 66696c6500",
             dump: ["version: 0", "flags: 0", "location: 75726e3a780066696c6500", "selfContained: no (media in another file)"],
             DataEntryBox.self) {
            $0.header = FullBoxHeader(); $0.location = Array("urn:x".utf8) + [0] + Array("file".utf8) + [0]
        },
        Spec("dref/alis (QuickTime alias record)", "alis", at: ["moov", "trak", "mdia", "minf", "dinf", "dref"],
             "00 000000 | " + String(repeating: "00", count: 50) + " | 05 612e6d6f76",
             dump: ["version: 0", "flags: 0", "location: " + String(repeating: "00", count: 32) + "… (56 bytes)",
                    "selfContained: no (media in another file)"], DataEntryBox.self) {
            $0.header = FullBoxHeader(); $0.location = zeros(50) + [5] + Array("a.mov".utf8)
        },
    ] }

    static var codecRows: [Spec] { [
        Spec("colr nclx", "colr", at: stsd + ["hvc1"], "6e636c78 | 0009 | 0012 | 0009 | 80",
             dump: ["colourType: nclx", "primaries: 9", "transfer: 18", "matrixCoefficients: 9", "rangeByte: 128"],
             ColourInformationBox.self) {
            $0.primaries = 9; $0.transfer = 18; $0.matrixCoefficients = 9; $0.rangeByte = 0x80
        },
        Spec("colr nclc (QuickTime)", "colr", at: stsd + ["avc1"], "6e636c63 | 0001 | 0001 | 0001",
             dump: ["colourType: nclc", "primaries: 1", "transfer: 1", "matrixCoefficients: 1"], ColourInformationBox.self) {
            $0.colourType = "nclc"; $0.primaries = 1; $0.transfer = 1; $0.matrixCoefficients = 1
        },
        Spec("colr prof (ICC profile)", "colr", at: stsd + ["avc1"], "70726f66 | 0000000c 6170706c",
             dump: ["colourType: prof", "rest: 0000000c6170706c"], ColourInformationBox.self) {
            $0.colourType = "prof"; $0.rest = [0, 0, 0, 0x0C, 0x61, 0x70, 0x70, 0x6C]
        },
        Spec("hvcC", "hvcC", at: stsd + ["hvc1"], "01 | 02 | 20000000 | b00000000000 | 99 | f000fcfdfafa00000f00",
             dump: ["configurationVersion: 1", "profileByte: 2", "profileCompatibility: 536870912", "constraintFlags: b00000000000",
                    "levelIDC: 153", "rest: f000fcfdfafa00000f00"], HEVCConfigurationBox.self) {
            $0.profileByte = 2; $0.profileCompatibility = 0x2000_0000; $0.constraintFlags = [0xB0, 0, 0, 0, 0, 0]; $0.levelIDC = 153
            $0.rest = [0xF0, 0x00, 0xFC, 0xFD, 0xFA, 0xFA, 0x00, 0x00, 0x0F, 0x00]
        },
        Spec("avcC", "avcC", at: stsd + ["avc1"], "01 | 64 | 00 | 28 | ffe1 0004 67640028 01 0004 68ee3cb0",
             dump: ["configurationVersion: 1", "profileIDC: 100", "profileCompatibility: 0", "levelIDC: 40",
                    "rest: ffe100046764002801000468ee3cb0"], AVCConfigurationBox.self) {
            $0.profileIDC = 100; $0.levelIDC = 40
            $0.rest = [0xFF, 0xE1, 0x00, 0x04, 0x67, 0x64, 0x00, 0x28, 0x01, 0x00, 0x04, 0x68, 0xEE, 0x3C, 0xB0]
        },
        Spec("dvcC (profile 5)", "dvcC", at: stsd + ["dvh1"], "01 | 00 | 0a35 | 00 | " + String(repeating: "00", count: 19),
             dump: ["versionMajor: 1", "versionMinor: 0", "profileLevelFlags: 2613", "compatibilityByte: 0",
                    "rest: " + String(repeating: "00", count: 19)], DolbyVisionConfigurationBox.self) {
            $0.packed = 5 << 9 | 6 << 3 | 0b101; $0.rest = zeros(19)
        },
        Spec("dvvC (profile 8.4)", "dvvC", at: stsd + ["hvc1"], "01 | 00 | 1035 | 40 | " + String(repeating: "00", count: 19),
             dump: ["versionMajor: 1", "versionMinor: 0", "profileLevelFlags: 4149", "compatibilityByte: 64",
                    "rest: " + String(repeating: "00", count: 19)], DolbyVisionConfigurationBox.self) {
            $0.packed = 8 << 9 | 6 << 3 | 0b101; $0.compatibilityByte = 0x40; $0.rest = zeros(19)
        },
        Spec("dvwC (profile 20)", "dvwC", at: stsd + ["dvh1"], "01 | 00 | 281d | 00 | " + String(repeating: "00", count: 19),
             dump: ["versionMajor: 1", "versionMinor: 0", "profileLevelFlags: 10269", "compatibilityByte: 0",
                    "rest: " + String(repeating: "00", count: 19)], DolbyVisionConfigurationBox.self) {
            $0.packed = 20 << 9 | 3 << 3 | 0b101; $0.rest = zeros(19)
        },
        // Apple spatial video (QuickTime and ISO BMFF Spatial and Immersive Media): the values of eyevinn-mp4ff's
        // stereo_spatial.mp4 and androidx-media's water_180_mvhevc_5frames.mov.
        Spec("stri (left and right eyes)", "stri", at: stsd + ["hvc1", "vexu", "eyes"], "00 000000 | 03",
             dump: ["version: 0", "flags: 0", "views: 3"], StereoViewInformationBox.self) { $0.views = 3 },
        Spec("hero (left)", "hero", at: stsd + ["hvc1", "vexu", "eyes"], "00 000000 | 01",
             dump: ["version: 0", "flags: 0", "heroEye: 1"], HeroEyeBox.self) { $0.heroEye = 1 },
        Spec("blin (19.24 mm)", "blin", at: stsd + ["hvc1", "vexu", "eyes", "cams"], "00 000000 | 00004b28",
             dump: ["version: 0", "flags: 0", "baselineMicrometres: 19240"], StereoBaselineBox.self) { $0.baselineMicrometres = 19240 },
        Spec("prji (rectilinear)", "prji", at: stsd + ["hvc1", "vexu", "proj"], "00 000000 | 72656374",
             dump: ["version: 0", "flags: 0", "projectionKind: rect"], ProjectionInformationBox.self) { $0.projectionKind = "rect" },
        Spec("hfov (64°)", "hfov", at: stsd + ["hvc1"], "0000fa00",
             dump: ["fieldOfViewMillidegrees: 64000"], HorizontalFieldOfViewBox.self) { $0.fieldOfViewMillidegrees = 64000 },
        // The Nero chapter list ffmpeg writes into MP4 (moov/udta/chpl): "Intro" at 0, "Middle" at 0.5 s (100 ns units).
        Spec("chpl (two chapters)", "chpl", at: ["moov", "udta"], "01 000000 | 00000000 | 02 | 0000000000000000 05 496e74726f | 00000000004c4b40 06 4d6964646c65",
             dump: ["version: 1", "flags: 0", "chapterCount: 2", "chapters: [2]", "  [1] start: 0", "  [1] titleLength: 5", "  [1] title: 496e74726f",
                    "  [2] start: 5000000", "  [2] titleLength: 6", "  [2] title: 4d6964646c65"], ChapterListBox.self) {
            $0.chapters = [.init(start: 0, title: Array("Intro".utf8)), .init(start: 5_000_000, title: Array("Middle".utf8))]
        },
        Spec("esds (AAC LC, 44.1 kHz stereo)", "esds", at: stsd + ["mp4a"],
             "00 000000 | 03 19 0000 00 | 04 11 40 15 000000 0001f400 0001f400 | 05 02 1210 | 06 01 02",
             dump: ["version: 0", "flags: 0", "descriptors: 0319000000041140150000000001f4000001f40005021210060102",
                    "objectTypeIndication: 0x40 (AAC)", "audioObjectType: 2", "samplingFrequencyIndex: 4", "samplingFrequency: 44100",
                    "channelConfiguration: 2", "channels: 2"], ElementaryStreamDescriptorBox.self) {
            $0.descriptors = BoxSpecTests.bytes("0319000000041140150000000001f4000001f40005021210060102")
        },
        Spec("dac3 (5.1, 48 kHz)", "dac3", at: stsd + ["ac-3"], "10 3d c0",
             dump: ["fields: 1064384", "fscod: 0 (48000 Hz)", "bsid: 8", "bsmod: 0", "acmod: 7 (3/2)", "lfeon: 1", "bit_rate_code: 14",
                    "channels: 6"], AC3SpecificBox.self) {
            $0.packed = 8 << 17 | 7 << 11 | 1 << 10 | 14 << 5
        },
        Spec("dec3 (7.1: one dependent substream adding Lrs/Rrs)", "dec3", at: stsd + ["ec-3"], "0e00 | 200f02 | 02",
             dump: ["fields: 3584", "substreams: [1]", "  [1] fields: 2100994", "  [1] chan_loc_low: 2", "data_rate: 448 kbit/s",
                    "independent substreams: 1",
                    "substream 1: fscod 0, bsid 16, acmod 7 (3/2), lfeon 1, dependent substreams 1, chan_loc 0x2, channels 8",
                    "channels: 8"], EAC3SpecificBox.self) {
            $0.packed = 448 << 3
            var substream = EAC3SpecificBox.Substream(); substream.packed = 16 << 17 | 7 << 9 | 1 << 8 | 1 << 1; substream.chanLocLow = 2
            $0.substreams = [substream]
        },
        Spec("dmlp (TrueHD 7.1)", "dmlp", at: stsd + ["mlpa"], "0007804f | 1f40 | 00000000",
             dump: ["format_info: 491599", "peak_data_rate: 8000", "rest: 00000000", "sampling frequency: 48000 Hz",
                    "6-channel presentation: 0xf (6 channels)", "8-channel presentation: 0x4f (8 channels)", "peak data rate: 4000",
                    "channels: 8"], MLPSpecificBox.self) {
            $0.formatInfo = 0xF << 15 | 0x4F; $0.peakDataRateField = 4000 << 1; $0.rest = zeros(4)
        },
        Spec("dac4 (presentation not channel-coded here)", "dac4", at: stsd + ["ac-4"], "20a401 | 00",
             dump: ["fields: 2139137", "presentations: 00", "ac4_dsi_version: 1", "bitstream_version: 2", "fs_index: 1 (48000 Hz)",
                    "frame_rate_index: 2", "n_presentations: 1", "channels: unknown (not channel-coded)"], AC4SpecificBox.self) {
            $0.packed = 1 << 21 | 2 << 14 | 1 << 13 | 2 << 9 | 1; $0.rest = [0]
        },
        Spec("alac (magic cookie in the alac entry)", "alac", at: stsd + ["alac"],
             "00 000000 | 00001000 | 00 | 10 | 28 | 0a | 0e | 02 | 00ff | 00000000 | 00000000 | 0000ac44",
             dump: ["version: 0", "flags: 0", "frameLength: 4096", "compatibleVersion: 0", "bitDepth: 16", "pb: 40", "mb: 10", "kb: 14",
                    "numChannels: 2", "maxRun: 255", "maxFrameBytes: 0", "avgBitRate: 0", "sampleRate: 44100", "channels: 2"],
             ALACSpecificBox.self) {
            $0.configuredSampleRate = 44100
        },
        Spec("dOps (family 0, stereo)", "dOps", at: stsd + ["Opus"], "00 | 02 | 0138 | 0000bb80 | 0000 | 00",
             dump: ["version: 0", "outputChannelCount: 2", "preSkip: 312", "inputSampleRate: 48000", "outputGain: 0",
                    "channelMappingFamily: 0", "channels: 2", "decoded sample rate: 48000 Hz"], OpusSpecificBox.self) {
            $0.preSkip = 312
        },
        Spec("dOps (family 1, 5.1)", "dOps", at: stsd + ["Opus"], "00 | 06 | 0138 | 0000bb80 | fffe | 01 | 04 | 02 | 000401020305",
             dump: ["version: 0", "outputChannelCount: 6", "preSkip: 312", "inputSampleRate: 48000", "outputGain: -2",
                    "channelMappingFamily: 1", "streamCount: 4", "coupledCount: 2", "channelMapping: 000401020305", "channels: 6",
                    "decoded sample rate: 48000 Hz"], OpusSpecificBox.self) {
            $0.outputChannelCount = 6; $0.preSkip = 312; $0.outputGain = -2; $0.channelMappingFamily = 1
            $0.streamCount = 4; $0.coupledCount = 2; $0.channelMapping = [0, 4, 1, 2, 3, 5]
        },
        Spec("dfLa (STREAMINFO)", "dfLa", at: stsd + ["fLaC"],
             "00 000000 | 80000022 | 1000 | 1000 | 00000e | 003a10 | 0ac442f00006baa8 | 00112233445566778899aabbccddeeff",
             dump: ["version: 0", "flags: 0", "blockHeader: 2147483682", "minimumBlockSize: 4096", "maximumBlockSize: 4096",
                    "minimumFrameSize: 14", "maximumFrameSize: 14864", "rateChannelsBitsSamples: 775818634374593192",
                    "md5: 00112233445566778899aabbccddeeff", "sample rate: 44100 Hz", "channels: 2", "bits per sample: 16",
                    "total samples: 441000"], FLACSpecificBox.self) {
            $0.minimumBlockSize = 4096; $0.maximumBlockSize = 4096; $0.minimumFrameSize = 14; $0.maximumFrameSize = 14864
            $0.packed = 44100 << 44 | 1 << 41 | 15 << 36 | 441_000
            $0.md5 = BoxSpecTests.bytes("00112233445566778899aabbccddeeff")
        },
        Spec("damr", "damr", at: stsd + ["samr"], "46464d50 | 00 | 83ff | 00 | 01",
             dump: ["vendor: FFMP", "decoderVersion: 0", "modeSet: 33791", "modeChangePeriod: 0", "framesPerSample: 1"],
             AMRSpecificBox.self) {
            $0.vendor = "FFMP"; $0.modeSet = 0x83FF
        },
        Spec("frma", "frma", at: stsd + ["encv", "sinf"], "61766331", dump: ["dataFormat: avc1"], OriginalFormatBox.self) {
            $0.dataFormat = "avc1"
        },
        Spec("schm", "schm", at: stsd + ["enca", "sinf"], "00 000000 | 63656e63 | 00010000",
             dump: ["version: 0", "flags: 0", "schemeType: cenc", "schemeVersion: 65536"], SchemeTypeBox.self) {
            $0.schemeType = "cenc"; $0.schemeVersion = 0x10000
        },
        Spec("schm with a URI (flag 1)", "schm", at: stsd + ["encv", "sinf"], "00 000001 | 63626373 | 00010000 | 687474703a2f2f7800",
             dump: ["version: 0", "flags: 1", "schemeType: cbcs", "schemeVersion: 65536", "schemeURI: 687474703a2f2f7800"],
             SchemeTypeBox.self) {
            $0.header.flags = 1; $0.schemeType = "cbcs"; $0.schemeVersion = 0x10000; $0.uri = Array("http://x".utf8) + [0]
        },
    ] }

    static var sampleTableRows: [Spec] { [
        Spec("stts", "stts", at: stbl, "00 000000 | 00000002 | 00000064 000003e9 | 00000001 000007d2",
             dump: ["version: 0", "flags: 0", "entryCount: 2", "countDeltaPairs: [4] 100 1001 1 2002"], TimeToSampleBox.self) {
            $0.pairs = [100, 1001, 1, 2002]
        },
        Spec("ctts version 0", "ctts", at: stbl, "00 000000 | 00000003 | 00000001 000007d2 | 00000001 00000000 | 00000001 000003e9",
             dump: ["version: 0", "flags: 0", "entryCount: 3", "countOffsetPairs: [6] 1 2002 1 0 1 1001"], CompositionOffsetBox.self) {
            $0.pairs = [1, 2002, 1, 0, 1, 1001]
        },
        Spec("ctts version 1 (signed offsets)", "ctts", at: stbl, "01 000000 | 00000002 | 00000001 000003e9 | 00000001 fffffc17",
             dump: ["version: 1", "flags: 0", "entryCount: 2", "countOffsetPairs: [4] 1 1001 1 4294966295"], CompositionOffsetBox.self) {
            $0.header.version = 1; $0.pairs = [1, 1001, 1, UInt32(bitPattern: -1001)]
        },
        Spec("cslg version 0", "cslg", at: stbl, "00 000000 | 000003e9 | fffffc17 | 000007d2 | 00000000 | 00018704",
             dump: ["version: 0", "flags: 0", "compositionToDTSShift: 1001", "leastDecodeToDisplayDelta: -1001",
                    "greatestDecodeToDisplayDelta: 2002", "compositionStartTime: 0", "compositionEndTime: 100100"],
             CompositionShiftBox.self) {
            $0.values = [1001, -1001, 2002, 0, 100_100]
        },
        Spec("cslg version 1", "cslg", at: stbl,
             "01 000000 | 00000000 000003e9 | ffffffff fffffc17 | 00000000 000007d2 | 00000000 00000000 | 00000002 00000000",
             dump: ["version: 1", "flags: 0", "compositionToDTSShift: 1001", "leastDecodeToDisplayDelta: -1001",
                    "greatestDecodeToDisplayDelta: 2002", "compositionStartTime: 0", "compositionEndTime: 8589934592"],
             CompositionShiftBox.self) {
            $0.header.version = 1; $0.values = [1001, -1001, 2002, 0, 1 << 33]
        },
        Spec("stss", "stss", at: stbl, "00 000000 | 00000003 | 00000001 0000001f 0000003d",
             dump: ["version: 0", "flags: 0", "entryCount: 3", "sampleNumbers: [3] 1 31 61"], SyncSampleBox.self) {
            $0.sampleNumbers = [1, 31, 61]
        },
        Spec("stps", "stps", at: stbl, "00 000000 | 00000001 | 0000000f",
             dump: ["version: 0", "flags: 0", "entryCount: 1", "sampleNumbers: [1] 15"], SyncSampleBox.self) {
            $0.sampleNumbers = [15]
        },
        Spec("sdtp", "sdtp", at: stbl, "00 000000 | 20 10 18", dump: ["version: 0", "flags: 0", "sampleFlags: 201018"],
             SampleDependencyBox.self) {
            $0.flags = [0x20, 0x10, 0x18]
        },
        Spec("stsc", "stsc", at: stbl, "00 000000 | 00000002 | 00000001 0000000f 00000001 | 00000005 0000000a 00000001",
             dump: ["version: 0", "flags: 0", "entryCount: 2", "firstChunk,samplesPerChunk,descriptionIndex: [6] 1 15 1 5 10 1"],
             SampleToChunkBox.self) {
            $0.triples = [1, 15, 1, 5, 10, 1]
        },
        Spec("stsz (one size for all)", "stsz", at: stbl, "00 000000 | 00000400 | 00000032",
             dump: ["version: 0", "flags: 0", "sampleSize: 1024", "sampleCount: 50"], SampleSizeBox.self) {
            $0.constantSize = 1024; $0.sampleCount = 50
        },
        Spec("stsz (a size per sample)", "stsz", at: stbl, "00 000000 | 00000000 | 00000003 | 00000064 000000c8 0000012c",
             dump: ["version: 0", "flags: 0", "sampleSize: 0", "sampleCount: 3", "entrySizes: [3] 100 200 300"], SampleSizeBox.self) {
            $0.sampleCount = 3; $0.sizes = [100, 200, 300]
        },
        Spec("stz2 (4-bit sizes)", "stz2", at: stbl, "00 000000 | 000000 | 04 | 00000003 | 12 30",
             dump: ["version: 0", "flags: 0", "fieldSize: 4", "sampleCount: 3", "entrySizes: 1230"], CompactSampleSizeBox.self) {
            $0.reserved = zeros(3); $0.fieldSize = 4; $0.sampleCount = 3; $0.packed = [0x12, 0x30]
        },
        Spec("stz2 (8-bit sizes)", "stz2", at: stbl, "00 000000 | 000000 | 08 | 00000002 | 0a 14",
             dump: ["version: 0", "flags: 0", "fieldSize: 8", "sampleCount: 2", "entrySizes: 0a14"], CompactSampleSizeBox.self) {
            $0.reserved = zeros(3); $0.fieldSize = 8; $0.sampleCount = 2; $0.packed = [0x0A, 0x14]
        },
        Spec("stz2 (16-bit sizes)", "stz2", at: stbl, "00 000000 | 000000 | 10 | 00000002 | 012c 0005",
             dump: ["version: 0", "flags: 0", "fieldSize: 16", "sampleCount: 2", "entrySizes: 012c0005"], CompactSampleSizeBox.self) {
            $0.reserved = zeros(3); $0.fieldSize = 16; $0.sampleCount = 2; $0.packed = [0x01, 0x2C, 0x00, 0x05]
        },
        Spec("stco", "stco", at: stbl, "00 000000 | 00000002 | 00000030 000186a0",
             dump: ["version: 0", "flags: 0", "entryCount: 2", "chunkOffsets: [2] 48 100000"], ChunkOffsetBox.self) {
            $0.offsets = [48, 100_000]
        },
        Spec("co64", "co64", at: stbl, "00 000000 | 00000001 | 00000001 00000030",
             dump: ["version: 0", "flags: 0", "entryCount: 1", "chunkOffsetHalves: [2] 1 48"], ChunkLargeOffsetBox.self) {
            $0 = ChunkLargeOffsetBox(offsets: [1 << 32 | 48])
        },
        Spec("sgpd version 1 (roll, default length)", "sgpd", at: stbl, "01 000000 | 726f6c6c | 00000002 | 00000001 | ffff",
             dump: ["version: 1", "flags: 0", "groupingType: roll", "defaultLength: 2", "entryCount: 1", "entries: ffff"],
             SampleGroupDescriptionBox.self) {
            $0.header.version = 1; $0.defaultLength = 2; $0.entryCount = 1; $0.entries = [0xFF, 0xFF]
        },
        Spec("sgpd version 2 (sync, default length and index)", "sgpd", at: traf, "02 000000 | 73796e63 | 00000001 | 00000001 | 00000001 | 13",
             dump: ["version: 2", "flags: 0", "groupingType: sync", "defaultLength: 1", "defaultSampleDescriptionIndex: 1", "entryCount: 1",
                    "entries: 13"], SampleGroupDescriptionBox.self) {
            $0.header.version = 2; $0.groupingType = "sync"; $0.defaultLength = 1; $0.defaultDescriptionIndex = 1; $0.entryCount = 1
            $0.entries = [0x13]
        },
        Spec("sbgp version 0", "sbgp", at: stbl, "00 000000 | 726f6c6c | 00000002 | 0000000a 00000001 | 00000014 00000000",
             dump: ["version: 0", "flags: 0", "groupingType: roll", "entryCount: 2", "sampleCount,groupDescriptionIndex: [4] 10 1 20 0"],
             SampleToGroupBox.self) {
            $0.pairs = [10, 1, 20, 0]
        },
        Spec("sbgp version 1 (fragment-local index)", "sbgp", at: traf, "01 000000 | 73796e63 | 00000000 | 00000001 | 00000005 00010001",
             dump: ["version: 1", "flags: 0", "groupingType: sync", "groupingTypeParameter: 0", "entryCount: 1",
                    "sampleCount,groupDescriptionIndex: [2] 5 65537"], SampleToGroupBox.self) {
            $0.header.version = 1; $0.groupingType = "sync"; $0.pairs = [5, 0x10001]
        },
    ] }

    static var metadataRows: [Spec] { [
        Spec("keys", "keys", at: ["moov", "meta"], "00 000000 | 00000002 | 0000000d 6d647461 7469746c65 | 0000000e 6d647461 617274697374",
             dump: ["version: 0", "flags: 0", "entryCount: 2", "keys: [2]", "  [1] keySize: 13", "  [1] namespace: mdta",
                    "  [1] name: 7469746c65", "  [2] keySize: 14", "  [2] namespace: mdta", "  [2] name: 617274697374"],
             MetadataKeysBox.self) {
            var title = MetadataKeysBox.Key(); title.name = Array("title".utf8)
            var artist = MetadataKeysBox.Key(); artist.name = Array("artist".utf8)
            $0.keys = [title, artist]
        },
        Spec("data (UTF-8)", "data", at: ["moov", "meta", "ilst", FourCC(rawValue: 1)], "00000001 | 00000000 | 4170706c65",
             dump: ["typeIndicator: 1", "locale: 0", "value: 4170706c65", "text: Apple"], MetadataDataBox.self) {
            $0.value = Array("Apple".utf8)
        },
        Spec("data (signed integer)", "data", at: ["moov", "meta", "ilst", FourCC(rawValue: 2)], "00000015 | 00000000 | fffe",
             dump: ["typeIndicator: 21", "locale: 0", "value: fffe", "text: -2"], MetadataDataBox.self) {
            $0.typeIndicator = 21; $0.value = [0xFF, 0xFE]
        },
    ] }

    static var fragmentRows: [Spec] {
        var rows: [Spec] = [
            Spec("trex", "trex", at: ["moov", "mvex"], "00 000000 | 00000001 | 00000001 | 00000400 | 00000000 | 00010000",
                 dump: ["version: 0", "flags: 0", "trackID: 1", "defaultSampleDescriptionIndex: 1", "defaultSampleDuration: 1024",
                        "defaultSampleSize: 0", "defaultSampleFlags: 65536"], TrackExtendsBox.self) {
                $0.trackID = 1; $0.defaultSampleDuration = 1024; $0.defaultSampleFlags = 0x10000
            },
            Spec("mehd version 0", "mehd", at: ["moov", "mvex"], "00 000000 | 00001388",
                 dump: ["version: 0", "flags: 0", "fragmentDuration: 5000"], MovieExtendsHeaderBox.self) {
                $0.fragmentDuration = 5000
            },
            Spec("mehd version 1", "mehd", at: ["moov", "mvex"], "01 000000 | 00000001 00000000",
                 dump: ["version: 1", "flags: 0", "fragmentDuration: 4294967296"], MovieExtendsHeaderBox.self) {
                $0.header.version = 1; $0.fragmentDuration = 1 << 32
            },
            Spec("mfhd", "mfhd", at: ["moof"], "00 000000 | 00000007", dump: ["version: 0", "flags: 0", "sequenceNumber: 7"],
                 MovieFragmentHeaderBox.self) {
                $0.sequenceNumber = 7
            },
            Spec("tfdt version 0", "tfdt", at: traf, "00 000000 | 00015f90", dump: ["version: 0", "flags: 0", "baseMediaDecodeTime: 90000"],
                 TrackFragmentDecodeTimeBox.self) {
                $0.baseMediaDecodeTime = 90000
            },
            Spec("tfdt version 1", "tfdt", at: traf, "01 000000 | 00000002 00000000",
                 dump: ["version: 1", "flags: 0", "baseMediaDecodeTime: 8589934592"], TrackFragmentDecodeTimeBox.self) {
                $0.header.version = 1; $0.baseMediaDecodeTime = 1 << 33
            },
            Spec("sidx version 0", "sidx", at: [],
                 "00 000000 | 00000001 | 000003e8 | 00000000 | 00000000 | 0000 | 0002 | 00001000 000007d0 90000000 | 80000200 000007d0 00000000",
                 dump: ["version: 0", "flags: 0", "referenceID: 1", "timescale: 1000", "earliestPresentationTime: 0", "firstOffset: 0",
                        "referenceCount: 2", "references: [2]", "  [1] typeAndSize: 4096", "  [1] subsegmentDuration: 2000",
                        "  [1] sap: 2415919104", "  [2] typeAndSize: 2147484160", "  [2] subsegmentDuration: 2000", "  [2] sap: 0"],
                 SegmentIndexBox.self) {
                $0.referenceID = 1; $0.timescale = 1000
                var media = SegmentIndexBox.Reference(); media.typeAndSize = 4096; media.subsegmentDuration = 2000; media.sap = 0x9000_0000
                var index = SegmentIndexBox.Reference(); index.typeAndSize = 0x8000_0200; index.subsegmentDuration = 2000
                $0.references = [media, index]
            },
            Spec("sidx version 1", "sidx", at: [],
                 "01 000000 | 00000001 | 00015f90 | 00000001 00000000 | 00000000 00000010 | 0000 | 0001 | 00002000 00015f90 d0000000",
                 dump: ["version: 1", "flags: 0", "referenceID: 1", "timescale: 90000", "earliestPresentationTime: 4294967296",
                        "firstOffset: 16", "referenceCount: 1", "references: [1]", "  [1] typeAndSize: 8192",
                        "  [1] subsegmentDuration: 90000", "  [1] sap: 3489660928"], SegmentIndexBox.self) {
                $0.header.version = 1; $0.referenceID = 1; $0.timescale = 90000; $0.earliestPresentationTime = 1 << 32; $0.firstOffset = 16
                var media = SegmentIndexBox.Reference(); media.typeAndSize = 0x2000; media.subsegmentDuration = 90000; media.sap = 0xD000_0000
                $0.references = [media]
            },
            Spec("tfra version 0 (1-byte numbers)", "tfra", at: ["mfra"],
                 "00 000000 | 00000001 | 00000000 | 00000002 | 00000000 00000100 01 01 01 | 00000bb8 00000900 01 02 05",
                 dump: ["version: 0", "flags: 0", "trackID: 1", "lengthSizes: 0", "entryCount: 2", "entries: [2]", "  [1] time: 0",
                        "  [1] moofOffset: 256", "  [1] trafNumber: 1", "  [1] trunNumber: 1", "  [1] sampleNumber: 1", "  [2] time: 3000",
                        "  [2] moofOffset: 2304", "  [2] trafNumber: 1", "  [2] trunNumber: 2", "  [2] sampleNumber: 5"],
                 TrackFragmentRandomAccessBox.self) {
                $0.trackID = 1
                var first = TrackFragmentRandomAccessBox.Entry(); first.moofOffset = 256; first.trafNumber = 1; first.trunNumber = 1; first.sampleNumber = 1
                var second = TrackFragmentRandomAccessBox.Entry(); second.time = 3000; second.moofOffset = 2304; second.trafNumber = 1
                second.trunNumber = 2; second.sampleNumber = 5
                $0.entries = [first, second]
            },
            Spec("tfra version 1 (2-byte traf, 4-byte sample numbers)", "tfra", at: ["mfra"],
                 "01 000000 | 00000002 | 00000013 | 00000001 | 00000001 00000000 | 00000000 00001000 | 0001 | 01 | 00000001",
                 dump: ["version: 1", "flags: 0", "trackID: 2", "lengthSizes: 19", "entryCount: 1", "entries: [1]", "  [1] time: 4294967296",
                        "  [1] moofOffset: 4096", "  [1] trafNumber: 1", "  [1] trunNumber: 1", "  [1] sampleNumber: 1"],
                 TrackFragmentRandomAccessBox.self) {
                $0.header.version = 1; $0.trackID = 2; $0.lengthSizes = 0x13
                var entry = TrackFragmentRandomAccessBox.Entry(); entry.time = 1 << 32; entry.moofOffset = 4096
                entry.trafNumber = 1; entry.trunNumber = 1; entry.sampleNumber = 1
                $0.entries = [entry]
            },
            Spec("mfro", "mfro", at: ["mfra"], "00 000000 | 00000042", dump: ["version: 0", "flags: 0", "size: 66"],
                 MovieFragmentRandomAccessOffsetBox.self) {
                $0.size = 66
            },
        ]
        // tfhd: each optional field on its own, the two flags without fields, and everything at once.
        // Each row: the flags, track 1, then the fields those flags announce (hex and dump lines).
        func tfhd(_ name: String, flags: UInt32, _ fields: String, dump fieldLines: [String],
                  _ set: (inout TrackFragmentHeaderBox) -> Void = { _ in }) -> Spec {
            Spec("tfhd \(name)", "tfhd", at: traf, String(format: "00 %06x | 00000001", flags) + (fields.isEmpty ? "" : " | " + fields),
                 dump: ["version: 0", "flags: \(flags)", "trackID: 1"] + fieldLines, TrackFragmentHeaderBox.self) {
                $0.header.flags = flags; $0.trackID = 1; set(&$0)
            }
        }
        rows += [
            tfhd("base-data-offset-present", flags: 0x1, "00000000 00001000", dump: ["baseDataOffset: 4096"]) { $0.baseDataOffsetValue = 4096 },
            tfhd("sample-description-index-present", flags: 0x2, "00000002", dump: ["sampleDescriptionIndex: 2"]) {
                $0.sampleDescriptionIndexValue = 2
            },
            tfhd("default-sample-duration-present", flags: 0x8, "00000400", dump: ["defaultSampleDuration: 1024"]) {
                $0.defaultSampleDurationValue = 1024
            },
            tfhd("default-sample-size-present", flags: 0x10, "000001f4", dump: ["defaultSampleSize: 500"]) { $0.defaultSampleSizeValue = 500 },
            tfhd("default-sample-flags-present", flags: 0x20, "01010000", dump: ["defaultSampleFlags: 16842752"]) {
                $0.defaultSampleFlagsValue = 0x0101_0000
            },
            tfhd("duration-is-empty", flags: 0x1_0000, "", dump: []),
            tfhd("default-base-is-moof", flags: 0x2_0000, "", dump: []),
            tfhd("every field", flags: 0x2_003B, "00000000 00001000 | 00000002 | 00000400 | 000001f4 | 01010000",
                 dump: ["baseDataOffset: 4096", "sampleDescriptionIndex: 2", "defaultSampleDuration: 1024", "defaultSampleSize: 500",
                        "defaultSampleFlags: 16842752"]) {
                $0.baseDataOffsetValue = 4096; $0.sampleDescriptionIndexValue = 2
                $0.defaultSampleDurationValue = 1024; $0.defaultSampleSizeValue = 500; $0.defaultSampleFlagsValue = 0x0101_0000
            },
        ]
        // trun: each flag on its own (version 0, two samples unless said), then every flag in version 1
        // with a negative offset. Each row: the flags, the sample count, then what the flags announce.
        func samples(_ set: (inout TrackRunBox.Entry, Int) -> Void) -> [TrackRunBox.Entry] {
            (0..<2).map { index in var entry = TrackRunBox.Entry(); set(&entry, index); return entry }
        }
        func trun(_ name: String, flags: UInt32, count: UInt32 = 2, _ fields: String, dump fieldLines: [String],
                  _ set: (inout TrackRunBox) -> Void) -> Spec {
            Spec("trun \(name)", "trun", at: traf, String(format: "00 %06x | %08x | ", flags, count) + fields,
                 dump: ["version: 0", "flags: \(flags)", "sampleCount: \(count)"] + fieldLines, TrackRunBox.self) {
                $0.header.flags = flags; $0.sampleCount = count; set(&$0)
            }
        }
        rows += [
            trun("data-offset-present", flags: 0x1, "00000100", dump: ["dataOffset: 256"]) { $0.dataOffsetValue = 256 },
            trun("first-sample-flags-present", flags: 0x4, count: 1, "02000000", dump: ["firstSampleFlags: 33554432"]) {
                $0.firstSampleFlagsValue = 0x0200_0000
            },
            trun("sample-duration-present", flags: 0x100, "00000400 | 00000400",
                 dump: ["samples: [2]", "  [1] sampleDuration: 1024", "  [2] sampleDuration: 1024"]) {
                $0.entries = samples { entry, _ in entry.duration = 1024 }
            },
            trun("sample-size-present", flags: 0x200, "000001f4 | 000001f5", dump: ["samples: [2]", "  [1] sampleSize: 500", "  [2] sampleSize: 501"]) {
                $0.entries = samples { entry, index in entry.size = 500 + UInt32(index) }
            },
            trun("sample-flags-present", flags: 0x400, "02000000 | 01010000",
                 dump: ["samples: [2]", "  [1] sampleFlags: 33554432", "  [2] sampleFlags: 16842752"]) {
                $0.entries = samples { entry, index in entry.flags = index == 0 ? 0x0200_0000 : 0x0101_0000 }
            },
            trun("sample-composition-time-offsets-present (version 0)", flags: 0x800, "00000000 | 000003e9",
                 dump: ["samples: [2]", "  [1] sampleCompositionOffset: 0", "  [2] sampleCompositionOffset: 1001"]) {
                $0.entries = samples { entry, index in entry.compositionOffsetBits = index == 0 ? 0 : 1001 }
            },
            Spec("trun every flag (version 1, negative offset)", "trun", at: traf,
                 "01 000f05 | 00000002 | ffffff00 | 02000000 | 00000400 000001f4 02000000 fffffc17 | 00000400 000001f5 01010000 000003e9",
                 dump: ["version: 1", "flags: 3845", "sampleCount: 2", "dataOffset: -256", "firstSampleFlags: 33554432", "samples: [2]",
                        "  [1] sampleDuration: 1024", "  [1] sampleSize: 500", "  [1] sampleFlags: 33554432",
                        "  [1] sampleCompositionOffset: -1001", "  [2] sampleDuration: 1024", "  [2] sampleSize: 501",
                        "  [2] sampleFlags: 16842752", "  [2] sampleCompositionOffset: 1001"], TrackRunBox.self) {
                $0.header = FullBoxHeader(version: 1, flags: 0xF05); $0.sampleCount = 2; $0.dataOffsetValue = -256
                $0.firstSampleFlagsValue = 0x0200_0000
                $0.entries = samples { entry, index in
                    entry.duration = 1024; entry.size = 500 + UInt32(index); entry.flags = index == 0 ? 0x0200_0000 : 0x0101_0000
                    entry.compositionOffsetBits = index == 0 ? UInt32(bitPattern: -1001) : 1001
                }
            },
        ]
        return rows
    }

    /// The fields of sample entries: not registry views, chosen by the track's handler.
    static var sampleEntryRows: [Spec] { [
        Spec("avc1 (VisualSampleEntry)", "avc1", at: stsd, handler: "vide",
             "000000000000 | 0001 | 0000 | 0000 | 00000000 | 00000000 | 00000000 | 0780 | 0438 | 00480000 | 00480000 | 00000000 | 0001 | "
                + "0a41564320436f64696e67" + String(repeating: "00", count: 21) + " | 0018 | ffff",
             dump: ["dataReferenceIndex: 1", "version: 0", "revisionLevel: 0", "vendor: 0", "temporalQuality: 0", "spatialQuality: 0",
                    "width: 1920", "height: 1080", "horizontalResolution: 4718592", "verticalResolution: 4718592", "dataSize: 0",
                    "frameCount: 1", "compressorName: 0a41564320436f64696e67" + String(repeating: "00", count: 21), "depth: 24",
                    "colorTableID: -1"], VisualSampleEntry.self) {
            $0.header.reserved = zeros(6); $0.width = 1920; $0.height = 1080
            $0.compressorName = [10] + Array("AVC Coding".utf8) + zeros(21)
        },
        Spec("mp4a (AudioSampleEntry, ISO / SoundDescription version 0)", "mp4a", at: stsd, handler: "soun",
             "000000000000 | 0001 | 0000 | 0000 | 00000000 | 0002 | 0010 | 0000 | 0000 | ac440000",
             dump: ["dataReferenceIndex: 1", "version: 0", "revisionLevel: 0", "vendor: 0", "channelCount: 2", "sampleSize: 16",
                    "compressionID: 0", "packetSize: 0", "sampleRate: 2890137600"], AudioSampleEntry.self) {
            $0.header.reserved = zeros(6); $0.sampleRate = 44100 << 16
        },
        Spec("mp4a (SoundDescription version 1)", "mp4a", at: stsd, handler: "soun",
             "000000000000 | 0001 | 0001 | 0000 | 00000000 | 0002 | 0010 | fffe | 0000 | bb800000 | 00000400 | 00000000 | 00000000 | 00000002",
             dump: ["dataReferenceIndex: 1", "version: 1", "revisionLevel: 0", "vendor: 0", "channelCount: 2", "sampleSize: 16",
                    "compressionID: -2", "packetSize: 0", "sampleRate: 3145728000", "samplesPerPacket: 1024", "bytesPerPacket: 0",
                    "bytesPerFrame: 0", "bytesPerSample: 2"], AudioSampleEntry.self) {
            $0.header.reserved = zeros(6); $0.version = 1; $0.compressionID = -2; $0.sampleRate = 48000 << 16
            $0.samplesPerPacket = 1024; $0.bytesPerSample = 2
        },
        Spec("apac (SoundDescription version 2)", "apac", at: stsd, handler: "soun",
             "000000000000 | 0001 | 0002 | 0000 | 00000000 | 0003 | 0010 | fffe | 0000 | 00010000 | 00000048 | 40e7700000000000 | "
                + "00000004 | 7f000000 | 00000000 | 00000000 | 00000000 | 00000400",
             dump: ["dataReferenceIndex: 1", "version: 2", "revisionLevel: 0", "vendor: 0", "channelCount: 3", "sampleSize: 16",
                    "compressionID: -2", "packetSize: 0", "sampleRate: 65536", "sizeOfStructOnly: 72",
                    "audioSampleRateFloat64Bits: 4676829883349860352", "numAudioChannels: 4", "always7F000000: 2130706432",
                    "constBitsPerChannel: 0", "formatSpecificFlags: 0", "constBytesPerAudioPacket: 0",
                    "constLPCMFramesPerAudioPacket: 1024"], AudioSampleEntry.self) {
            $0.header.reserved = zeros(6); $0.version = 2; $0.channelCount = 3; $0.compressionID = -2; $0.sampleRate = 1 << 16
            $0.audioSampleRateBits = (48000.0 as Double).bitPattern; $0.audioChannels = 4; $0.constLPCMFramesPerAudioPacket = 1024
        },
    ] }

    static var rows: [Spec] { fileRows + headerRows + codecRows + sampleTableRows + metadataRows + fragmentRows + sampleEntryRows }

    // MARK: - The checks

    /// The view the dump and the round-trip tests would pick for the row's box, in the row's context.
    func view(for row: Spec) -> (any FieldCodable.Type)? {
        if row.ancestors.last == "stsd" { return BoxSchema.sampleEntryView(handler: row.handler) }
        return BoxRegistry.view(for: row.type, parent: row.ancestors.last, grandparent: row.ancestors.dropLast().last)
    }

    func testBytesDecodeToTheValue() throws {
        for row in Self.rows {
            let view = try XCTUnwrap(view(for: row), "\(row.name): no view for \(row.type) under \(row.ancestors)")
            XCTAssertTrue(ObjectIdentifier(view) == ObjectIdentifier(row.view), "\(row.name): the registry picks \(view), the row is \(row.view)")
            let decoded = try view.init(decoding: row.bytes, baseOffset: 0, path: row.type.description)
            XCTAssertTrue(row.equalsValue(decoded), "\(row.name): decoded \(decoded)")
        }
    }

    func testValueEncodesToTheBytes() throws {
        for row in Self.rows {
            let encoded = try row.encodeValue()
            XCTAssertEqual(FieldDumper.hex(encoded, limit: 1000), FieldDumper.hex(row.bytes, limit: 1000), row.name)
        }
    }

    func testDumpPrintsTheText() {
        for row in Self.rows {
            let lines = BoxDump(boxes: []).fields(of: row.box, context: row.context, redact: false)
            XCTAssertEqual(lines, row.dump, row.name)
        }
    }

    /// The parser gives each row's box the context the row claims (so the three checks above test
    /// what `keeptrack dump` does): the sample entries become containers of their track's kind.
    func testTheParserLaysOutSampleEntriesByHandler() throws {
        for row in Self.sampleEntryRows {
            var context = ParseContext()
            context.ancestors = Array(row.ancestors)
            context.handler = row.handler
            XCTAssertEqual(BoxSchema.layout(of: row.type, payload: row.bytes, context: context),
                           .container(prefix: row.bytes.count, strict: false), row.name)
        }
    }

    /// Every view in the registry (and every type it is registered for) has a row; a new box without one fails here.
    func testEveryRegisteredViewHasASpecRow() {
        for view in BoxRegistry.views {
            let rows = Self.rows.filter { ObjectIdentifier($0.view) == ObjectIdentifier(view) }
            XCTAssertFalse(rows.isEmpty, "\(view) has no row in BoxSpecTests")
            for type in view.types where !rows.contains(where: { $0.type == type }) {
                XCTFail("\(view) is registered for '\(type)', which has no row in BoxSpecTests")
            }
        }
        for form in [SampleEntryForm.visual, .audio] {
            let handler: FourCC = form == .visual ? "vide" : "soun"
            XCTAssertTrue(Self.rows.contains { $0.handler == handler }, "no sample entry row for \(form)")
        }
    }

    /// A dump shows the first records of a long list, numbered, then `…`; `--all-entries` shows them all.
    func testLongRecordListsAreCutInDumps() throws {
        var edits = EditListBox()
        edits.entries = (0..<12).map { index in var entry = EditListBox.Entry(); entry.segmentDuration = UInt64(index); return entry }
        let lines = edits.dumpLines(limit: 10)
        XCTAssertEqual(lines.filter { $0.hasPrefix("  [10] segmentDuration") }, ["  [10] segmentDuration: 9"])
        XCTAssertFalse(lines.contains { $0.hasPrefix("  [11]") })
        XCTAssertEqual(lines.last, "  …")
        XCTAssertTrue(edits.dumpLines(limit: .max).contains("  [12] segmentDuration: 11"))
        XCTAssertEqual(try EditListBox(decoding: try edits.encoded()), edits)
    }

    // MARK: - Values that cannot be written as they are

    func testInvalidCompactFieldSizeIsAnErrorNotATruncatedPayload() throws {
        var box = try CompactSampleSizeBox(decoding: Self.bytes("00 000000 | 000000 | 08 | 00000002 | 0a 14"))
        box.fieldSize = 12
        XCTAssertThrowsError(try box.encoded()) { error in
            XCTAssertTrue("\(error)".contains("stz2 field size 12 is not 4, 8 or 16"), "\(error)")
            XCTAssertEqual((error as? KeepTrackError)?.exitCode, 65)
        }
        // Decoding one says where it is.
        XCTAssertThrowsError(try CompactSampleSizeBox(decoding: Self.bytes("00 000000 | 000000 | 0c | 00000002 | 0a 14"),
                                                      baseOffset: 1000, path: "moov/trak/mdia/minf/stbl/stz2")) { error in
            XCTAssertTrue("\(error)".contains("moov/trak/mdia/minf/stbl/stz2 at byte 1008"), "\(error)")
        }
        box.fieldSize = 8
        box.packed = [1]
        XCTAssertThrowsError(try box.encoded(), "one byte of sizes for two 8-bit samples")
    }

    func testCountsThatDisagreeWithTheirEntriesAreErrors() {
        var sidx = SegmentIndexBox()
        sidx.references = Array(repeating: SegmentIndexBox.Reference(), count: 65_536) // referenceCount is 16 bits
        XCTAssertThrowsError(try sidx.encoded())
        var trun = TrackRunBox()
        trun.header.flags = TrackRunBox.sampleSizePresent
        trun.sampleCount = 3
        trun.entries = [TrackRunBox.Entry()]
        XCTAssertThrowsError(try trun.encoded())
        var stts = TimeToSampleBox()
        stts.pairs = [1, 2, 3]
        XCTAssertThrowsError(try stts.encoded(), "half a (count, delta) pair")
        var mvhd = MovieHeaderBox()
        mvhd.duration = 1 << 32 // needs version 1
        XCTAssertThrowsError(try mvhd.encoded())
        mvhd.header.version = 1
        XCTAssertNoThrow(try mvhd.encoded())
        var tkhd = TrackHeaderBox()
        tkhd.header.flags = 0x100_0000 // flags are 24 bits
        XCTAssertThrowsError(try tkhd.encoded())
        var hdlr = HandlerBox()
        hdlr.reserved = Self.zeros(13)
        XCTAssertThrowsError(try hdlr.encoded(), "13 bytes in a 12-byte field")
    }

    func testDecodedCompactSizesAreTheSizes() throws {
        XCTAssertEqual(try CompactSampleSizeBox(decoding: Self.bytes("00 000000 | 000000 | 04 | 00000003 | 12 30")).sizes(), [1, 2, 3])
        XCTAssertEqual(try CompactSampleSizeBox(decoding: Self.bytes("00 000000 | 000000 | 08 | 00000002 | 0a 14")).sizes(), [10, 20])
        XCTAssertEqual(try CompactSampleSizeBox(decoding: Self.bytes("00 000000 | 000000 | 10 | 00000002 | 012c 0005")).sizes(), [300, 5])
    }
}
