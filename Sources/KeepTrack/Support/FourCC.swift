/// A four-character code: box types, sample entry formats, handler types, brands.
///
/// Stored as the big-endian integer so comparisons are cheap; QuickTime also uses
/// non-printable codes (ilst items are keyed by integer index), which `description` escapes.
public struct FourCC: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// From exactly four bytes of text (Latin-1; `©` counts as one byte).
    public init(_ text: String) {
        // Fast path for the common four-ASCII-byte literal (`"stsd"`), compared on every box parsed:
        // a literal's UTF-8 is contiguous, so this reads four bytes without walking the string.
        let ascii: UInt32? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard utf8.count == 4, (utf8[0] | utf8[1] | utf8[2] | utf8[3]) < 0x80 else { return nil }
            return UInt32(utf8[0]) << 24 | UInt32(utf8[1]) << 16 | UInt32(utf8[2]) << 8 | UInt32(utf8[3])
        } ?? nil
        if let ascii { rawValue = ascii; return }
        var value: UInt32 = 0
        var count = 0
        for scalar in text.unicodeScalars.prefix(4) {
            value = value << 8 | UInt32(scalar.value & 0xFF)
            count += 1
        }
        while count < 4 { value = value << 8 | 0x20; count += 1 }
        rawValue = value
    }

    /// Literals (`"moof"`, compared on every box parsed) are static strings: four ASCII bytes read in
    /// place, inlined so that the optimizer folds a literal into its constant.
    @inlinable @inline(__always)
    public init(stringLiteral value: StaticString) {
        if value.hasPointerRepresentation, value.utf8CodeUnitCount == 4 {
            let bytes = value.utf8Start
            if (bytes[0] | bytes[1] | bytes[2] | bytes[3]) < 0x80 {
                self.init(rawValue: UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3]))
                return
            }
        }
        self.init(value.description)
    }

    public init(bytes: some Collection<UInt8>) {
        var value: UInt32 = 0
        for byte in bytes.prefix(4) { value = value << 8 | UInt32(byte) }
        rawValue = value
    }

    public var bytes: [UInt8] {
        [UInt8(rawValue >> 24), UInt8(rawValue >> 16 & 0xFF), UInt8(rawValue >> 8 & 0xFF), UInt8(rawValue & 0xFF)]
    }

    /// True when every byte is printable Latin-1 (so it reads as a name, not a number).
    public var isPrintable: Bool {
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: rawValue >> UInt32(shift))
            guard (byte >= 0x20 && byte < 0x7F) || byte == 0xA9 else { return false }
        }
        return true
    }

    /// Called for every path of every box parsed: built from the four bytes without intermediate arrays.
    public var description: String {
        guard isPrintable else { return "0x" + String(rawValue, radix: 16, uppercase: false).leftPadded(to: 8) }
        if rawValue & 0x8080_8080 == 0 {
            return withUnsafeBytes(of: rawValue.bigEndian) { String(decoding: $0, as: UTF8.self) }
        }
        var text = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            text.unicodeScalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: rawValue >> UInt32(shift))))
        }
        return text
    }

    public static func < (lhs: FourCC, rhs: FourCC) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }

    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
