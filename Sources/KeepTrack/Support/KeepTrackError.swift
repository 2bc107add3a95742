/// Every failure keeptrack reports, each mapped to a sysexits code so scripts can tell
/// "your file is broken" from "you typed it wrong" from "the disk failed".
public enum KeepTrackError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Bad command line (EX_USAGE 64).
    case usage(String)
    /// The input is not a valid movie, or violates a rule we depend on (EX_DATAERR 65).
    /// `path` is the box path such as `moov/trak[2]/mdia/minf/stbl/stsz`, `offset` the byte offset in the file.
    case malformed(path: String, offset: UInt64, reason: String)
    /// Valid input we refuse to handle (also EX_DATAERR 65).
    case unsupported(String)
    /// The input does not exist or cannot be opened (EX_NOINPUT 66).
    case missingInput(String)
    /// The output cannot be created (EX_CANTCREAT 73).
    case cannotCreate(String)
    /// The output exists and replacing it was not asked for (EX_CANTCREAT 73); holds the path.
    case outputExists(String)
    /// A read or write failed underway (EX_IOERR 74).
    case io(String)
    /// Valid input an operation declines unless the caller asks for it differently (EX_DATAERR 65):
    /// the library says what and why; the command line adds the option that asks (`--allow-silence`).
    case refused(Refusal)

    public struct Refusal: Equatable, Sendable {
        public enum Kind: String, Sendable {
            /// Removing a spatial track without a fallback would leave no audio (StripSpatial's `allowSilence`).
            case wouldLeaveSilence
            /// Patching in place only changes flag bytes; this change needs the file rewritten.
            case needsRewrite
            /// An 8-bit encode of an HDR (HLG/PQ) source: the transfer needs 10 bits, or a tone map to SDR.
            case hdrNeedsTenBit
        }
        public var kind: Kind
        public var message: String
        public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    }

    public var exitCode: Int32 {
        switch self {
        case .usage: 64
        case .malformed, .unsupported, .refused: 65
        case .missingInput: 66
        case .cannotCreate, .outputExists: 73
        case .io: 74
        }
    }

    public var description: String {
        switch self {
        case .usage(let message): message
        case .malformed(let path, let offset, let reason): "malformed input: \(path.isEmpty ? "file" : path) at byte \(offset): \(reason)"
        case .unsupported(let message): "unsupported: \(message)"
        case .missingInput(let message): message
        case .cannotCreate(let message): message
        case .outputExists(let path): "\(path) already exists"
        case .io(let message): "I/O error: \(message)"
        case .refused(let refusal): "unsupported: \(refusal.message)"
        }
    }
}

/// sysexits(3) codes used by the command line.
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let findings: Int32 = 1
    public static let usage: Int32 = 64
    public static let dataError: Int32 = 65
    public static let noInput: Int32 = 66
    /// A component the command needs is not installed (transcode --stereo without the pinned FFmpeg 9).
    public static let unavailable: Int32 = 69
    public static let cannotCreate: Int32 = 73
    public static let ioError: Int32 = 74
}
