/// `ftyp`: major brand and compatible brands ("qt  " marks a QuickTime movie).
public struct FileTypeBox: BoxView, DumpAnnotated {
    public static let types: [FourCC] = ["ftyp", "styp"]
    public var majorBrand: FourCC = "isom"
    public var minorVersion: UInt32 = 0
    public var compatibleBrands: [FourCC] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.fourCC("majorBrand", &majorBrand)
        try coder.uint("minorVersion", &minorVersion, bytes: 4)
        var raw = compatibleBrands.map(\.rawValue)
        try coder.u32Array("compatibleBrands", &raw, count: coder.isDecoding ? coder.remaining / 4 : raw.count)
        compatibleBrands = raw.map(FourCC.init(rawValue:))
    }

    public var annotationLines: [String] { ["brands: " + compatibleBrands.map { "'\($0)'" }.joined(separator: " ")] }
}
