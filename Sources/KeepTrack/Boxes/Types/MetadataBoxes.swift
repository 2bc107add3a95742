/// `keys` in a QuickTime `meta` (handler `mdta`): the key names that `ilst` items refer to by 1-based index.
public struct MetadataKeysBox: BoxView {
    public static let types: [FourCC] = ["keys"]
    public struct Key: Sendable, Equatable {
        public var namespace: FourCC = "mdta"
        public var name: [UInt8] = []
        public init() {}
        public var text: String { String(decoding: name, as: UTF8.self) }
    }
    public var header = FullBoxHeader()
    public var keys: [Key] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        var count = UInt32(keys.count)
        try coder.uint("entryCount", &count, bytes: 4)
        try coder.records("keys", &keys, count: Int(count), recordSize: 8, make: Key.init) { c, key in
            var size = UInt32(8 + key.name.count)
            try c.uint("keySize", &size, bytes: 4)
            guard size >= 8, !c.isDecoding || Int(size) - 8 <= c.remaining else {
                throw c.malformed("key of size \(size) does not fit")
            }
            try c.fourCC("namespace", &key.namespace)
            try c.bytes("name", &key.name, count: Int(size) - 8)
        }
    }
}

/// `data`: one value inside an `ilst` item (UTF-8 text, integers, ...).
public struct MetadataDataBox: BoxView, DumpAnnotated {
    public static let types: [FourCC] = ["data"]
    /// Well-known type: 1 UTF-8, 21 signed big-endian integer, 22 unsigned, 23 float32, 24 float64, ...
    public var typeIndicator: UInt32 = 1
    public var locale: UInt32 = 0
    public var value: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("typeIndicator", &typeIndicator, bytes: 4)
        try coder.uint("locale", &locale, bytes: 4)
        try coder.rest("value", &value)
    }

    public var annotationLines: [String] { ["text: \(displayValue)"] }

    /// The value as text a person can read.
    public var displayValue: String {
        let type = typeIndicator & 0xFFFFFF
        let raw: UInt64 = value.count <= 8 ? value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } : 0
        let signedTypes: Set<UInt32> = [21, 65, 66, 67, 74]
        let unsignedTypes: Set<UInt32> = [22, 75, 76, 77, 78]
        if type == 1 || type == 4 { return String(decoding: value, as: UTF8.self) }
        if (1...8).contains(value.count), signedTypes.contains(type) {
            let shift = UInt64(64 - value.count * 8)
            return String(Int64(bitPattern: raw << shift) >> Int64(shift))
        }
        if (1...8).contains(value.count), unsignedTypes.contains(type) { return String(raw) }
        if type == 23, value.count == 4 { return String(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) }
        if type == 24, value.count == 8 { return String(Double(bitPattern: raw)) }
        return FieldDumper.hex(value)
    }
}
