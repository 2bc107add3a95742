import XCTest
@testable import KeepTrack
import KeepTrackFixtures

/// A synthetic movie held in memory, with its boxes located by path, to corrupt on purpose.
struct MovieBytes {
    var bytes: [UInt8]
    let boxes: [Box]

    init(variant: String) throws {
        let options = try XCTUnwrap(FixtureOptions.variant(variant), "unknown variant \(variant)")
        try self.init(bytes: FixtureBuilder(options).bytes())
    }

    init(bytes: [UInt8]) throws {
        self.bytes = bytes
        boxes = try BoxParser.parseFile(MemoryByteSource(bytes))
    }

    /// The box at `path` such as `moov/trak[2]/mdia/minf/stbl/stco` (1-based indexes as in error messages).
    func box(_ path: String) throws -> Box {
        var candidates = boxes
        var found: Box?
        for component in path.split(separator: "/") {
            var name = Substring(component)
            var index = 1
            if let open = component.firstIndex(of: "[") {
                name = component[..<open]
                index = Int(component[component.index(after: open)..<component.index(before: component.endIndex)]) ?? 1
            }
            let matches = candidates.filter { $0.type == FourCC(String(name)) }
            guard matches.count >= index else { throw TestPrerequisiteMissing(description: "no box \(path) in this variant: the fixture builder changed under this test") }
            found = matches[index - 1]
            candidates = found!.children
        }
        return try XCTUnwrap(found)
    }

    mutating func setUInt(_ value: UInt64, at offset: UInt64, width: Int) {
        for index in 0..<width {
            bytes[Int(offset) + index] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - index)))
        }
    }

    func uint(at offset: UInt64, width: Int) -> UInt64 {
        (0..<width).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[Int(offset) + $1]) }
    }

    /// Sets a field `fieldOffset` bytes into the payload of the box at `path`.
    mutating func setField(_ path: String, at fieldOffset: UInt64, _ value: UInt64, width: Int) throws {
        let box = try box(path)
        setUInt(value, at: box.payloadOffset + fieldOffset, width: width)
    }

    mutating func truncate(to length: UInt64) { bytes.removeLast(bytes.count - Int(length)) }

    /// Rebuilds the file from its box tree after `change` touches the box at `path` (as `box(_:)`
    /// names it: `moov/trak[2]/mdia`). Box sizes follow; chunk offsets do not, so use it on
    /// variants whose moov comes after mdat.
    mutating func rebuild(_ path: String, _ change: (inout Box) throws -> Void) throws {
        func modify(_ boxes: inout [Box], _ components: ArraySlice<Substring>) throws {
            guard let component = components.first else { return }
            var name = component, number = 1
            if let open = component.firstIndex(of: "[") {
                name = component[..<open]
                number = Int(component[component.index(after: open)..<component.index(before: component.endIndex)]) ?? 1
            }
            let matches = boxes.indices.filter { boxes[$0].type == FourCC(String(name)) }
            guard matches.count >= number else { throw TestPrerequisiteMissing(description: "no box \(path) in this movie: the fixture changed under this test") }
            let index = matches[number - 1]
            if components.count == 1 { return try change(&boxes[index]) }
            try boxes[index].modifyChildren { try modify(&$0, components.dropFirst()) }
        }
        var tree = boxes
        try modify(&tree, path.split(separator: "/")[...])
        let source = MemoryByteSource(bytes)
        var writer = ByteWriter()
        for box in tree { try box.write(to: &writer, source: source) }
        self = try MovieBytes(bytes: writer.bytes)
    }

    func write(to path: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
