/// One description of a box's fields serves reading, writing and dumping: a typed box declares
/// its fields once in `code(_:)`, and the coder passed in decides the direction.
///
/// The primitives below are the whole vocabulary; composite shapes (version-dependent widths,
/// entry tables, versioned times) are built from them in `Types/BoxView.swift`, so each coder
/// implements every shape once.
public protocol FieldCoder {
    /// True while decoding (fields are filled in), false while encoding or dumping.
    var isDecoding: Bool { get }
    mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ name: String, _ value: inout T, bytes: Int) throws
    mutating func int<T: FixedWidthInteger & SignedInteger>(_ name: String, _ value: inout T, bytes: Int) throws
    mutating func fourCC(_ name: String, _ value: inout FourCC) throws
    mutating func bytes(_ name: String, _ value: inout [UInt8], count: Int) throws
    /// Everything up to the end of the box.
    mutating func rest(_ name: String, _ value: inout [UInt8]) throws
    /// `count` 32-bit values whose count was coded elsewhere (the bulk of sample tables).
    mutating func u32Array(_ name: String, _ value: inout [UInt32], count: Int) throws
    /// `count` records (whose count was coded elsewhere), each at least `recordSize` bytes and coded
    /// by `body`. Decoding checks the bytes exist before making any record; a dump numbers them
    /// `[1]`, `[2]`, ... like the box paths and shows the first few.
    mutating func records<E>(_ name: String, _ value: inout [E], count: Int, recordSize: Int, make: () -> E,
                             body: (inout Self, inout E) throws -> Void) throws
    /// Bytes left to decode (Int.max when encoding).
    var remaining: Int { get }
    /// An error naming the box path and the byte offset reached.
    func malformed(_ reason: String) -> KeepTrackError
}

extension FieldCoder {
    public func malformed(_ reason: String) -> KeepTrackError { .malformed(path: "", offset: 0, reason: reason) }

    /// Reading and writing code every record; the dumper has its own.
    public mutating func records<E>(_ name: String, _ value: inout [E], count: Int, recordSize: Int, make: () -> E,
                                    body: (inout Self, inout E) throws -> Void) throws {
        if isDecoding {
            guard count >= 0, count <= remaining / max(recordSize, 1) else {
                throw malformed("claims \(count) \(name) of \(recordSize) bytes, only \(remaining) bytes left")
            }
            value = (0..<count).map { _ in make() }
        } else if value.count != count {
            throw malformed("\(name) has \(value.count) entries, its count field says \(count)")
        }
        for index in value.indices { try body(&self, &value[index]) }
    }
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

    /// The encoded fields. Throws when the values cannot be written as they are (a count that does
    /// not fit its field, an `stz2` field size that is not 4, 8 or 16, a table whose count and
    /// entries disagree) instead of writing a payload that says something else.
    public func encoded() throws -> [UInt8] {
        var copy = self
        var writer = FieldWriter()
        try copy.code(&writer)
        return writer.writer.bytes
    }

    /// `name: value` lines for dumps (a value that cannot be coded ends them with the reason).
    public func dumpLines(limit: Int = 8) -> [String] {
        var copy = self
        var dumper = FieldDumper(limit: limit)
        do { try copy.code(&dumper) } catch { dumper.lines.append("<cannot dump: \(error)>") }
        return dumper.lines
    }
}

public struct FieldReader: FieldCoder {
    var reader: ByteReader
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

    public mutating func u32Array(_ name: String, _ value: inout [UInt32], count: Int) throws {
        value = try reader.u32Array(count: count, name)
    }
}

/// Encodes fields. A value that does not fit its field is an error, never silently cut.
public struct FieldWriter: FieldCoder {
    var writer = ByteWriter()
    public init() {}
    /// What has been encoded so far.
    public var bytes: [UInt8] { writer.bytes }
    public var isDecoding: Bool { false }
    public var remaining: Int { Int.max }
    public func malformed(_ reason: String) -> KeepTrackError { .unsupported("cannot encode: \(reason)") }

    public mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ name: String, _ value: inout T, bytes: Int) throws {
        guard bytes >= 8 || UInt64(value) >> (bytes * 8) == 0 else { throw malformed("\(name) \(value) does not fit in \(bytes) bytes") }
        writer.uint(UInt64(value), width: bytes)
    }

    public mutating func int<T: FixedWidthInteger & SignedInteger>(_ name: String, _ value: inout T, bytes: Int) throws {
        let wide = Int64(value)
        guard bytes >= 8 || (wide >> (bytes * 8 - 1) == 0 || wide >> (bytes * 8 - 1) == -1) else {
            throw malformed("\(name) \(value) does not fit in \(bytes) bytes")
        }
        writer.uint(UInt64(bitPattern: wide), width: bytes)
    }

    public mutating func fourCC(_ name: String, _ value: inout FourCC) { writer.fourCC(value) }

    /// Shorter values (unset reserved fields) are padded with zeros; longer ones are an error.
    public mutating func bytes(_ name: String, _ value: inout [UInt8], count: Int) throws {
        guard value.count <= count else { throw malformed("\(name) holds \(value.count) bytes, its field \(count)") }
        writer.append(value)
        if value.count < count { writer.append(repeatElement(0, count: count - value.count)) }
    }

    public mutating func rest(_ name: String, _ value: inout [UInt8]) { writer.append(value) }

    public mutating func u32Array(_ name: String, _ value: inout [UInt32], count: Int) throws {
        guard value.count == count else { throw malformed("\(name) holds \(value.count) values, its count says \(count)") }
        writer.u32Array(value)
    }
}

/// Renders fields as `name: value` lines; long tables and record lists are cut to `limit` entries.
public struct FieldDumper: FieldCoder {
    public var lines: [String] = []
    let limit: Int
    var prefix = ""
    public init(limit: Int) { self.limit = limit }
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

    public mutating func u32Array(_ name: String, _ value: inout [UInt32], count: Int) {
        let shown = value.prefix(limit).map(String.init).joined(separator: " ")
        emit(name, "[\(value.count)] \(shown)\(value.count > limit ? " …" : "")")
    }

    public mutating func records<E>(_ name: String, _ value: inout [E], count: Int, recordSize: Int, make: () -> E,
                                    body: (inout FieldDumper, inout E) throws -> Void) throws {
        emit(name, "[\(value.count)]")
        let saved = prefix
        defer { prefix = saved }
        for index in value.indices.prefix(limit) {
            prefix = saved + "  [\(index + 1)] "
            try body(&self, &value[index])
        }
        if value.count > limit { lines.append(saved + "  …") }
    }

    static func hex(_ bytes: [UInt8], limit: Int = 32) -> String {
        let digits = bytes.prefix(limit).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        return bytes.count > limit ? "\(digits)… (\(bytes.count) bytes)" : digits
    }
}
