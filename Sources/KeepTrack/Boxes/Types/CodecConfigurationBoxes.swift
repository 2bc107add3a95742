/// `hvcC`: the HEVC decoder configuration. Only the profile and level are typed; the parameter
/// sets stay as bytes.
public struct HEVCConfigurationBox: BoxView {
    public static let types: [FourCC] = ["hvcC"]
    public var configurationVersion: UInt8 = 1
    /// general_profile_space (2 bits), general_tier_flag (1), general_profile_idc (5).
    public var profileByte: UInt8 = 0
    public var profileCompatibility: UInt32 = 0
    public var constraintFlags: [UInt8] = []
    public var levelIDC: UInt8 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("configurationVersion", &configurationVersion, bytes: 1)
        try coder.uint("profileByte", &profileByte, bytes: 1)
        try coder.uint("profileCompatibility", &profileCompatibility, bytes: 4)
        try coder.bytes("constraintFlags", &constraintFlags, count: 6)
        try coder.uint("levelIDC", &levelIDC, bytes: 1)
        try coder.rest("rest", &rest)
    }

    public var profileIDC: UInt8 { profileByte & 0x1F }
    public var profileName: String {
        switch profileIDC {
        case 1: "Main"
        case 2: "Main 10"
        case 3: "Main Still Picture"
        case 4: "Range Extensions"
        default: "profile \(profileIDC)"
        }
    }
}

/// `avcC`: the H.264 decoder configuration; profile and level typed, the rest kept.
public struct AVCConfigurationBox: BoxView {
    public static let types: [FourCC] = ["avcC"]
    public var configurationVersion: UInt8 = 1
    public var profileIDC: UInt8 = 0
    public var profileCompatibility: UInt8 = 0
    public var levelIDC: UInt8 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("configurationVersion", &configurationVersion, bytes: 1)
        try coder.uint("profileIDC", &profileIDC, bytes: 1)
        try coder.uint("profileCompatibility", &profileCompatibility, bytes: 1)
        try coder.uint("levelIDC", &levelIDC, bytes: 1)
        try coder.rest("rest", &rest)
    }

    public var profileName: String {
        switch profileIDC {
        case 66: "Baseline"
        case 77: "Main"
        case 88: "Extended"
        case 100: "High"
        case 110: "High 10"
        case 122: "High 4:2:2"
        case 244: "High 4:4:4"
        default: "profile \(profileIDC)"
        }
    }
}

/// `dvcC` / `dvvC` / `dvwC`: Dolby Vision configuration (profile, level, which layers are present).
public struct DolbyVisionConfigurationBox: BoxView {
    public static let types: [FourCC] = ["dvcC", "dvvC", "dvwC"]
    public var versionMajor: UInt8 = 1
    public var versionMinor: UInt8 = 0
    /// profile (7 bits), level (6), rpu present (1), enhancement layer present (1), base layer present (1).
    public var packed: UInt16 = 0
    /// dv_bl_signal_compatibility_id in the top 4 bits.
    public var compatibilityByte: UInt8 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("versionMajor", &versionMajor, bytes: 1)
        try coder.uint("versionMinor", &versionMinor, bytes: 1)
        try coder.uint("profileLevelFlags", &packed, bytes: 2)
        try coder.uint("compatibilityByte", &compatibilityByte, bytes: 1)
        try coder.rest("rest", &rest)
    }

    public var profile: Int { Int(packed >> 9) }
    public var level: Int { Int(packed >> 3 & 0x3F) }
    public var compatibilityID: Int { Int(compatibilityByte >> 4) }
    /// The customary "8.4" form: profile and base-layer compatibility id.
    public var profileName: String { "\(profile).\(compatibilityID)" }
}
