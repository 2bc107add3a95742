import CPeopleDetectLoader
import KeepTrackFraming

/// Finds upright people — seen from the front, the back or the side, near or far — with OpenCV's HOG
/// people detector (Debian's libopencv-objdetect; the SVM ships inside the library). It sees bodies, so it
/// finds the people whose faces the face detector cannot: backs to the camera, small or blurred faces.
/// Its window is 64×128 px: `detect` enlarges the picture so that people `minimumHeightFraction` of the
/// picture's height tall fill it (at most 4×), and gives boxes in the picture's own pixels.
public struct PersonDetector: Sendable {
    /// People shorter than this fraction of the picture height are not looked for (smaller means a larger,
    /// slower picture for the detector).
    public var minimumHeightFraction: Double
    /// Detections with an SVM margin below this are dropped (0.3 keeps people and drops most texture).
    public var minimumScore: Double
    public var maximumPeople: Int

    public init(minimumHeightFraction: Double = 0.4, minimumScore: Double = 0.3, maximumPeople: Int = 16) {
        self.minimumHeightFraction = minimumHeightFraction
        self.minimumScore = minimumScore
        self.maximumPeople = maximumPeople
    }

    public enum DetectorError: Error, Equatable, CustomStringConvertible {
        case invalidImage(width: Int, height: Int, rowStride: Int, byteCount: Int)
        case detectorFailed
        /// libKeepTrackPeopleDetector.so (OpenCV's detector, opened on first use) cannot be loaded: why.
        case unavailable(String)

        public var description: String {
            switch self {
            case let .invalidImage(width, height, rowStride, byteCount):
                return "the people detector was given an invalid \(width)x\(height) image (\(rowStride)-byte rows, \(byteCount) bytes)"
            case .detectorFailed: return "OpenCV's people detector failed"
            case let .unavailable(why): return why
            }
        }
    }

    /// How much a picture `height` px tall is enlarged before detection, so that the smallest person looked
    /// for is a little taller than the detector's 128-px window (1...4).
    public func upscale(height: Int) -> Double {
        min(4, max(1, 144 / (minimumHeightFraction * Double(max(height, 1)))))
    }

    /// People in a packed BGR24 image whose rows are `rowStride` bytes apart, strongest first, in its pixels.
    /// Confidence is the SVM margin × 100.
    public func detect(bgr: UnsafeRawBufferPointer, width: Int, height: Int, rowStride: Int) throws -> [FaceDetection] {
        guard width > 0, height > 0, rowStride >= width * 3, width <= 1 << 14, height <= 1 << 14,
              bgr.count >= rowStride * (height - 1) + width * 3, let base = bgr.baseAddress
        else {
            throw DetectorError.invalidImage(width: width, height: height, rowStride: rowStride, byteCount: bgr.count)
        }
        var people = [CPDPerson](repeating: CPDPerson(), count: maximumPeople)
        let count = people.withUnsafeMutableBufferPointer { buffer in
            cpdl_detect_bgr(base.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(rowStride),
                            upscale(height: height), buffer.baseAddress, Int32(buffer.count))
        }
        if count == -2 { throw DetectorError.unavailable(String(cString: cpdl_failure())) }
        guard count >= 0 else { throw DetectorError.detectorFailed }
        return people.prefix(Int(count)).compactMap { person in
            guard Double(person.score) >= minimumScore, person.width > 0, person.height > 0 else { return nil }
            let box = FrameRect(x: Double(person.x), y: Double(person.y), width: Double(person.width), height: Double(person.height))
            return FaceDetection(box: box, confidence: Int((Double(person.score) * 100).rounded()))
        }
    }

    /// Convenience for a `[UInt8]` BGR24 image.
    public func detect(bgr: [UInt8], width: Int, height: Int, rowStride: Int? = nil) throws -> [FaceDetection] {
        try bgr.withUnsafeBytes { try detect(bgr: $0, width: width, height: height, rowStride: rowStride ?? width * 3) }
    }
}
