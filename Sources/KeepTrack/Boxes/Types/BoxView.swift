/// A typed view over one kind of leaf box (or a container's prefix fields). Each conforming type
/// lives in its own file and declares its fields once in `code(_:)`.
public protocol BoxView: FieldCodable {
    /// The box types this view reads (`stco` and `co64` are different views; `tref` children share one).
    static var types: [FourCC] { get }
}

extension BoxView {
    /// Decodes the payload (or container prefix) of `box`.
    public init(box: Box, path: String = "") throws {
        try self.init(decoding: box.payload, baseOffset: box.payloadOffset, path: path.isEmpty ? box.type.description : path)
    }
}

/// Version and flags of an ISO full box, coded first by the views that have them.
public struct FullBoxHeader: Sendable, Equatable {
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public init(version: UInt8 = 0, flags: UInt32 = 0) { self.version = version; self.flags = flags }

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("version", &version, bytes: 1)
        try coder.uint("flags", &flags, bytes: 3)
    }

    /// A duration of all ones in this version's width (0xFFFFFFFF, or 2^64 - 1 in version 1):
    /// mvhd, tkhd and mdhd say "unknown" this way (fragmented files, live recordings).
    public func isUnknownDuration(_ duration: UInt64) -> Bool {
        duration == (version == 1 ? UInt64.max : UInt64(UInt32.max))
    }
}

extension FieldCoder {
    /// Codes `count` records whose count was coded separately, checking the bytes exist first.
    mutating func records<E>(_ name: String, _ value: inout [E], count: Int, recordSize: Int, make: () -> E,
                             body: (inout Self, inout E) throws -> Void) throws {
        if isDecoding {
            guard count >= 0, count <= remaining / max(recordSize, 1) else {
                throw malformed("\(name) claims \(count) entries of \(recordSize) bytes, only \(remaining) bytes left")
            }
            value = (0..<count).map { _ in make() }
        }
        for index in value.indices { try body(&self, &value[index]) }
    }

    /// `records`, of which a dump shows only the first `entryLimit` (indexes, one per fragment or subsegment, run long).
    mutating func limitedRecords<E>(_ name: String, _ value: inout [E], count: Int, recordSize: Int, make: () -> E,
                                    body: (inout Self, inout E) throws -> Void) throws {
        guard !isDecoding, value.count > entryLimit else {
            return try records(name, &value, count: count, recordSize: recordSize, make: make, body: body)
        }
        var shown = Array(value.prefix(entryLimit))
        try records(name, &shown, count: shown.count, recordSize: recordSize, make: make, body: body)
    }

    /// A 16.16 or 8.8 fixed-point value, or an integer whose width depends on the box version.
    mutating func versioned<T: FixedWidthInteger & UnsignedInteger>(_ name: String, _ value: inout T, version: UInt8) throws {
        try uint(name, &value, bytes: version == 1 ? 8 : 4)
    }
}

/// A view whose meaning is not a plain field list (nested descriptors, bit fields) adds decoded
/// `name: value` lines to dumps after its fields.
public protocol DumpAnnotated {
    var annotationLines: [String] { get }
}
