/// A four-character code: box types, sample entry formats, handler types, brands.
///
/// Stored as the big-endian integer so comparisons are cheap; QuickTime also uses
/// non-printable codes (ilst items are keyed by integer index), which `description` escapes.
public struct FourCC: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// From exactly four bytes of text (Latin-1; `©` counts as one byte).
    public init(_ text: String) {
        var value: UInt32 = 0
        // Fast path for the common four-ASCII-byte literal (`"stsd"`), compared on every box parsed.
        if text.utf8.count == 4, text.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in text.utf8 { value = value << 8 | UInt32(byte) }
            rawValue = value
            return
        }
        var count = 0
        for scalar in text.unicodeScalars.prefix(4) {
            value = value << 8 | UInt32(scalar.value & 0xFF)
            count += 1
        }
        while count < 4 { value = value << 8 | 0x20; count += 1 }
        rawValue = value
    }

    public init(stringLiteral value: String) { self.init(value) }

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
        bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0xA9 }
    }

    public var description: String {
        if isPrintable {
            return String(bytes.map { Character(Unicode.Scalar($0)) })
        }
        return "0x" + String(rawValue, radix: 16, uppercase: false).leftPadded(to: 8)
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
