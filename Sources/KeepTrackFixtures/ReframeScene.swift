/// A synthetic clip with ground truth for reframing: a real photograph of a person (a head-and-shoulders
/// crop of scikit-image's public-domain `astronaut.png`) moved along a known path over a plain gradient,
/// composited by ffmpeg's overlay filter with a scripted position. Segments are separated by hard cuts
/// (new background, new position). `faceBox(frame:)` says exactly where the face is on every frame.
/// The gradients are seeded, so every rendering of a scene is the same (ffmpeg's default seed is random,
/// and with it the luma difference at a cut).
public struct ReframeScene: Sendable {
    /// Where the photograph's top-left corner is at a time (seconds from the segment start), in frame pixels.
    public struct Keyframe: Sendable {
        public var time: Double
        public var x: Double
        public var y: Double
        public init(_ time: Double, x: Double, y: Double = 380) {
            self.time = time
            self.x = x
            self.y = y
        }
    }

    /// The two ffmpeg colours of a segment's background gradient.
    public struct Colours: Sendable {
        public var first: String
        public var second: String
        public init(_ first: String, _ second: String) {
            self.first = first
            self.second = second
        }
    }

    /// A rectangle in frame pixels (origin top-left, y down). Deliberately not KeepTrackFraming's `FrameRect`:
    /// the scenes are the ground truth the planner is judged against, so they share no type or module with it
    /// (and the fixture module stays one the container-only `keeptrack` links).
    public struct Rect: Equatable, Sendable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// One shot: a duration, a background, and the photograph's path (linear between keyframes).
    public struct Segment: Sendable {
        public var duration: Double
        /// Two ffmpeg colours for the background gradient.
        public var colours: Colours
        public var keyframes: [Keyframe]
        /// A second person's path (the same photograph, composited after the first); empty: one person.
        public var companion: [Keyframe]
        public init(duration: Double, colours: Colours, keyframes: [Keyframe], companion: [Keyframe] = []) {
            self.duration = duration
            self.colours = colours
            self.keyframes = keyframes
            self.companion = companion
        }
    }

    public var name: String
    public var width = 1920
    public var height = 1080
    public var frameRate = 30
    public var segments: [Segment]

    /// The part of astronaut.png (512×512) that is composited: head and shoulders.
    static let photoCrop = (x: 120, y: 0, width: 210, height: 300)
    public static let photoScale = 1.5
    /// The face inside astronaut.png, as libfacedetection finds it and as checked by eye.
    static let faceInPhoto = (x: 178.0, y: 63.0, width: 89.0, height: 112.0)
    static var photoSize: (width: Int, height: Int) {
        (Int(Double(photoCrop.width) * photoScale), Int(Double(photoCrop.height) * photoScale))
    }

    public init(name: String, segments: [Segment]) {
        self.name = name
        self.segments = segments
    }

    public var frameCount: Int { segments.reduce(0) { $0 + frames(in: $1) } }
    /// First frame of every segment after the first: where the cuts are.
    public var cutFrames: [Int] {
        var start = 0
        return segments.dropLast().map { start += frames(in: $0); return start }
    }

    private func frames(in segment: Segment) -> Int { Int((segment.duration * Double(frameRate)).rounded()) }

    /// The face's rectangle on frame `index` (it may lie partly or wholly outside the frame); `person` 1 is
    /// the segment's companion.
    public func faceBox(frame index: Int, person: Int = 0) -> Rect {
        let photo = personBox(frame: index, person: person)
        let face = Self.faceInPhoto, crop = Self.photoCrop, scale = Self.photoScale
        return Rect(x: photo.x + (face.x - Double(crop.x)) * scale, y: photo.y + (face.y - Double(crop.y)) * scale,
                    width: face.width * scale, height: face.height * scale)
    }

