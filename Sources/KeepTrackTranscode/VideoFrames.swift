import CFFmpeg
import KeepTrack

/// Small helpers over libavutil frames shared by the renderers.
public enum VideoFrames {
    public static func newFrame(width: Int, height: Int, format: Int32) throws -> UnsafeMutablePointer<AVFrame> {
        guard let frame = av_frame_alloc() else { throw KeepTrackError.io("out of memory allocating a frame") }
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = format
        guard av_frame_get_buffer(frame, 0) >= 0 else {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
            throw KeepTrackError.io("out of memory allocating a \(width)x\(height) frame")
        }
        return frame
    }

    public static func pointer(_ frame: UnsafePointer<AVFrame>, _ plane: Int) -> UnsafeMutablePointer<UInt8>? {
        switch plane {
        case 0: return frame.pointee.data.0
        case 1: return frame.pointee.data.1
        default: return frame.pointee.data.2
        }
    }

    public static func linesize(_ frame: UnsafePointer<AVFrame>, _ plane: Int) -> Int32 {
        switch plane {
        case 0: return frame.pointee.linesize.0
        case 1: return frame.pointee.linesize.1
        default: return frame.pointee.linesize.2
        }
    }

    /// Runs `context` on the rows of `source` from (`x`, `y`) (even; `height` rows of `sourceBytes`-byte
    /// samples), writing into `destination` from row `row`, column `column` (even; `outputBytes`-byte samples).
    public static func scale(_ context: OpaquePointer?, from source: UnsafePointer<AVFrame>, x: Int, y: Int, height: Int, sourceBytes: Int,
                      into destination: UnsafeMutablePointer<AVFrame>, atRow row: Int, column: Int = 0, outputBytes: Int) {
        var sourcePlanes: [UnsafePointer<UInt8>?] = [nil, nil, nil, nil]
        var sourceStrides: [Int32] = [0, 0, 0, 0]
        var outPlanes: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil]
        var outStrides: [Int32] = [0, 0, 0, 0]
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let stride = Int(linesize(source, plane))
            sourcePlanes[plane] = UnsafePointer(pointer(source, plane)! + (y >> shift) * stride + (x >> shift) * sourceBytes)
            sourceStrides[plane] = Int32(stride)
            let outStride = Int(linesize(UnsafePointer(destination), plane))
            outPlanes[plane] = pointer(UnsafePointer(destination), plane)! + (row >> shift) * outStride + (column >> shift) * outputBytes
            outStrides[plane] = Int32(outStride)
        }
        _ = sws_scale(context, sourcePlanes, sourceStrides, 0, Int32(height), outPlanes, outStrides)
    }
}
