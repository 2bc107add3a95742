import CFaceDetect
import KeepTrackFraming

/// Finds faces with libfacedetection (YuNet CNN, BSD-3; weights are compiled into the library).
/// Works best on frames about 480–640 px wide; callers scale frames down and scale boxes back up.
public struct FaceDetector: Sendable {
    /// Detections below this confidence (0...100) are discarded; around 60 keeps real faces and drops texture.
    public var minimumConfidence: Int
    /// More faces than this in one frame are ignored (the detector returns the strongest first).
    public var maximumFaces: Int

    /// OpenMP threads the detector may use; nil leaves the library's default (every core). One thread avoids
    /// idle OpenMP workers spin-waiting beside a video encoder.
    public var threads: Int?

    public init(minimumConfidence: Int = 60, maximumFaces: Int = 64, threads: Int? = nil) {
        self.minimumConfidence = minimumConfidence
        self.maximumFaces = maximumFaces
        self.threads = threads
    }

    public enum DetectorError: Error, Equatable, CustomStringConvertible {
        case invalidImage(width: Int, height: Int, rowStride: Int, byteCount: Int)
        case detectorFailed
        /// libfacedetection (opened on the first detection) cannot be loaded: why.
        case unavailable(String)

        public var description: String {
            switch self {
            case let .invalidImage(width, height, rowStride, byteCount):
                return "the face detector was given an invalid \(width)x\(height) image (\(rowStride)-byte rows, \(byteCount) bytes)"
            case .detectorFailed: return "libfacedetection's face detector failed"
            case let .unavailable(why): return why
            }
        }
    }

    /// Faces in a packed BGR24 image whose rows are `rowStride` bytes apart, strongest first.
    public func detect(bgr: UnsafeRawBufferPointer, width: Int, height: Int, rowStride: Int) throws -> [FaceDetection] {
        guard width > 0, height > 0, rowStride >= width * 3, width <= 1 << 14, height <= 1 << 14,
              bgr.count >= rowStride * (height - 1) + width * 3, let base = bgr.baseAddress
        else {
            throw DetectorError.invalidImage(width: width, height: height, rowStride: rowStride, byteCount: bgr.count)
        }
        if let threads { _ = cfd_limit_threads(Int32(threads)) }
        var faces = [CFDFace](repeating: CFDFace(), count: maximumFaces)
        let count = faces.withUnsafeMutableBufferPointer { buffer in
            cfd_detect_bgr(base.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(rowStride),
                           buffer.baseAddress, Int32(buffer.count))
        }
        if count == -2 { throw DetectorError.unavailable(String(cString: cfd_failure())) }
        guard count >= 0 else { throw DetectorError.detectorFailed }
        return faces.prefix(Int(count)).compactMap { face in
            guard Int(face.confidence) >= minimumConfidence, face.width > 0, face.height > 0 else { return nil }
            let box = FrameRect(x: Double(face.x), y: Double(face.y), width: Double(face.width), height: Double(face.height))
            return FaceDetection(box: box, confidence: Int(face.confidence))
        }
    }

    /// Convenience for a `[UInt8]` BGR24 image.
    public func detect(bgr: [UInt8], width: Int, height: Int, rowStride: Int? = nil) throws -> [FaceDetection] {
        try bgr.withUnsafeBytes { try detect(bgr: $0, width: width, height: height, rowStride: rowStride ?? width * 3) }
    }
}
