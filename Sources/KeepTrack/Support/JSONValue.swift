/// A JSON value with ordered object keys, so `--json` output keeps a stable, documented key order.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered() == rhs.rendered() }

    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    public static func optional(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
    public static func optional(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }

    public subscript(key: String) -> JSONValue? {
        if case .object(let pairs) = self { return pairs.first { $0.0 == key }?.1 }
        return nil
    }

    /// Pretty-printed with two-space indentation.
    public func rendered(indent: Int = 0, pretty: Bool = true) -> String {
        // Written as UTF-8 bytes and decoded once: `inspect --json` of a fragmented movie prints one
        // object per mdat (thousands), and appending to a String piece by piece cost more than the parse.
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(to: &out, indent: indent, pretty: pretty)
        return String(decoding: out, as: UTF8.self)
    }

    func write(to out: inout [UInt8], indent: Int, pretty: Bool) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .int(let value): Self.append(value, to: &out)
        case .double(let value):
            if !value.isFinite { out += "null".utf8 }
            else if value == value.rounded(), abs(value) < 1e15 { Self.append(Int64(value), to: &out) }
            else { out += String(value).utf8 }
        case .string(let value): Self.escape(value, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]".utf8; return }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                Self.newline(indent + 1, pretty: pretty, into: &out)
                item.write(to: &out, indent: indent + 1, pretty: pretty)
                if index + 1 < items.count { out.append(UInt8(ascii: ",")) }
            }
            Self.newline(indent, pretty: pretty, into: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            if pairs.isEmpty { out += "{}".utf8; return }
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in pairs.enumerated() {
                Self.newline(indent + 1, pretty: pretty, into: &out)
                Self.escape(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                value.write(to: &out, indent: indent + 1, pretty: pretty)
                if index + 1 < pairs.count { out.append(UInt8(ascii: ",")) }
            }
            Self.newline(indent, pretty: pretty, into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A line break and `level` two-space indents (nothing when not pretty).
    static func newline(_ level: Int, pretty: Bool, into out: inout [UInt8]) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }

    /// Decimal digits of `value`, without building a String.
    static func append(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes: room for the 20 digits of any UInt64
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            out.append(contentsOf: buffer[(24 - count)...])
        }
    }

    static func escape(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (keys, names) need no escape: copied whole from their contiguous UTF-8.
        var text = text
        let plain = text.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += "\\\"".utf8
            case UInt8(ascii: "\\"): out += "\\\\".utf8
            case UInt8(ascii: "\n"): out += "\\n".utf8
            case UInt8(ascii: "\r"): out += "\\r".utf8
            case UInt8(ascii: "\t"): out += "\\t".utf8
            case ..<0x20:
                // Bytes below 0x20 are whole scalars in UTF-8; every other byte is copied as it is.
                out += "\\u00".utf8
                let hex = Array("0123456789abcdef".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
