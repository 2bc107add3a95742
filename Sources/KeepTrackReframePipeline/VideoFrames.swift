import CFFmpeg
import KeepTrack

/// Small helpers over libavutil frames shared by the renderers.
enum VideoFrames {
    static func newFrame(width: Int, height: Int, format: Int32) throws -> UnsafeMutablePointer<AVFrame> {
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

    static func pointer(_ frame: UnsafePointer<AVFrame>, _ plane: Int) -> UnsafeMutablePointer<UInt8>? {
        switch plane {
        case 0: return frame.pointee.data.0
        case 1: return frame.pointee.data.1
        default: return frame.pointee.data.2
        }
    }

    static func linesize(_ frame: UnsafePointer<AVFrame>, _ plane: Int) -> Int32 {
        switch plane {
        case 0: return frame.pointee.linesize.0
        case 1: return frame.pointee.linesize.1
        default: return frame.pointee.linesize.2
        }
    }
}
