import CFFmpeg
import KeepTrack
import KeepTrackFraming
import KeepTrackTranscode

/// Turns a decoded frame into the encoder's input: the crop rectangle (in display orientation) cut out
/// of the stored frame, rotated upright, then scaled or converted only when size or format differ.
final class FrameCropper {
    let orientation: DisplayOrientation
    let crop: PixelSize
    let output: PixelSize
    let sourceFormat: Int32
    let outputFormat: Int32
    let bytesPerSample: Int
    private var scaler: OpaquePointer?

    init(orientation: DisplayOrientation, crop: PixelSize, output: PixelSize,
         sourceFormat: Int32, outputFormat: Int32) throws {
        guard let bytes = FrameOperations.bytesPerSample(sourceFormat) else {
            throw KeepTrackError.unsupported("pixel format \(sourceFormat) is not 4:2:0 8/10-bit")
        }
        self.orientation = orientation
        self.crop = crop
        self.output = output
        self.sourceFormat = sourceFormat
        self.outputFormat = outputFormat
        bytesPerSample = bytes
        if crop.width != output.width || crop.height != output.height || sourceFormat != outputFormat {
            scaler = sws_getContext(Int32(crop.width), Int32(crop.height), AVPixelFormat(rawValue: sourceFormat),
                                    Int32(output.width), Int32(output.height), AVPixelFormat(rawValue: outputFormat),
                                    SWS_BICUBIC, nil, nil, nil)
            guard scaler != nil else { throw KeepTrackError.unsupported("cannot scale \(crop.width)x\(crop.height) to \(output.width)x\(output.height)") }
        }
    }

    deinit { sws_freeContext(scaler) }

    /// A new frame (the caller frees it) holding the crop at display position (`displayX`, `displayY`).
    func prepare(_ frame: UnsafePointer<AVFrame>, displayX: Int, displayY: Int, time: Int64) throws -> UnsafeMutablePointer<AVFrame> {
        let stored = orientation.storedRect(display: (displayX, displayY, crop.width, crop.height))
        var cropped: UnsafeMutablePointer<AVFrame>
        if orientation.rotation == 0 {
            // No pixels move: a reference to the decoded frame with its data pointers moved to the crop.
            guard let clone = av_frame_clone(frame) else { throw KeepTrackError.io("out of memory cloning a frame") }
            clone.pointee.crop_left = Int(stored.x)
            clone.pointee.crop_top = Int(stored.y)
            clone.pointee.crop_right = Int(frame.pointee.width) - stored.x - stored.width
            clone.pointee.crop_bottom = Int(frame.pointee.height) - stored.y - stored.height
            guard av_frame_apply_cropping(clone, Int32(AV_FRAME_CROP_UNALIGNED)) >= 0 else {
                var owned: UnsafeMutablePointer<AVFrame>? = clone
                av_frame_free(&owned)
                throw KeepTrackError.io("cannot crop frame to \(stored)")
            }
            cropped = clone
        } else {
            cropped = try VideoFrames.newFrame(width: crop.width, height: crop.height, format: sourceFormat)
            for plane in 0..<3 {
                let shift = plane == 0 ? 0 : 1
                let sourceStride = Int(VideoFrames.linesize(frame, plane))
                let origin = VideoFrames.pointer(frame, plane)! + (stored.y >> shift) * sourceStride + (stored.x >> shift) * bytesPerSample
                FrameOperations.rotate(origin, sourceStride: sourceStride, width: stored.width >> shift, height: stored.height >> shift,
                                       bytesPerPixel: bytesPerSample, rotation: orientation.rotation,
                                       into: VideoFrames.pointer(cropped, plane)!, destinationStride: Int(VideoFrames.linesize(cropped, plane)))
            }
        }
        if let scaler {
            let scaled: UnsafeMutablePointer<AVFrame>
            do { scaled = try VideoFrames.newFrame(width: output.width, height: output.height, format: outputFormat) } catch {
                var owned: UnsafeMutablePointer<AVFrame>? = cropped
                av_frame_free(&owned)
                throw error
            }
            withUnsafePointer(to: cropped.pointee.data) { data in
                withUnsafePointer(to: cropped.pointee.linesize) { lines in
                    data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sourcePlanes in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                            withUnsafeMutablePointer(to: &scaled.pointee.data) { outData in
                                withUnsafeMutablePointer(to: &scaled.pointee.linesize) { outLines in
                                    outData.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { outPlanes in
                                        outLines.withMemoryRebound(to: Int32.self, capacity: 8) { outStrides in
                                            _ = sws_scale(scaler, sourcePlanes, sourceStrides, 0, Int32(crop.height), outPlanes, outStrides)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            var owned: UnsafeMutablePointer<AVFrame>? = cropped
            av_frame_free(&owned)
            cropped = scaled
        }
        cropped.pointee.pts = time
        // The decoder's picture type would force the encoder's frame types; let the encoder choose.
        cropped.pointee.pict_type = AV_PICTURE_TYPE_NONE
        return cropped
    }
}
