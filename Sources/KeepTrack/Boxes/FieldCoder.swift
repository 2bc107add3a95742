/// One description of a box's fields serves reading, writing and dumping: a typed box declares
/// its fields once in `code(_:)`, and the coder passed in decides the direction.
public protocol FieldCoder {
    /// True while decoding (fields are filled in), false while encoding or dumping.
    var isDecoding: Bool { get }
    mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ name: String, _ value: inout T, bytes: Int) throws
    mutating func int<T: FixedWidthInteger & SignedInteger>(_ name: String, _ value: inout T, bytes: Int) throws
    mutating func fourCC(_ name: String, _ value: inout FourCC) throws
    mutating func bytes(_ name: String, _ value: inout [UInt8], count: Int) throws
    /// Everything up to the end of the box.
    mutating func rest(_ name: String, _ value: inout [UInt8]) throws
    /// A count of `countBytes` followed by that many 32-bit values (the bulk of sample tables).
    mutating func u32List(_ name: String, _ value: inout [UInt32], countBytes: Int) throws
    /// `count` 32-bit values whose count was coded elsewhere.
    mutating func u32Array(_ name: String, _ value: inout [UInt32], count: Int) throws
    /// A count of `countBytes` followed by records, each at least `minimumSize` bytes.
    mutating func list<E: FieldCodable>(_ name: String, _ value: inout [E], countBytes: Int, minimumSize: Int) throws
    /// Bytes left to decode (Int.max when encoding).
    var remaining: Int { get }
    /// An error naming the box path and the byte offset reached.
    func malformed(_ reason: String) -> KeepTrackError
    /// Records of a long table coded at most (a dump shows the first few; reading and writing code all).
    var entryLimit: Int { get }
}

extension FieldCoder {
    public func malformed(_ reason: String) -> KeepTrackError { .malformed(path: "", offset: 0, reason: reason) }
    public var entryLimit: Int { Int.max }
}

/// Something described by fields: a box payload or a record inside one.
public protocol FieldCodable: Sendable {
    init()
    mutating func code<C: FieldCoder>(_ coder: inout C) throws
}

extension FieldCodable {
    /// Decodes from bytes; trailing bytes are allowed and ignored (boxes keep their own bytes anyway).
    public init(decoding bytes: [UInt8], baseOffset: UInt64 = 0, path: String = "") throws {
        self.init()
        var reader = FieldReader(ByteReader(bytes, baseOffset: baseOffset, path: path))
        try code(&reader)
    }

    public func encoded() -> [UInt8] {
        var copy = self
        var writer = FieldWriter()
        // Encoding cannot fail: every field is written from values already present.
        try? copy.code(&writer)
        return writer.writer.bytes
    }

    /// `name: value` lines for dumps.
    public func dumpLines(limit: Int = 8) -> [String] {
        var copy = self
        var dumper = FieldDumper(limit: limit)
        try? copy.code(&dumper)
        return dumper.lines
    }
}

public struct FieldReader: FieldCoder {
    public var reader: ByteReader
    public init(_ reader: ByteReader) { self.reader = reader }
    public var isDecoding: Bool { true }
    public var remaining: Int { reader.remaining }
    public func malformed(_ reason: String) -> KeepTrackError { reader.error(reason) }

    public mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ name: String, _ value: inout T, bytes: Int) throws {
        value = T(truncatingIfNeeded: try reader.uint(bytes, name))
    }

    public mutating func int<T: FixedWidthInteger & SignedInteger>(_ name: String, _ value: inout T, bytes: Int) throws {
        let raw = try reader.uint(bytes, name)
        let shift = UInt64(64 - bytes * 8)
        value = T(truncatingIfNeeded: Int64(bitPattern: raw << shift) >> Int64(shift))
    }

    public mutating func fourCC(_ name: String, _ value: inout FourCC) throws {
        value = FourCC(rawValue: try reader.u32(name))
    }

    public mutating func bytes(_ name: String, _ value: inout [UInt8], count: Int) throws {
        value = try reader.bytes(count, name)
    }

    public mutating func rest(_ name: String, _ value: inout [UInt8]) throws { value = reader.rest() }

    public mutating func u32List(_ name: String, _ value: inout [UInt32], countBytes: Int) throws {
        let count = try reader.uint(countBytes, name + " count")
        guard count <= UInt64(reader.remaining / 4) else {
            throw reader.error("\(name) claims \(count) entries, only \(reader.remaining) bytes left")
        }
        value = try reader.u32Array(count: Int(count), name)
    }

    public mutating func u32Array(_ name: String, _ value: inout [UInt32], count: Int) throws {
        value = try reader.u32Array(count: count, name)
    }

    public mutating func list<E: FieldCodable>(_ name: String, _ value: inout [E], countBytes: Int, minimumSize: Int) throws {
        let count = try reader.uint(countBytes, name + " count")
        guard count <= UInt64(reader.remaining / max(minimumSize, 1)) else {
            throw reader.error("\(name) claims \(count) entries of at least \(minimumSize) bytes, only \(reader.remaining) bytes left")
        }
        value = []
        value.reserveCapacity(Int(count))
        for _ in 0..<count {
            var element = E()
            try element.code(&self)
            value.append(element)
        }
    }
}

