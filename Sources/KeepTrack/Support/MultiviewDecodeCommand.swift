import Foundation

/// The FFmpeg 9 command that decodes both views of an MV-HEVC track and packs them as `transcode --stereo` asks,
/// writing raw frames to its standard output. Built in one place for keeptrack-media, which reads the frames, and
/// for keeptrack, which may start it before handing over (`StereoPrestart`): the two must agree to the byte.
public struct MultiviewDecodeCommand: Sendable, Equatable {
    public var input: String
    public var packing: StereoPacking
    /// The view index (`vidx`) of the left eye: 1 when the source stores its right eye first.
    public var leftView: Int
    public var view: StereoPacking.Size
    /// FFmpeg's name of the raw frames' pixel format (`yuv420p`, `yuv420p10le`...).
    public var pixelFormat: String

    public init(input: String, packing: StereoPacking, leftView: Int, view: StereoPacking.Size, pixelFormat: String) {
        self.input = input
        self.packing = packing
        self.leftView = leftView
        self.view = view
        self.pixelFormat = pixelFormat
    }

    /// The command for `video` as its sample entry describes it (size, `hvcC` sampling); nil when the track is not
    /// stereo or the entry leaves the size or pixel format unknown (the first frame is then decoded to learn them).
    public init?(input: String, video: Track, packing: StereoPacking) {
        guard let stereo = video.video?.stereo, let entry = video.visualEntry,
              let format = Self.pixelFormat(hvcC: video.sampleEntries.first?.first("hvcC")?.payload ?? []) else { return nil }
        self.init(input: input, packing: packing, leftView: stereo.eyeViewsReversed ? 1 : 0,
                  view: .init(width: Int(entry.width), height: Int(entry.height)), pixelFormat: format)
    }

    /// FFmpeg's pixel format for an `hvcC`'s chroma format and luma bit depth (bytes 16 and 17), nil for others.
    public static func pixelFormat(hvcC: [UInt8]) -> String? {
        guard hvcC.count > 18 else { return nil }
        switch (hvcC[16] & 3, (hvcC[17] & 7) + 8) {
        case (1, 8): return "yuv420p"
        case (1, 10): return "yuv420p10le"
        case (2, 8): return "yuv422p"
        case (2, 10): return "yuv422p10le"
        default: return nil
        }
    }

    /// The filter graph: the views by index, each eye scaled when halved, then stacked.
    public var graph: String {
        let eye = packing.eyeSize(view: view)
        let scale = packing.half ? "scale=\(eye.width):\(eye.height)" : "null"
        switch packing.arrangement {
        case .left: return "[0:v:vidx:\(leftView)]null[out]"
        case .right: return "[0:v:vidx:\(1 - leftView)]null[out]"
        case .sbs, .ou:
            let stack = packing.arrangement == .sbs ? "hstack" : "vstack"
            return "[0:v:vidx:\(leftView)]\(scale)[left];[0:v:vidx:\(1 - leftView)]\(scale)[right];[left][right]\(stack)[out]"
        }
    }

    /// FFmpeg 9's arguments: every sample decoded (the edit list is the output's, kept by the mux), one raw frame
    /// out per frame in (no frame rate conversion), nothing but the packed video.
    public var arguments: [String] {
        ["-nostdin", "-hide_banner", "-v", "error", "-ignore_editlist", "1", "-i", input,
         "-filter_complex", graph, "-map", "[out]", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"]
    }
}
