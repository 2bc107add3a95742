import Foundation

/// What Google's spatial media boxes in a visual sample entry say about the whole picture: how two eyes are packed
/// into it (`st3d`) and how it maps onto a sphere (`sv3d`: 360° and 180° video). YouTube, FFmpeg's muxer and
/// `transcode --stereo` write them; players that find them show the picture in 3D or around the viewer.
/// Unreadable boxes leave their fact out, never throw: these facts only describe.
public struct PictureLayout: Sendable, Equatable {
    /// "side by side", "over-under", "side by side, right eye first", "custom stereo"; nil when `st3d` says mono
    /// or is absent.
    public var framePacking: String?
    /// "equirectangular", "cube map" or "mesh" (`sv3d/proj`); nil without `sv3d`.
    public var projection: String?
    /// Degrees of the sphere an equirectangular picture covers, across and up (its `equi` bounds): 360 and 180
    /// for the whole sphere, 180 and 180 for a half.
    public var coverageAcross: Double?
    public var coverageUp: Double?
    /// A cube map's padding in pixels of the stored picture (`cbmp`).
    public var cubeMapPadding: UInt32?
    /// Read from Spherical Video V1's XML (a `uuid` box in the `trak`), not from `st3d`/`sv3d`.
    public var sphericalV1 = false

    /// Spherical Video V1's `uuid` type: its payload is RDF/XML with `GSpherical:` elements.
    public static let sphericalV1UUID: [UInt8] = [0xff, 0xcc, 0x82, 0x63, 0xf8, 0x55, 0x4a, 0x93, 0x88, 0x14, 0x58, 0x7a, 0x02, 0x52, 0x1f, 0xdd]

    /// The layout Spherical Video V1's XML in `trak` gives (older 360° cameras and Google's injector write it),
    /// nil when the track has none or it does not say the picture is spherical.
    public init?(sphericalV1In trak: Box) {
        guard let uuid = trak.children.first(where: { $0.type == "uuid" && $0.userType == Self.sphericalV1UUID }) else { return nil }
        let xml = String(decoding: uuid.payload, as: UTF8.self)
        func element(_ name: String) -> String? {
            guard let start = xml.range(of: "<GSpherical:\(name)>"), let end = xml.range(of: "</GSpherical:\(name)>", range: start.upperBound..<xml.endIndex)
            else { return nil }
            return xml[start.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard element("Spherical")?.lowercased() == "true" else { return nil }
        sphericalV1 = true
        framePacking = switch element("StereoMode")?.lowercased() {
        case "left-right": "side by side"
        case "top-bottom": "over-under"
        case nil, "mono": nil
        case let other?: "stereo mode \(other)"
        }
        projection = element("ProjectionType") ?? "equirectangular"
        let number = { (name: String) in element(name).flatMap(Double.init) }
        if let width = number("CroppedAreaImageWidthPixels"), let fullWidth = number("FullPanoWidthPixels"), fullWidth > 0 {
            coverageAcross = 360 * min(1, width / fullWidth)
        }
        if let height = number("CroppedAreaImageHeightPixels"), let fullHeight = number("FullPanoHeightPixels"), fullHeight > 0 {
            coverageUp = 180 * min(1, height / fullHeight)
        }
    }

    /// The layout a sample entry's `st3d` and `sv3d` give, nil when it has neither.
    public init?(sampleEntry entry: Box) {
        let st3d = entry.first("st3d"), sv3d = entry.first("sv3d")
        guard st3d != nil || sv3d != nil else { return nil }
        if let mode = st3d?.payload.dropFirst(4).first {  // a full box: version and flags, then the mode
            framePacking = switch mode {
            case 0: nil
            case 1: "over-under"
            case 2: "side by side"
            case 3: "custom stereo"
            case 4: "side by side, right eye first"
            default: "stereo mode \(mode)"
            }
        }
        guard let sv3d else { return }
        // `sv3d` holds `svhd` and `proj`; `proj` holds `prhd` and the projection box (all read from the flat bytes:
        // the box reader keeps `sv3d` as it is).
        guard let proj = Self.children(of: sv3d.payload).first(where: { $0.type == "proj" }) else { return }
        for child in Self.children(of: proj.payload) {
            var fields = ByteReader(child.payload)
            switch child.type {
            case "equi":
                projection = "equirectangular"
                // Version and flags, then the top, bottom, left and right bounds as fractions of 2^32.
                guard let values = try? fields.u32Array(count: 5, "equi") else { continue }
                let bound = { (index: Int) in Double(values[index]) / 4_294_967_296 }
                coverageAcross = 360 * max(0, 1 - bound(3) - bound(4))
                coverageUp = 180 * max(0, 1 - bound(1) - bound(2))
            case "cbmp":
                projection = "cube map"
                cubeMapPadding = (try? fields.u32Array(count: 3, "cbmp"))?[2]  // version and flags, layout, padding
            case "mshp":
                projection = "mesh"
            default:
                continue
            }
        }
    }

    /// "side by side, equirectangular 180°×180°".
    public var summary: String {
        var parts: [String] = []
        if let framePacking { parts.append(framePacking) }
        if let projection {
            let coverage = coverageAcross.flatMap { across in coverageUp.map { String(format: " %g°×%g°", across.rounded(), $0.rounded()) } }
            parts.append(projection + (coverage ?? ""))
        }
        if sphericalV1 { parts.append("Spherical Video V1") }
        return parts.isEmpty ? "mono (st3d)" : parts.joined(separator: ", ")
    }

    /// The boxes laid out one after another in `bytes` (type and payload), up to the first that does not fit.
    static func children(of bytes: [UInt8]) -> [(type: FourCC, payload: [UInt8])] {
        var reader = ByteReader(bytes), found: [(type: FourCC, payload: [UInt8])] = []
        while let size = try? reader.u32(), size >= 8, let type = try? reader.u32(), let payload = try? reader.bytes(Int(size) - 8) {
            found.append((FourCC(rawValue: type), payload))
        }
        return found
    }
}
