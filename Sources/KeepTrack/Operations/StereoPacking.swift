/// How `transcode --stereo` lays the two views of a stereo MV-HEVC track into one flat picture, and the boxes
/// that tell other players what that picture is: Google's spherical video metadata (`st3d` stereo mode, `sv3d`
/// projection) in the visual sample entry, and Apple's `hfov` carried as it is.
public struct StereoPacking: Sendable, Equatable {
    public enum Arrangement: String, Sendable, CaseIterable {
        /// Left eye in the left half, right eye in the right half.
        case sbs
        /// Left eye on top (over-under, top-bottom).
        case ou
        /// One eye only, flat.
        case left, right
    }

    /// A picture's size in pixels.
    public struct Size: Sendable, Equatable {
        public var width: Int, height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    public var arrangement: Arrangement
    /// Each eye squeezed to half the width (side by side) or half the height (over-under): the output keeps one view's size.
    public var half: Bool

    public init(_ arrangement: Arrangement, half: Bool = false) {
        self.arrangement = arrangement
        self.half = half
    }

    /// Both eyes in the picture.
    public var isStereo: Bool { arrangement == .sbs || arrangement == .ou }

    /// The size each eye is given from a view of `view` size (halves rounded down).
    public func eyeSize(view: Size) -> Size {
        guard half else { return view }
        switch arrangement {
        case .sbs: return Size(width: view.width / 2, height: view.height)
        case .ou: return Size(width: view.width, height: view.height / 2)
        case .left, .right: return view
        }
    }

    /// The packed picture's size.
    public func pictureSize(view: Size) -> Size {
        let eye = eyeSize(view: view)
        switch arrangement {
        case .sbs: return Size(width: eye.width * 2, height: eye.height)
        case .ou: return Size(width: eye.width, height: eye.height * 2)
        case .left, .right: return eye
        }
    }

    /// Google's `st3d` stereo_mode: 0 monoscopic, 1 top-bottom (left eye on top), 2 left-right (left eye left).
    public var stereoMode: UInt8 {
        switch arrangement {
        case .sbs: 2
        case .ou: 1
        case .left, .right: 0
        }
    }

    /// Human words for the arrangement: "full side by side", "half over-under", "left eye only".
    public var words: String {
        switch arrangement {
        case .sbs: (half ? "half" : "full") + " side by side"
        case .ou: (half ? "half" : "full") + " over-under"
        case .left, .right: "\(arrangement.rawValue) eye only, 2D"
        }
    }

    /// `st3d` (a full box: version 0, flags 0, then the stereo mode), written for both eyes in one picture.
    public var stereoModeBox: Box? {
        isStereo ? Box(type: "st3d", bytes: [0, 0, 0, 0, stereoMode]) : nil
    }

    /// `sv3d` for a projection (`StereoVideoInfo.projection`), nil when rectilinear (no box) or when Google's boxes
    /// have no equirectangular form of it (fisheye): `svhd` (who wrote it), `proj` holding `prhd` (pose 0, 0, 0) and
    /// `equi` whose bounds say how much of the 360° sphere is left out: a quarter at each side for 180°.
    public static func projectionBox(_ projection: String?) -> Box? {
        let sideBound: UInt32
        switch projection {
        case "equirectangular": sideBound = 0
        case "half-equirectangular": sideBound = 0x4000_0000
        default: return nil
        }
        func box(_ type: FourCC, _ payload: [UInt8]) -> [UInt8] {
            var writer = ByteWriter()
            writer.u32(UInt32(8 + payload.count))
            writer.fourCC(type)
            writer.append(payload)
            return writer.bytes
        }
        func fields(_ values: [UInt32]) -> [UInt8] {
            var writer = ByteWriter()
            for value in values { writer.u32(value) }
            return writer.bytes
        }
        // Flat bytes, as a reader that does not know these boxes keeps them (the write's read-back compares so).
        let header = box("svhd", fields([0]) + Array("keeptrack".utf8) + [0])
        let pose = box("prhd", fields([0, 0, 0, 0]))  // version and flags, yaw, pitch, roll
        let bounds = box("equi", fields([0, 0, 0, sideBound, sideBound]))  // version and flags, top, bottom, left, right
        return Box(type: "sv3d", bytes: header + box("proj", pose + bounds))
    }

    /// What the packed track's sample entry says about the stereo picture, each with what it carries; and what
    /// of the source's stereo facts has no box in it, with why.
    public func metadata(for stereo: StereoVideoInfo, hfov: Box?) -> (boxes: [Box], written: [String], notCarried: [String]) {
        var boxes: [Box] = [], written: [String] = [], notCarried: [String] = []
        if let st3d = stereoModeBox {
            boxes.append(st3d)
            written.append("st3d \(stereoMode == 2 ? "left-right" : "top-bottom")")
        }
        if let sv3d = Self.projectionBox(stereo.projection) {
            boxes.append(sv3d)
            written.append("sv3d \(stereo.projection ?? "") (equi)")
        } else if let projection = stereo.projection {
            notCarried.append("\(projection) projection: Google's sv3d has no box for it")
        }
        if let hfov {
            boxes.append(hfov)
            written.append(String(format: "hfov %g°", stereo.fieldOfViewDegrees ?? 0))
        }
        if let baseline = stereo.baselineMillimetres, isStereo {
            notCarried.append(String(format: "%g mm baseline: it lives in vexu, which describes MV-HEVC views, and st3d has no field for it", baseline))
        }
        return (boxes, written, notCarried)
    }

    /// "3868x2160 full side by side; st3d left-right, hfov 64°", for inspect and the transcode summary.
    public func plan(for stereo: StereoVideoInfo, view: Size, hfov: Box?) -> String {
        let size = pictureSize(view: view)
        let written = metadata(for: stereo, hfov: hfov).written
        return "\(size.width)x\(size.height) \(words)" + (written.isEmpty ? "" : "; " + written.joined(separator: ", "))
    }
}
