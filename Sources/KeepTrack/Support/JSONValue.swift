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
        var out = ""
        write(to: &out, indent: indent, pretty: pretty)
        return out
    }

    func write(to out: inout String, indent: Int, pretty: Bool) {
        let newline = pretty ? "\n" : ""
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let closePad = pretty ? String(repeating: "  ", count: indent) : ""
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            if !value.isFinite { out += "null" }
            else if value == value.rounded(), abs(value) < 1e15 { out += String(Int64(value)) }
            else { out += String(value) }
        case .string(let value): Self.escape(value, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + newline
            for (index, item) in items.enumerated() {
                out += pad
                item.write(to: &out, indent: indent + 1, pretty: pretty)
                out += (index + 1 < items.count ? "," : "") + newline
            }
            out += closePad + "]"
        case .object(let pairs):
            if pairs.isEmpty { out += "{}"; return }
            out += "{" + newline
            for (index, (key, value)) in pairs.enumerated() {
                out += pad
                Self.escape(key, into: &out)
                out += pretty ? ": " : ":"
                value.write(to: &out, indent: indent + 1, pretty: pretty)
                out += (index + 1 < pairs.count ? "," : "") + newline
            }
            out += closePad + "}"
        }
    }

    static func escape(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
