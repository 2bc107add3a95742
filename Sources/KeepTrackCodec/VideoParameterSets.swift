import Foundation
import KeepTrack

/// H.264 / HEVC elementary-stream helpers for muxing an encoder's output into a movie: encoders such as
/// libx264 and libx265 emit Annex B (start-code delimited) NAL units; movies store them length-prefixed
/// and keep the parameter sets in an `avcC` / `hvcC` configuration box in the sample entry.
public enum VideoParameterSets {
    /// NAL units of an Annex B stream (00 00 01 or 00 00 00 01 start codes), without the start codes.
    public static func annexBUnits(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [(codeStart: Int, payload: Int)] = []
        // memchr finds each candidate 01 byte; only those are checked for the two zeros before them.
        // A byte-by-byte loop cost three comparisons per byte of every encoded frame (and, in the fuzz
        // harness, where each comparison is traced, half of all the CPU on large Annex B inputs).
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count >= 3 else { return }
            var search = 2  // the earliest position a start code's 01 can have
            while search < buffer.count,
                  let found = memchr(base + search, 1, buffer.count - search) {
                let one = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if buffer[one - 1] == 0, buffer[one - 2] == 0 {
                    let index = one - 2
                    starts.append((index > 0 && buffer[index - 1] == 0 ? index - 1 : index, one + 1))
                    search = one + 3
                } else {
                    search = one + 1
                }
            }
        }
        return starts.enumerated().compactMap { position, start in
            var end = position + 1 < starts.count ? starts[position + 1].codeStart : bytes.count
            while end > start.payload, bytes[end - 1] == 0 { end -= 1 }  // trailing zero bytes belong to no unit
            return end > start.payload ? bytes[start.payload..<end] : nil
        }
    }

    /// An Annex B access unit rewritten with 4-byte big-endian lengths, as stored in movie samples.
    public static func lengthPrefixed(annexB bytes: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: bytes.count + 16)
        for unit in annexBUnits(bytes) {
            writer.u32(UInt32(unit.count))
            writer.append(unit)
        }
        return writer.bytes
    }

    /// `avcC` payload (AVCDecoderConfigurationRecord) from Annex B parameter sets (SPS type 7, PPS type 8).
    public static func avcConfiguration(annexB bytes: [UInt8]) throws -> [UInt8] {
        let units = annexBUnits(bytes)
        let sps = units.filter { ($0.first ?? 0) & 0x1F == 7 }
        let pps = units.filter { ($0.first ?? 0) & 0x1F == 8 }
        guard let first = sps.first, first.count >= 4, !pps.isEmpty else {
            throw KeepTrackError.unsupported("H.264 encoder configuration has no SPS/PPS")
        }
        // The record's fields hold at most 31 SPS, 255 PPS and 65,535 bytes per unit: more is not an
        // encoder's configuration (and would not fit), so it is refused rather than trapped on.
        guard sps.count <= 31, pps.count <= 255, (sps + pps).allSatisfy({ $0.count <= 0xFFFF }) else {
            throw KeepTrackError.unsupported("H.264 encoder configuration has \(sps.count) SPS and \(pps.count) PPS units (or one longer than 65,535 bytes): more than avcC holds")
        }
        let profile = first[first.startIndex + 1]
        var writer = ByteWriter()
        writer.u8(1)
        writer.append(first[(first.startIndex + 1)..<(first.startIndex + 4)])  // profile, compatibility, level
        writer.u8(0xFF)  // 4-byte NAL lengths
        writer.u8(0xE0 | UInt8(sps.count))
        for unit in sps { writer.u16(UInt16(unit.count)); writer.append(unit) }
        writer.u8(UInt8(pps.count))
        for unit in pps { writer.u16(UInt16(unit.count)); writer.append(unit) }
        if [100, 110, 122, 144].contains(profile) {
            let format = try AVCSequenceFormat(sps: Array(first))
            writer.u8(0xFC | format.chromaFormat)
            writer.u8(0xF8 | format.bitDepthLumaMinus8)
            writer.u8(0xF8 | format.bitDepthChromaMinus8)
            writer.u8(0)  // no SPS extensions
        }
        return writer.bytes
    }

    /// `hvcC` payload (HEVCDecoderConfigurationRecord) from Annex B VPS (32), SPS (33), PPS (34) and SEI units.
    public static func hevcConfiguration(annexB bytes: [UInt8]) throws -> [UInt8] {
        let units = annexBUnits(bytes)
        func type(_ unit: ArraySlice<UInt8>) -> UInt8 { ((unit.first ?? 0) >> 1) & 0x3F }
        guard let sps = units.first(where: { type($0) == 33 }), units.contains(where: { type($0) == 32 }),
              units.contains(where: { type($0) == 34 }) else {
            throw KeepTrackError.unsupported("HEVC encoder configuration lacks VPS/SPS/PPS")
        }
        let info = try HEVCSequenceInfo(sps: Array(sps))
        var writer = ByteWriter()
        writer.u8(1)
        writer.append(info.profileTierLevel[0..<12])  // general profile space/tier/idc, compatibility, constraints, level
        writer.u16(0xF000)  // min_spatial_segmentation_idc 0
        writer.u8(0xFC)  // parallelismType 0
        writer.u8(0xFC | info.chromaFormat)
        writer.u8(0xF8 | info.bitDepthLumaMinus8)
        writer.u8(0xF8 | info.bitDepthChromaMinus8)
        writer.u16(0)  // avgFrameRate unknown
        // constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3
        writer.u8(((info.maxSubLayersMinus1 + 1) << 3) | (info.temporalIdNesting << 2) | 3)
        let arrays = [32, 33, 34, 39, 40].compactMap { nalType -> (UInt8, [ArraySlice<UInt8>])? in
            let matching = units.filter { type($0) == nalType }
            return matching.isEmpty ? nil : (UInt8(nalType), matching)
        }
        guard arrays.allSatisfy({ $0.1.count <= 0xFFFF && $0.1.allSatisfy { $0.count <= 0xFFFF } }) else {
            throw KeepTrackError.unsupported("HEVC encoder configuration has more than 65,535 units of one type (or one longer than 65,535 bytes): more than hvcC holds")
        }
        writer.u8(UInt8(arrays.count))
        for (nalType, matching) in arrays {
            writer.u8((nalType <= 34 ? 0x80 : 0) | nalType)  // array_completeness for parameter sets
            writer.u16(UInt16(matching.count))
            for unit in matching { writer.u16(UInt16(unit.count)); writer.append(unit) }
        }
        return writer.bytes
    }
}