    /// The whole composited person (the head-and-shoulders photograph) on frame `index`.
    public func personBox(frame index: Int, person: Int = 0) -> Rect {
        var local = index
        var segment = segments[segments.count - 1]
        for candidate in segments {
            if local < frames(in: candidate) { segment = candidate; break }
            local -= frames(in: candidate)
        }
        let time = Double(local) / Double(frameRate)
        // overlay truncates positions and aligns them to chroma (even for 4:2:0): (int)value & ~1.
        let keyframes = person == 1 ? segment.companion : segment.keyframes
        let x = Double(Int(Self.position(keyframes, at: time, \.x)) & ~1)
        let y = Double(Int(Self.position(keyframes, at: time, \.y)) & ~1)
        return Rect(x: x, y: y, width: Double(Self.photoSize.width), height: Double(Self.photoSize.height))
    }

    static func position(_ keyframes: [Keyframe], at time: Double, _ coordinate: KeyPath<Keyframe, Double>) -> Double {
        guard let first = keyframes.first else { return 0 }
        if time <= first.time { return first[keyPath: coordinate] }
        for (a, b) in zip(keyframes, keyframes.dropFirst()) where time < b.time {
            return a[keyPath: coordinate] + (b[keyPath: coordinate] - a[keyPath: coordinate]) * (time - a.time) / (b.time - a.time)
        }
        return keyframes[keyframes.count - 1][keyPath: coordinate]
    }

    /// The same path as an ffmpeg expression of `t`, evaluated by overlay on every frame.
    static func expression(_ keyframes: [Keyframe], _ coordinate: KeyPath<Keyframe, Double>) -> String {
        guard let last = keyframes.last else { return "0" }
        var expression = "\(last[keyPath: coordinate])"
        for (a, b) in zip(keyframes, keyframes.dropFirst()).reversed() {
            let va = a[keyPath: coordinate], vb = b[keyPath: coordinate]
            expression = "if(lt(t\\,\(b.time))\\,\(va)+(\(vb - va))*(t-\(a.time))/\(b.time - a.time)\\,\(expression))"
        }
        if let first = keyframes.first {
            expression = "if(lt(t\\,\(first.time))\\,\(first[keyPath: coordinate])\\,\(expression))"
        }
        return expression
    }

    public enum VideoCodec: String, Sendable {
        /// H.264 High 8-bit, SDR (BT.709).
        case h264
        /// HEVC Main10 tagged HLG / BT.2020, like an iPhone recording (the pixels are the same SDR picture).
        case hevcHLG
    }