public struct FieldWriter: FieldCoder {
    public var writer = ByteWriter()
    public init() {}
    public var isDecoding: Bool { false }
    public var remaining: Int { Int.max }

    public mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ name: String, _ value: inout T, bytes: Int) {
        writer.uint(UInt64(truncatingIfNeeded: value), width: bytes)
    }

    public mutating func int<T: FixedWidthInteger & SignedInteger>(_ name: String, _ value: inout T, bytes: Int) {
        writer.uint(UInt64(truncatingIfNeeded: Int64(value)), width: bytes)
    }

    public mutating func fourCC(_ name: String, _ value: inout FourCC) { writer.fourCC(value) }

    public mutating func bytes(_ name: String, _ value: inout [UInt8], count: Int) {
        writer.append(value.prefix(count))
        if value.count < count { writer.append(repeatElement(0, count: count - value.count)) }
    }

    public mutating func rest(_ name: String, _ value: inout [UInt8]) { writer.append(value) }

    public mutating func u32List(_ name: String, _ value: inout [UInt32], countBytes: Int) {
        writer.uint(UInt64(value.count), width: countBytes)
        writer.u32Array(value)
    }

    public mutating func u32Array(_ name: String, _ value: inout [UInt32], count: Int) {
        writer.u32Array(value)
    }

    public mutating func list<E: FieldCodable>(_ name: String, _ value: inout [E], countBytes: Int, minimumSize: Int) throws {
        writer.uint(UInt64(value.count), width: countBytes)
        for index in value.indices { try value[index].code(&self) }
    }
}

/// Renders fields as `name: value` lines; long lists are cut to `limit` entries.
public struct FieldDumper: FieldCoder {
    public var lines: [String] = []
    let limit: Int
    var prefix = ""
    public init(limit: Int) { self.limit = limit }
    public var entryLimit: Int { limit }
    public var isDecoding: Bool { false }
    public var remaining: Int { Int.max }

    mutating func emit(_ name: String, _ value: String) { lines.append("\(prefix)\(name): \(value)") }

    public mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ name: String, _ value: inout T, bytes: Int) {
        if name.hasPrefix("reserved") { return }
        emit(name, "\(value)")
    }

    public mutating func int<T: FixedWidthInteger & SignedInteger>(_ name: String, _ value: inout T, bytes: Int) {
        emit(name, "\(value)")
    }

    public mutating func fourCC(_ name: String, _ value: inout FourCC) { emit(name, value.description) }

    public mutating func bytes(_ name: String, _ value: inout [UInt8], count: Int) {
        if name.hasPrefix("reserved") { return }
        emit(name, Self.hex(value))
    }

    public mutating func rest(_ name: String, _ value: inout [UInt8]) {
        if !value.isEmpty { emit(name, Self.hex(value)) }
    }

    public mutating func u32List(_ name: String, _ value: inout [UInt32], countBytes: Int) {
        u32Array(name, &value, count: value.count)
    }

    public mutating func u32Array(_ name: String, _ value: inout [UInt32], count: Int) {
        let shown = value.prefix(limit).map(String.init).joined(separator: " ")
        emit(name, "[\(value.count)] \(shown)\(value.count > limit ? " …" : "")")
    }

    public mutating func list<E: FieldCodable>(_ name: String, _ value: inout [E], countBytes: Int, minimumSize: Int) throws {
        emit(name, "[\(value.count)]")
        let saved = prefix
        for index in value.indices.prefix(limit) {
            prefix = saved + "  [\(index)] "
            try value[index].code(&self)
        }
        if value.count > limit { lines.append(saved + "  …") }
        prefix = saved
    }

    static func hex(_ bytes: [UInt8], limit: Int = 32) -> String {
        let digits = bytes.prefix(limit).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        return bytes.count > limit ? "\(digits)… (\(bytes.count) bytes)" : digits
    }
}
