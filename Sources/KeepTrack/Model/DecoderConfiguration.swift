/// A sample description whose decoder configuration no decoder can be opened with: parameter sets
/// that run past their box, an AAC `esds` with an empty or unreadable AudioSpecificConfig, a
/// QuickTime sound description whose sample rate is not a rate. The container around it reads fine,
/// so every command used to call such a file clean and copy it on; FFmpeg refuses the file or the
/// stream ("error reading header", "Invalid NAL unit size in extradata", "Invalid sample rate").
public struct BrokenDecoderConfiguration: Sendable, Equatable {
    public var trackID: UInt32
    /// The box at fault, e.g. `moov/trak[2]/mdia/minf/stbl/stsd/mp4a/esds`.
    public var path: String
    public var offset: UInt64
    public var reason: String

    public var text: String { "\(path) at byte \(offset): \(reason)" }
}

extension Track {
    /// Every sample entry's decoder configuration that is broken in a way the bytes prove (see
    /// `BrokenDecoderConfiguration`); configurations keeptrack does not read are not judged.
    public var brokenDecoderConfigurations: [BrokenDecoderConfiguration] {
        var found: [BrokenDecoderConfiguration] = []
        for (index, entry) in sampleEntries.enumerated() {
            let entryPath = path + "/mdia/minf/stbl/stsd/" + entry.type.description + (sampleEntries.count > 1 ? "[\(index + 1)]" : "")
            func add(_ box: Box, _ name: String, _ reason: String?) {
                guard let reason else { return }
                found.append(BrokenDecoderConfiguration(trackID: id, path: name.isEmpty ? entryPath : entryPath + "/" + name, offset: box.offset, reason: reason))
            }
            guard entry.isContainer else {
                // Kept whole because its boxes do not parse: the avcC or hvcC in it is lost to every decoder.
                if let config = DecoderConfigurationCheck.videoConfigurations[entry.type] {
                    add(entry, "", DecoderConfigurationCheck.unreadableChildren(entry.payload, configuration: config))
                }
                continue
            }
            if let avcC = entry.first("avcC") { add(avcC, "avcC", DecoderConfigurationCheck.avc(avcC.payload)) }
            if let hvcC = entry.first("hvcC") { add(hvcC, "hvcC", DecoderConfigurationCheck.hevc(hvcC.payload)) }
            if kind == .audio {
                if let esds = entry.first("esds") {
                    add(esds, "esds", DecoderConfigurationCheck.elementaryStream(esds))
                } else if let esds = entry.find(["wave", "esds"]) {
                    add(esds, "wave/esds", DecoderConfigurationCheck.elementaryStream(esds))
                }
            }
        }
        return found
    }
}

/// The structural checks, each returning why the configuration is broken or nil.
enum DecoderConfigurationCheck {
    /// AVCDecoderConfigurationRecord (ISO/IEC 14496-15 5.3.3.1): version 1, then every SPS and PPS
    /// with its 16-bit length inside the box. FFmpeg reads a record of another version as Annex B.
    static func avc(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 7 else { return "an AVC configuration of \(bytes.count) bytes (at least 7: header, SPS and PPS counts)" }
        // FFmpeg reads a record of another version as Annex B (start codes), which some writers store there.
        if bytes[0] != 1 {
            let annexB = bytes.starts(with: [0, 0, 1]) || bytes.starts(with: [0, 0, 0, 1])
            return annexB ? nil : "AVC configuration version \(bytes[0]) (1 is the only one), and no Annex B start code either"
        }
        var position = 6
        if let reason = parameterSets(bytes, &position, count: Int(bytes[5] & 0x1F), name: "sequence parameter set") {
            return reason
        }
        guard position < bytes.count else { return "the AVC configuration ends before its picture parameter set count" }
        let pictureSets = Int(bytes[position])
        position += 1
        return parameterSets(bytes, &position, count: pictureSets, name: "picture parameter set")
    }

    /// HEVCDecoderConfigurationRecord (ISO/IEC 14496-15 8.3.3.1): 22 bytes of fields, then arrays of
    /// NAL units, each with its 16-bit length, inside the box.
    static func hevc(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 23 else { return "an HEVC configuration of \(bytes.count) bytes (at least 23: fields and array count)" }
        var position = 23
        // FFmpeg reads past the end as zeros (arrays of no units): only a unit claiming bytes that are not there fails it.
        for _ in 0..<Int(bytes[22]) where position + 3 <= bytes.count {
            let type = bytes[position] & 0x3F
            let units = Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
            position += 3
            if let reason = parameterSets(bytes, &position, count: units, name: "NAL unit of an array of type \(type)", lenientEnd: true) {
                return reason
            }
        }
        return nil
    }