    /// Arguments for `ffmpeg` writing the clip as a QuickTime movie with two AAC tracks in one alternate
    /// group: stereo (enabled) and 4-channel (disabled), standing in for an iPhone's stereo and spatial audio.
    /// `x264Parameters` (H.264 only) shapes the frame types, e.g. to put a cut on a B-frame.
    public func ffmpegArguments(photo: String, output: String, codec: VideoCodec = .h264, x264Parameters: String? = nil) -> [String] {
        let crop = Self.photoCrop, size = Self.photoSize
        let companions = segments.indices.filter { !segments[$0].companion.isEmpty }
        var graph = "[0:v]crop=\(crop.width):\(crop.height):\(crop.x):\(crop.y),scale=\(size.width):\(size.height),format=yuva420p,split=\(segments.count + companions.count)"
        graph += segments.indices.map { "[photo\($0)]" }.joined() + companions.map { "[companion\($0)]" }.joined() + ";"
        for (index, segment) in segments.enumerated() {
            graph += "gradients=s=\(width)x\(height):r=\(frameRate):d=\(segment.duration):c0=\(segment.colours.first):c1=\(segment.colours.second):speed=0.0001:n=2:seed=\(index + 1),format=yuv420p[background\(index)];"
            let first = segment.companion.isEmpty ? "shot\(index)" : "one\(index)"
            graph += "[background\(index)][photo\(index)]overlay=x='\(Self.expression(segment.keyframes, \.x))':y='\(Self.expression(segment.keyframes, \.y))':eval=frame:shortest=1[\(first)];"
            if !segment.companion.isEmpty {
                graph += "[one\(index)][companion\(index)]overlay=x='\(Self.expression(segment.companion, \.x))':y='\(Self.expression(segment.companion, \.y))':eval=frame:shortest=1[shot\(index)];"
            }
        }
        graph += segments.indices.map { "[shot\($0)]" }.joined() + "concat=n=\(segments.count):v=1:a=0[video]"
        let duration = segments.reduce(0) { $0 + $1.duration }
        var arguments = ["-v", "error", "-y", "-loop", "1", "-i", photo,
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(duration)",
                         "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=\(duration)",
                         "-filter_complex", graph + ";[1:a]aformat=channel_layouts=stereo[stereo];[2:a]aformat=channel_layouts=4.0[spatial]",
                         "-map", "[video]", "-map", "[stereo]", "-map", "[spatial]",
                         "-c:a", "aac", "-b:a", "128k", "-disposition:a:0", "default", "-disposition:a:1", "0",
                         "-frames:v", "\(frameCount)"]
        switch codec {
        case .h264:
            arguments += ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
                          "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"]
            if let x264Parameters { arguments += ["-x264-params", x264Parameters] }
        case .hevcHLG:
            arguments += ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "22", "-pix_fmt", "yuv420p10le",
                          "-x265-params", "log-level=error", "-tag:v", "hvc1",
                          "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc"]
        }
        return arguments + [output]
    }

    /// A person at rest, walking across, at rest again (one shot): where a camera operator centres the
    /// resting person and keeps the walking one near the middle. The photograph's left edge goes from x 500
    /// to x 1100 (the face centre from about 650 to 1250) at 300 px/s.
    public static func restWalkRest(rest: Double = 2) -> ReframeScene {
        ReframeScene(name: "rest-walk-rest", segments: [Segment(duration: 2 * rest + 2, colours: Colours("0x302020", "0x806050"), keyframes: [
            Keyframe(rest, x: 500), Keyframe(rest + 2, x: 1100),
        ])])
    }

    /// Two people far apart (no 9:16 crop holds both): the left one (face centre at x 404) rests, then walks 250 px right over the
    /// second half; the right one stands still (face centre at x 1554): their faces are 900 px apart or more.
    public static func twoApart(duration: Double = 6) -> ReframeScene {
        ReframeScene(name: "two-apart", segments: [Segment(duration: duration, colours: Colours("0x203040", "0x506070"),
                                                           keyframes: [Keyframe(duration / 2, x: 250), Keyframe(duration, x: 500)],
                                                           companion: [Keyframe(0, x: 1400)])])
    }

    /// Every scene `keeptrack fixture scene:NAME` can render: the standard ones, `rest-walk-rest` and `two-apart`.
    public static func catalogue(duration: Double = 6) -> [ReframeScene] {
        standard(duration: duration) + [restWalkRest(rest: max(0.5, (duration - 2) / 2)), twoApart(duration: duration)]
    }

    /// The standard scenes the reframe proof runs: each one a behaviour the camera path must get right.
    public static func standard(duration: Double = 6) -> [ReframeScene] {
        let blue = Colours("0x203050", "0x4060a0"), green = Colours("0x204020", "0x70a060")
        let left = 200.0, right = 1400.0, middle = 800.0
        return [
            ReframeScene(name: "still", segments: [Segment(duration: duration, colours: blue, keyframes: [Keyframe(0, x: 500)])]),
            ReframeScene(name: "drift", segments: [Segment(duration: duration, colours: blue,
                                                           keyframes: [Keyframe(0, x: left), Keyframe(duration, x: left + 150 * duration)])]),
            ReframeScene(name: "fast", segments: [Segment(duration: duration, colours: blue,
                                                          keyframes: [Keyframe(duration / 3, x: left), Keyframe(duration / 3 + 1.2, x: right)])]),
            ReframeScene(name: "step", segments: [Segment(duration: duration, colours: blue,
                                                          keyframes: [Keyframe(duration / 2, x: left), Keyframe(duration / 2 + 0.001, x: right)])]),
            ReframeScene(name: "cut", segments: [Segment(duration: duration / 2, colours: blue, keyframes: [Keyframe(0, x: left)]),
                                                 Segment(duration: duration / 2, colours: green, keyframes: [Keyframe(0, x: right)])]),
            ReframeScene(name: "leave-return", segments: [Segment(duration: duration, colours: blue, keyframes: [
                Keyframe(0, x: middle), Keyframe(duration * 0.25, x: 2100), Keyframe(duration * 0.6, x: 2100),
                Keyframe(duration * 0.6 + 0.001, x: -400), Keyframe(duration * 0.85, x: left),
            ])]),
        ]
    }
}
