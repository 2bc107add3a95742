/// An option's name, declared once as a static key (`.force`, `.jobs`): a command's option table and the
/// code that reads the value both name the key, so a misspelt option does not compile, and the key's
/// type is what reading it gives (a flag's Bool, a checked Int or Double, a String). Adding an option:
/// one key here, one table entry (`OptionSpec.flag/value`), reads through the key.
public struct OptionKey<Value>: Sendable, Hashable {
    public let name: String
    public init(_ name: String) { self.name = name }
}

/// Flags.
extension OptionKey<Bool> {
    public static var all: Self { Self("all") }
    public static var allEntries: Self { Self("all-entries") }
    public static var allowSilence: Self { Self("allow-silence") }
    public static var chapters: Self { Self("chapters") }
    public static var compare: Self { Self("compare") }
    public static var device: Self { Self("device") }
    public static var faces: Self { Self("faces") }
    public static var flattenStereo: Self { Self("flatten-stereo") }
    public static var force: Self { Self("force") }
    public static var half: Self { Self("half") }
    public static var help: Self { Self("help") }
    public static var hevc: Self { Self("hevc") }
    public static var inPlace: Self { Self("in-place") }
    public static var json: Self { Self("json") }
    public static var keyframe: Self { Self("keyframe") }
    public static var levels: Self { Self("levels") }
    public static var location: Self { Self("location") }
    public static var moovLast: Self { Self("moov-last") }
    public static var noVerify: Self { Self("no-verify") }
    public static var planOnly: Self { Self("plan-only") }
    public static var recursive: Self { Self("recursive") }
    public static var redactLocation: Self { Self("redact-location") }
    public static var sparse: Self { Self("sparse") }
    public static var verifyData: Self { Self("verify-data") }
}

/// Options with a text value (or one of a few choices).
extension OptionKey<String> {
    public static var aspect: Self { Self("aspect") }
    public static var at: Self { Self("at") }
    public static var audio: Self { Self("audio") }
    public static var codec: Self { Self("codec") }
    public static var digest: Self { Self("digest") }
    public static var dnxhrProfile: Self { Self("dnxhr-profile") }
    public static var duration: Self { Self("duration") }
    public static var end: Self { Self("end") }
    public static var every: Self { Self("every") }
    public static var hdr: Self { Self("hdr") }
    public static var keep: Self { Self("keep") }
    public static var language: Self { Self("language") }
    public static var layout: Self { Self("layout") }
    public static var list: Self { Self("list") }
    public static var maxSize: Self { Self("max-size") }
    public static var outDir: Self { Self("out-dir") }
    public static var photo: Self { Self("photo") }
    public static var initSegment: Self { Self("init") }
    public static var plan: Self { Self("plan") }
    public static var planOut: Self { Self("plan-out") }
    public static var prefer: Self { Self("prefer") }
    public static var proresProfile: Self { Self("prores-profile") }
    public static var reference: Self { Self("reference") }
    public static var preset: Self { Self("preset") }
    public static var preview: Self { Self("preview") }
    public static var report: Self { Self("report") }
    public static var shard: Self { Self("shard") }
    public static var size: Self { Self("size") }
    public static var start: Self { Self("start") }
    public static var stereo: Self { Self("stereo") }
    public static var tolerance: Self { Self("tolerance") }
    public static var video: Self { Self("video") }
}

/// Options with a whole-number value.
extension OptionKey<Int> {
    public static var depth: Self { Self("depth") }
    public static var frameRate: Self { Self("frame-rate") }
    public static var jobs: Self { Self("jobs") }
    public static var metadataFrom: Self { Self("metadata-from") }
    public static var track: Self { Self("track") }
    public static var videoFrameBytes: Self { Self("video-frame-bytes") }
}

/// Options with a number value.
extension OptionKey<Double> {
    public static var crf: Self { Self("crf") }
    public static var durationSeconds: Self { Self("duration") }
    public static var frameMemory: Self { Self("frame-memory") }
}