    /// `count` NAL units, each a 16-bit length and its bytes, from `position`.
    /// `lenientEnd`: a length that is not there at all ends the list (read as zeros), as FFmpeg's HEVC reader does.
    static func parameterSets(_ bytes: [UInt8], _ position: inout Int, count: Int, name: String, lenientEnd: Bool = false) -> String? {
        for unit in 0..<count {
            guard position + 2 <= bytes.count else {
                if lenientEnd && position >= bytes.count { return nil }
                return "\(name) \(unit + 1) of \(count) starts past the end of the \(bytes.count)-byte configuration"
            }
            let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            guard position + 2 + length <= bytes.count else {
                return "\(name) \(unit + 1) of \(count) claims \(length) bytes, \(bytes.count - position - 2) remain in the configuration"
            }
            position += 2 + length
        }
        return nil
    }

    /// Video sample entries and the configuration box their decoder is opened with.
    static let videoConfigurations: [FourCC: String] = ["avc1": "avcC", "avc2": "avcC", "avc3": "avcC", "avc4": "avcC",
                                                       "hvc1": "hvcC", "hev1": "hvcC", "dvh1": "hvcC", "dvhe": "hvcC"]

    /// Why a video sample entry's boxes (after its 78 bytes of fields) do not parse, read as FFmpeg reads them: a size
    /// of 0 or past the entry runs to the entry's end, fewer than 8 bytes left are ignored, a size below 8 ends the
    /// reading. Nil when the configuration box is found that way and is whole.
    static func unreadableChildren(_ payload: [UInt8], configuration: String) -> String? {
        var position = 78
        while position + 8 <= payload.count {
            func u32(_ at: Int) -> Int { Int(payload[at]) << 24 | Int(payload[at + 1]) << 16 | Int(payload[at + 2]) << 8 | Int(payload[at + 3]) }
            var size = u32(position), header = 8
            let type = String(decoding: payload[(position + 4)..<(position + 8)].map { (32...126).contains($0) ? $0 : 63 }, as: UTF8.self)
            let remaining = payload.count - position
            if size == 1 {
                guard position + 16 <= payload.count, u32(position + 8) == 0 else {
                    return "its boxes cannot be read: the \(type) box at entry byte \(position) claims a 64-bit size past the entry, so no decoder finds its \(configuration)"
                }
                size = u32(position + 12)
                header = 16
            }
            if size == 0 || size > remaining { size = remaining }
            guard size >= header else {
                return "its boxes cannot be read: the \(type) box at entry byte \(position) claims \(size) bytes, less than its header, so no decoder finds its \(configuration)"
            }
            if type == configuration {
                let bytes = Array(payload[(position + header)..<(position + size)])
                return configuration == "avcC" ? avc(bytes) : hevc(bytes)
            }
            position += size
        }
        return nil
    }

    /// An `esds` whose AAC DecoderSpecificInfo is empty or is no
    /// AudioSpecificConfig (object type 0 or undefined, a reserved sampling frequency index).
    static func elementaryStream(_ box: Box) -> String? {
        guard let esds = try? ElementaryStreamDescriptorBox(box: box) else { return nil }
        // Descriptors that run past the box are not judged: FFmpeg reads what is there and opens the decoder from the entry.
        guard let config = try? esds.decoderConfig(), MPEG4ObjectType.aac.contains(config.objectType), let info = config.specificInfo else { return nil }
        guard !info.isEmpty else { return "the AAC DecoderSpecificInfo is empty: no AudioSpecificConfig to open the decoder with" }
        guard let audio = try? AudioSpecificConfig(bytes: info) else {
            return "the AAC AudioSpecificConfig (\(info.count) bytes) ends before its fields"
        }
        if audio.audioObjectType == 0 || audio.audioObjectType > 45 {
            return "the AAC AudioSpecificConfig names audio object type \(audio.audioObjectType), which is \(audio.audioObjectType == 0 ? "null" : "undefined")"
        }
        if audio.samplingFrequency == nil || audio.samplingFrequency == 0 {
            return "the AAC AudioSpecificConfig's sampling frequency index \(audio.samplingFrequencyIndex) names no rate"
        }
        return nil
    }
}

