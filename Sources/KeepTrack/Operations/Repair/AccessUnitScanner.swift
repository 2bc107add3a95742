/// Finds where a length-prefixed H.264 or HEVC access unit starting at an offset ends, from the NAL
/// units alone: every length must fit the data and every header be one a camera writes. A new access
/// unit starts at a parameter set, delimiter or prefix SEI after a picture's slices, or at a slice that
/// opens a picture (first_mb_in_slice 0, first_slice_segment_in_pic_flag 1).
struct AccessUnitScanner {
    enum Codec { case avc, hevc }
    let codec: Codec
    let lengthSize: Int
    /// No NAL unit is longer than this (a few times the reference's largest sample): a random length
    /// that happens to fit a large file is not taken for a unit.
    let largestUnit: UInt64
    let source: ByteSource
    let end: UInt64

    struct AccessUnit: Equatable { var size: UInt64; var isSync: Bool }

    private enum Unit { case picture(opensPicture: Bool, sync: Bool), opensAccessUnit, other }

    /// The unit at `offset`: its total size (with its length field) and kind; nil when it cannot be one.
    private func unit(at offset: UInt64) -> (size: UInt64, kind: Unit)? {
        guard offset + UInt64(lengthSize) + 3 <= end, let head = try? source.read(at: offset, count: lengthSize + 3) else { return nil }
        let length = head.prefix(lengthSize).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let size = UInt64(lengthSize) + length
        guard length >= 3, length <= largestUnit, offset + size <= end else { return nil }
        let header = Array(head[lengthSize...])
        guard header[0] & 0x80 == 0 else { return nil }
        switch codec {
        case .avc:
            let type = header[0] & 0x1F
            switch type {
            case 1, 5: return (size, .picture(opensPicture: header[1] & 0x80 != 0, sync: type == 5))
            case 6, 7, 8, 9, 14, 15: return (size, .opensAccessUnit)
            case 10, 11, 12, 13, 19, 20: return (size, .other)
            default: return nil
            }
        case .hevc:
            let type = header[0] >> 1 & 0x3F
            let layer = (header[0] & 1) << 5 | header[1] >> 3
            guard header[1] & 7 != 0 else { return nil }
            switch type {
            case 0...9, 16...21:
                return (size, layer == 0 ? .picture(opensPicture: header[2] & 0x80 != 0, sync: (16...21).contains(type)) : .other)
            case 32, 33, 34, 35, 39: return (size, layer == 0 ? .opensAccessUnit : .other)
            case 36...38, 40...63: return (size, .other)  // 62: Dolby Vision RPU (iPhone)
            default: return nil
            }
        }
    }

    /// The access unit at `offset`, nil when no complete one with a picture starts there.
    func accessUnit(at offset: UInt64) -> AccessUnit? {
        var position = offset
        var sawPicture = false
        var sync = false
        while let (size, kind) = unit(at: position) {
            switch kind {
            case .picture(let opens, let isSync):
                if sawPicture, opens { return AccessUnit(size: position - offset, isSync: sync) }
                if !sawPicture { sync = isSync }
                sawPicture = true
            case .opensAccessUnit:
                if sawPicture { return AccessUnit(size: position - offset, isSync: sync) }
            case .other: break
            }
            position += size
        }
        // The units stop here: the access unit ends with the data of this track's chunk, if a picture was seen
        // and the next bytes are not a truncated unit of it (the data does not end inside one).
        guard sawPicture, position > offset else { return nil }
        if position + UInt64(lengthSize) <= end, let head = try? source.read(at: position, count: lengthSize),
           case let length = head.reduce(UInt64(0), { $0 << 8 | UInt64($1) }), length >= 3, length <= largestUnit, position + UInt64(lengthSize) + length > end {
            return nil
        }
        return AccessUnit(size: position - offset, isSync: sync)
    }
}
