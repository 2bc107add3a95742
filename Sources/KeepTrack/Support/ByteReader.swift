/// A bounds-checked cursor over a box payload. Every read checks the bytes that exist before
/// touching them, so a lying size or count becomes an error naming the box and offset.
public struct ByteReader {
    public let bytes: [UInt8]
    public private(set) var position: Int
    /// Where `bytes[0]` sits in the file, for error messages.
    public let baseOffset: UInt64
    /// The box path, for error messages.
    public let path: String

    public init(_ bytes: [UInt8], baseOffset: UInt64 = 0, path: String = "") {
        self.bytes = bytes
        self.position = 0
        self.baseOffset = baseOffset
        self.path = path
    }

    public var remaining: Int { bytes.count - position }
    public var isAtEnd: Bool { position >= bytes.count }
    public var fileOffset: UInt64 { baseOffset + UInt64(position) }

    public func error(_ reason: String, at position: Int? = nil) -> KeepTrackError {
        .malformed(path: path, offset: baseOffset + UInt64(position ?? self.position), reason: reason)
    }

    public mutating func require(_ count: Int, for what: String) throws {
        guard count >= 0, count <= remaining else {
            throw error("\(what) needs \(count) bytes, only \(remaining) left")
        }
    }

    public mutating func uint(_ width: Int, _ what: String = "field") throws -> UInt64 {
        try require(width, for: what)
        var value: UInt64 = 0
        for index in position..<position + width { value = value << 8 | UInt64(bytes[index]) }
        position += width
        return value
    }

    public mutating func u8(_ what: String = "field") throws -> UInt8 { UInt8(try uint(1, what)) }
    public mutating func u16(_ what: String = "field") throws -> UInt16 { UInt16(try uint(2, what)) }
    public mutating func u24(_ what: String = "field") throws -> UInt32 { UInt32(try uint(3, what)) }
    public mutating func u32(_ what: String = "field") throws -> UInt32 { UInt32(try uint(4, what)) }
    public mutating func u64(_ what: String = "field") throws -> UInt64 { try uint(8, what) }

    public mutating func bytes(_ count: Int, _ what: String = "field") throws -> [UInt8] {
        try require(count, for: what)
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[position...])
    }

    public mutating func skip(_ count: Int, _ what: String = "field") throws {
        try require(count, for: what)
        position += count
    }

    /// Reads `count` big-endian 32-bit values with one bounds check (sample tables can hold millions).
    public mutating func u32Array(count: Int, _ what: String) throws -> [UInt32] {
        guard count >= 0, count <= remaining / 4 else {
            throw error("\(what) claims \(count) entries of 4 bytes, only \(remaining) bytes left")
        }
        let start = position
        position += count * 4
        return bytes.withUnsafeBufferPointer { raw in
            [UInt32](unsafeUninitializedCapacity: count) { out, initialized in
                var index = start
                for item in 0..<count {
                    out[item] = UInt32(raw[index]) << 24 | UInt32(raw[index + 1]) << 16 | UInt32(raw[index + 2]) << 8 | UInt32(raw[index + 3])
                    index += 4
                }
                initialized = count
            }
        }
    }
}

/// Big-endian output for box payloads.
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    public mutating func uint(_ value: UInt64, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    public mutating func u8(_ value: UInt8) { bytes.append(value) }
    public mutating func u16(_ value: UInt16) { uint(UInt64(value), width: 2) }
    public mutating func u24(_ value: UInt32) { uint(UInt64(value), width: 3) }
    public mutating func u32(_ value: UInt32) { uint(UInt64(value), width: 4) }
    public mutating func u64(_ value: UInt64) { uint(value, width: 8) }
    public mutating func append(_ data: some Sequence<UInt8>) { bytes.append(contentsOf: data) }
    public mutating func fourCC(_ code: FourCC) { u32(code.rawValue) }

    /// Sample tables are arrays of hundreds of thousands of entries: one store per entry into space made
    /// once, not four appends (each with its capacity check).
    public mutating func u32Array(_ values: [UInt32]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: values.count * 4))
        bytes.withUnsafeMutableBytes { out in
            for (index, value) in values.enumerated() {
                out.storeBytes(of: value.bigEndian, toByteOffset: start + index * 4, as: UInt32.self)
            }
        }
    }
}
