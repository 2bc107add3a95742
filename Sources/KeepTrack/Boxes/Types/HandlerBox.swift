/// `hdlr`: the kind of media (`vide`, `soun`, `meta`, ...). QuickTime puts a component type
/// (`mhlr`/`dhlr`) where ISO has zero, and a Pascal string where ISO has a C string.
public struct HandlerBox: BoxView, DumpAnnotated {
    public static let types: [FourCC] = ["hdlr"]
    public var header = FullBoxHeader()
    public var componentType: FourCC = FourCC(rawValue: 0)
    public var handlerType: FourCC = FourCC(rawValue: 0)
    public var reserved: [UInt8] = []
    public var nameBytes: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.fourCC("componentType", &componentType)
        try coder.fourCC("handlerType", &handlerType)
        try coder.bytes("reserved", &reserved, count: 12)
        try coder.rest("name", &nameBytes)
    }

    public var annotationLines: [String] { ["nameText: \(name)"] }

    public var name: String {
        guard let first = nameBytes.first else { return "" }
        // A Pascal string: a length byte that matches the rest.
        if componentType.rawValue != 0, Int(first) == nameBytes.count - 1 {
            return String(decoding: nameBytes.dropFirst(), as: UTF8.self)
        }
        return String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
