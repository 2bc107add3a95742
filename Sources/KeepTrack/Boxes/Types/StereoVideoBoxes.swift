/// The boxes Apple's spatial and immersive video puts in a visual sample entry (Apple, "QuickTime and ISO
/// Base Media File Formats and Spatial and Immersive Media"): `vexu` (video extended usage) holds `eyes`
/// (stereo views: `stri`, `hero`, `cams/blin`, `cmfy/dadj`) and `proj` (`prji`); `hfov` sits beside it.
/// iPhone 15 Pro and later and Vision Pro record spatial video this way, in MV-HEVC (`hvcC` for the base
/// view, `lhvC` for the second). Only these leaves are typed; the containers stay lenient.

/// `stri`: which eye views the track carries.
public struct StereoViewInformationBox: BoxView {
    public static let types: [FourCC] = ["stri"]
    public var header = FullBoxHeader()
    /// Four reserved bits, then eye_views_reversed, has_additional_views, has_right_eye_view, has_left_eye_view.
    public var views: UInt8 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("views", &views, bytes: 1)
        try coder.rest("rest", &rest)
    }

    public var hasLeftEye: Bool { views & 0x01 != 0 }
    public var hasRightEye: Bool { views & 0x02 != 0 }
    public var hasAdditionalViews: Bool { views & 0x04 != 0 }
    public var eyeViewsReversed: Bool { views & 0x08 != 0 }
}

/// `hero`: the eye a 2D presentation shows (1 left, 2 right, 0 none).
public struct HeroEyeBox: BoxView {
    public static let types: [FourCC] = ["hero"]
    public var header = FullBoxHeader()
    public var heroEye: UInt8 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("heroEye", &heroEye, bytes: 1)
        try coder.rest("rest", &rest)
    }
}

/// `blin` (in `cams`): the distance between the two cameras' centres, in micrometres.
public struct StereoBaselineBox: BoxView {
    public static let types: [FourCC] = ["blin"]
    public var header = FullBoxHeader()
    public var baselineMicrometres: UInt32 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.uint("baselineMicrometres", &baselineMicrometres, bytes: 4)
        try coder.rest("rest", &rest)
    }
}

/// `prji` (in `proj`): how the picture maps to directions: `rect` (rectilinear, a flat picture), `equi`
/// (equirectangular), `hequ` (half equirectangular, 180°), `fish` (fisheye).
public struct ProjectionInformationBox: BoxView {
    public static let types: [FourCC] = ["prji"]
    public var header = FullBoxHeader()
    public var projectionKind: FourCC = FourCC(rawValue: 0)
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try header.code(&coder)
        try coder.fourCC("projectionKind", &projectionKind)
        try coder.rest("rest", &rest)
    }
}

/// `hfov`: the horizontal field of view of each view, in thousandths of a degree (a plain box).
public struct HorizontalFieldOfViewBox: BoxView {
    public static let types: [FourCC] = ["hfov"]
    public var fieldOfViewMillidegrees: UInt32 = 0
    public var rest: [UInt8] = []
    public init() {}

    public mutating func code<C: FieldCoder>(_ coder: inout C) throws {
        try coder.uint("fieldOfViewMillidegrees", &fieldOfViewMillidegrees, bytes: 4)
        try coder.rest("rest", &rest)
    }
}
