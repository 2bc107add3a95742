/// `colr`: colour primaries, transfer characteristics (HLG = 18, PQ = 16) and matrix.
public struct ColourInformationBox: BoxView {
    public static let types: [FourCC] = ["colr"]
    public var colourType: FourCC = "nclx"
    public var primaries: UInt16 = 0
    public var transfer: UInt16 = 0
    public var matrixCoefficients: UInt16 = 0
    /// `nclx` only: full-range flag in the top bit, then reserved bits.
    public var rangeByte: UInt8 = 0
    /// An ICC profile, or anything after the known fields.
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.fourCC("colourType", &colourType)
        if colourType == "nclx" || colourType == "nclc" {
            try coder.uint("primaries", &primaries, bytes: 2)
            try coder.uint("transfer", &transfer, bytes: 2)
            try coder.uint("matrixCoefficients", &matrixCoefficients, bytes: 2)
            if colourType == "nclx" { try coder.uint("rangeByte", &rangeByte, bytes: 1) }
        }
        try coder.rest("rest", &rest)
    }

    /// "HLG", "PQ" or nil for SDR / unknown transfer.
    public var hdrTransfer: String? {
        guard colourType == "nclx" || colourType == "nclc" else { return nil }
        switch transfer {
        case 18: return "HLG"
        case 16: return "PQ"
        default: return nil
        }
    }
}