extension Movie {
    /// The first sample of each AVC or HEVC track, read as NAL units with the length size its `avcC` or `hvcC` says,
    /// must be filled by them: a configuration whose length size was changed, or media segments of another rendition
    /// (AAC packets under an `avc1` init segment) were copied with exit 0, and FFmpeg decoded nothing. Reads a few bytes
    /// per NAL unit of one sample per track.
    static func firstSampleMismatches(_ tracks: [Track], source: ByteSource) -> [BrokenDecoderConfiguration] {
        var found: [BrokenDecoderConfiguration] = []
        for track in tracks where track.protection == nil {
            guard let entry = track.sampleEntries.first, entry.isContainer,
                  let name = DecoderConfigurationCheck.videoConfigurations[entry.type], let config = entry.first(FourCC(name)) else { continue }
            let bytes = config.payload
            let at = name == "avcC" ? 4 : 21
            guard bytes.count > at, (name == "avcC" ? DecoderConfigurationCheck.avc(bytes) : DecoderConfigurationCheck.hevc(bytes)) == nil else { continue }
            let lengthSize = Int(bytes[at] & 3) + 1
            var samples = track.sampleTable.samples.makeIterator()
            guard let sample = samples.next(), sample.size > 0, sample.offset + UInt64(sample.size) <= source.size,
                  let reason = DecoderConfigurationCheck.nalUnitsFill(sample: sample.offset, size: Int(sample.size), lengthSize: lengthSize, source: source)
            else { continue }
            found.append(BrokenDecoderConfiguration(trackID: track.id, path: track.path + "/mdia/minf/stbl/stsd/\(entry.type)/\(name)", offset: config.offset,
                reason: "the first sample (\(sample.size) bytes at byte \(sample.offset)) is not NAL units with the \(lengthSize)-byte lengths \(name) says: \(reason)"))
        }
        return found
    }
}

extension DecoderConfigurationCheck {
    /// Why the NAL units with `lengthSize`-byte lengths do not fill the sample, or nil. Zero bytes to its end (at
    /// most 64) are padding. At most 4,096 units are walked.
    static func nalUnitsFill(sample offset: UInt64, size: Int, lengthSize: Int, source: ByteSource) -> String? {
        var position = 0
        for _ in 0..<4096 {
            let remaining = size - position
            if remaining == 0 { return nil }
            guard let prefix = try? source.read(at: offset + UInt64(position), count: min(lengthSize, remaining)) else { return nil }
            guard remaining >= lengthSize else {
                return prefix.allSatisfy { $0 == 0 } ? nil : "\(remaining) bytes are left at its end, too few for a length"
            }
            let length = prefix.reduce(0) { $0 << 8 | Int($1) }
            if length == 0 {
                // Zeros to the end are padding, and a sample of zeros (a hole a recorder left) says nothing of the
                // configuration; a unit of no bytes before more data is no unit (FFmpeg stops there).
                let rest = try? source.read(at: offset + UInt64(position), count: min(remaining, 64))
                let zeros = rest?.allSatisfy { $0 == 0 } == true && (remaining <= 64 || position == 0)
                return zeros ? nil : "NAL unit \(position == 0 ? "1" : "at sample byte \(position)") has a length of 0"
            }
            guard length <= remaining - lengthSize else {
                return "NAL unit \(position == 0 ? "1" : "at sample byte \(position)") claims \(length) bytes, \(remaining - lengthSize) remain"
            }
            position += lengthSize + length
        }
        return nil
    }
}

extension Movie {
    /// Refuses to decode `track` when its decoder configuration is broken (lint's `decoder-config-broken`): the
    /// decoder would fail on some packet with "Invalid data", naming neither the box nor why.
    public func checkDecodable(_ track: Track, purpose: String) throws {
        guard let broken = tolerated.first(where: { $0.kind == .decoderConfigurationBroken && $0.path.hasPrefix(track.path + "/") }) else { return }
        throw KeepTrackError.malformed(path: broken.path, offset: broken.offset, reason: "\(broken.message); \(purpose) needs its pictures decoded")
    }
}