/// Reads bits of a NAL unit payload with emulation-prevention bytes removed.
struct RBSPBitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(nal: [UInt8], skippingHeaderBytes header: Int) {
        var payload: [UInt8] = []
        payload.reserveCapacity(nal.count)
        var zeros = 0
        for byte in nal.dropFirst(header) {
            if zeros >= 2, byte == 3 { zeros = 0; continue }
            zeros = byte == 0 ? zeros + 1 : 0
            payload.append(byte)
        }
        bytes = payload
    }

    mutating func bit() throws -> UInt32 {
        guard position < bytes.count * 8 else {
            throw KeepTrackError.unsupported("parameter set ends early (bit \(position))")
        }
        defer { position += 1 }
        return UInt32(bytes[position / 8] >> (7 - UInt8(position % 8)) & 1)
    }

    mutating func bits(_ count: Int) throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count { value = value << 1 | (try bit()) }
        return value
    }

    /// An unsigned Exp-Golomb value that the syntax allows to be at most `maximum` (chroma format
    /// 3, bit depth 6 or 8), so it fits the record's field.
    mutating func ue(atMost maximum: UInt32, _ name: String) throws -> UInt8 {
        let value = try ue()
        guard value <= maximum else { throw KeepTrackError.unsupported("parameter set has \(name) \(value), more than \(maximum)") }
        return UInt8(value)
    }

    /// Unsigned Exp-Golomb.
    mutating func ue() throws -> UInt32 {
        var zeros = 0
        while try bit() == 0 {
            zeros += 1
            guard zeros < 32 else { throw KeepTrackError.unsupported("bad Exp-Golomb code in parameter set") }
        }
        return (1 << UInt32(zeros)) - 1 + (try bits(zeros))
    }

    mutating func byteAligned(_ count: Int) throws -> [UInt8] {
        try (0..<count).map { _ in UInt8(try bits(8)) }
    }
}

/// Chroma format and bit depths from an H.264 High-profile SPS.
struct AVCSequenceFormat {
    var chromaFormat: UInt8 = 1
    var bitDepthLumaMinus8: UInt8 = 0
    var bitDepthChromaMinus8: UInt8 = 0

    init(sps: [UInt8]) throws {
        var reader = RBSPBitReader(nal: sps, skippingHeaderBytes: 1)
        _ = try reader.bits(24)  // profile, constraint flags, level
        _ = try reader.ue()  // seq_parameter_set_id
        chromaFormat = try reader.ue(atMost: 3, "chroma_format_idc")
        if chromaFormat == 3 { _ = try reader.bit() }
        bitDepthLumaMinus8 = try reader.ue(atMost: 6, "bit_depth_luma_minus8")
        bitDepthChromaMinus8 = try reader.ue(atMost: 6, "bit_depth_chroma_minus8")
    }
}

/// What hvcC needs from an HEVC SPS: the general profile_tier_level bytes, chroma format, bit depths, layers.
struct HEVCSequenceInfo {
    var profileTierLevel: [UInt8]
    var maxSubLayersMinus1: UInt8
    var temporalIdNesting: UInt8
    var chromaFormat: UInt8
    var bitDepthLumaMinus8: UInt8
    var bitDepthChromaMinus8: UInt8

    init(sps: [UInt8]) throws {
        var reader = RBSPBitReader(nal: sps, skippingHeaderBytes: 2)
        _ = try reader.bits(4)  // sps_video_parameter_set_id
        maxSubLayersMinus1 = UInt8(try reader.bits(3))
        temporalIdNesting = UInt8(try reader.bit())
        profileTierLevel = try reader.byteAligned(12)
        // Sub-layer profile/level presence flags, then the sub-layer records they announce.
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<Int(maxSubLayersMinus1) {
            profilePresent.append(try reader.bit() == 1)
            levelPresent.append(try reader.bit() == 1)
        }
        if maxSubLayersMinus1 > 0 { _ = try reader.bits(2 * (8 - Int(maxSubLayersMinus1))) }
        for layer in 0..<Int(maxSubLayersMinus1) {
            if profilePresent[layer] { _ = try reader.bits(32); _ = try reader.bits(32); _ = try reader.bits(24) }
            if levelPresent[layer] { _ = try reader.bits(8) }
        }
        _ = try reader.ue()  // sps_seq_parameter_set_id
        chromaFormat = try reader.ue(atMost: 3, "chroma_format_idc")
        if chromaFormat == 3 { _ = try reader.bit() }
        _ = try reader.ue()  // width
        _ = try reader.ue()  // height
        if try reader.bit() == 1 { for _ in 0..<4 { _ = try reader.ue() } }  // conformance window
        bitDepthLumaMinus8 = try reader.ue(atMost: 7, "bit_depth_luma_minus8")  // hvcC has 3 bits for it
        bitDepthChromaMinus8 = try reader.ue(atMost: 7, "bit_depth_chroma_minus8")
    }
}
