/// A typed view over one kind of leaf box (or a container's prefix fields). Each conforming type
/// lives in its own file and declares its fields once in `code(_:)`.
public protocol BoxView: FieldCodable, Equatable {
    /// The box types this view reads (`stco` and `co64` are different views; `tref` children share one).
    static var types: [FourCC] { get }
}

extension BoxView {
    /// Decodes the payload (or container prefix) of `box`.
    public init(box: Box, path: String = "") throws {
        try self.init(decoding: box.payload, baseOffset: box.payloadOffset, path: path.isEmpty ? box.type.description : path)
    }

    /// Decodes `box`, naming `path` in a message; the path is built only when decoding fails (views
    /// read once per fragment of a many-fragment movie).
    init(box: Box, lazyPath path: @autoclosure () -> String) throws {
        do {
            try self.init(decoding: box.payload, baseOffset: box.payloadOffset, path: "")
        } catch KeepTrackError.malformed(let named, let offset, let reason) where named.isEmpty {
            throw KeepTrackError.malformed(path: path(), offset: offset, reason: reason)
        }
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
    /// A 16.16 or 8.8 fixed-point value, or an integer whose width depends on the box version.
    mutating func versioned<T: FixedWidthInteger & UnsignedInteger>(_ name: String, _ value: inout T, version: UInt8) throws {
        try uint(name, &value, bytes: version == 1 ? 8 : 4)
    }

    /// A 32-bit `entryCount`, then `width` 32-bit values per entry kept flat in `values` (stts and
    /// ctts runs, stsc triples, stco offsets, stss numbers, ...), so a table of millions of entries
    /// decodes with one bounds check.
    mutating func entryTable(_ name: String, _ values: inout [UInt32], width: Int) throws {
        guard isDecoding || values.count % width == 0 else {
            throw malformed("\(name) holds \(values.count) values, not whole entries of \(width)")
        }
        var count = UInt32(truncatingIfNeeded: values.count / width)
        if !isDecoding, values.count / width > Int(UInt32.max) { throw malformed("\(name) has more entries than a 32-bit count holds") }
        try uint("entryCount", &count, bytes: 4)
        guard !isDecoding || Int(count) <= remaining / (4 * width) else {
            throw malformed("\(name) claims \(count) entries of \(4 * width) bytes, only \(remaining) bytes left")
        }
        try u32Array(name, &values, count: Int(count) * width)
    }
}

/// Creation and modification times (seconds since 1904) as mvhd, tkhd and mdhd code them: 32 bits
/// in version 0, 64 in version 1.
public struct VersionedTimes: Sendable, Equatable {
    public var creationTime: UInt64 = 0
    public var modificationTime: UInt64 = 0
    public init(creationTime: UInt64 = 0, modificationTime: UInt64 = 0) {
        self.creationTime = creationTime
        self.modificationTime = modificationTime
    }

    public mutating func code<C: FieldCoder>(_ coder: inout C, version: UInt8) throws {
        try coder.versioned("creationTime", &creationTime, version: version)
        try coder.versioned("modificationTime", &modificationTime, version: version)
    }
}

/// A view whose meaning is not a plain field list (nested descriptors, bit fields) adds decoded
/// `name: value` lines to dumps after its fields.
public protocol DumpAnnotated {
    var annotationLines: [String] { get }
}
