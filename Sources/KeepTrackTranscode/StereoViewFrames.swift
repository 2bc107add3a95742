import CFFmpeg
import Foundation
import KeepTrack
import KeepTrackCodec

/// Transcode's frame source for stereo MV-HEVC: FFmpeg 9 (`MultiviewFFmpeg`) decodes both views and packs them
/// (`hstack`/`vstack`, each eye scaled for `--half`) into raw frames on a pipe; each frame gets the source
/// frame's presentation time, then goes through the plan's filters to our encoder like any decoded frame.
/// Everything else (encoder, mux, passthrough of the other tracks) is transcode's own pipeline.
final class StereoViewFrames: FrameProducer {
    let binary: String, input: String
    let packing: StereoPacking
    /// The view index (`vidx`) of the left eye: 1 when the source stores its right eye first.
    let leftView: Int
    let view: StereoPacking.Size
    let pixelFormat: Int32
    /// Every frame's presentation time (track time scale), in presentation order.
    let times: [Int64]
    /// Set before `produce`: the plan's filters and the colour the frames are tagged with.
    var filter: FilterGraph?, colour: VideoEncoder.Colour?
    private let lock = NSLock()
    private var child: SpawnedProcess?
    private var errors: MessageCollector?
    private var startFailure: Error?

    init(binary: String, input: String, packing: StereoPacking, leftView: Int, view: StereoPacking.Size, pixelFormat: Int32, times: [Int64]) {
        self.binary = binary
        self.input = input
        self.packing = packing
        self.leftView = leftView
        self.view = view
        self.pixelFormat = pixelFormat
        self.times = times
    }

    /// Ends a child nobody read to the end (a refusal after the start, a failed encode).
    deinit {
        if let child {
            child.terminate()
            child.wait()
            errors?.wait()
        }
    }

    var pixelFormatName: String { av_get_pix_fmt_name(AVPixelFormat(rawValue: pixelFormat)).map { String(cString: $0) } ?? "yuv420p" }

    /// FFmpeg 9's command (the graph and arguments live in the core, where keeptrack's `StereoPrestart` builds the same).
    var command: MultiviewDecodeCommand {
        MultiviewDecodeCommand(input: input, packing: packing, leftView: leftView, view: view, pixelFormat: pixelFormatName)
    }

    /// Starts FFmpeg 9 (once), or adopts the one keeptrack started for this very command: it decodes the first
    /// frames while the rest of the transcode is planned.
    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard child == nil, startFailure == nil else { return }
        let arguments = command.arguments
        do {
            // A 1 MiB pipe instead of 64 KiB: a 4K frame crosses in a dozen writes, not two hundred.
            let child = try StereoPrestart.adopt(binary: binary, arguments: arguments)
                ?? SpawnedProcess(executable: binary, arguments: arguments, outputPipeBytes: 1 << 20)
            self.child = child
            errors = MessageCollector(FileHandle(fileDescriptor: child.errors, closeOnDealloc: false))
        } catch {
            startFailure = KeepTrackError.unsupported("cannot run \(binary) to decode both views: \(error)")
        }
    }

    func produce(into handoff: FrameHandoff) throws {
        let size = packing.pictureSize(view: view)
        let frames = try RawFrames(pixelFormat: pixelFormat, width: size.width, height: size.height)
        start()
        lock.lock()
        let running = (child, errors), failure = startFailure
        lock.unlock()
        if let failure { throw failure }
        guard let child = running.0, let errors = running.1 else { throw KeepTrackError.io("FFmpeg 9 was not started") }
        var finished = false
        defer {
            if !finished { child.terminate() }
            child.wait()
            errors.wait()
        }
        func hand(_ frame: UnsafeMutablePointer<AVFrame>) throws {
            frame.pointee.pict_type = AV_PICTURE_TYPE_NONE
            guard handoff.put(frame) else { throw FrameProducerStopped() }
        }
        var count = 0
        while let frame = try frames.read(from: child.output) {
            guard count < times.count else {
                var owned: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&owned)
                throw KeepTrackError.unsupported("FFmpeg 9 decoded more frames of both views than the track's \(times.count) samples")
            }
            frame.pointee.pts = times[count]
            count += 1
            if let colour {
                frame.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(colour.primaries))
                frame.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(colour.transfer))
                frame.pointee.colorspace = AVColorSpace(rawValue: UInt32(colour.matrix))
                frame.pointee.color_range = colour.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
            }
            guard let filter else { try hand(frame); continue }
            defer { var owned: UnsafeMutablePointer<AVFrame>? = frame; av_frame_free(&owned) }
            try filter.filter(frame, body: hand)
        }
        finished = true
        let status = child.wait()
        errors.wait()
        guard status == 0 else {
            let said = errors.summary
            throw KeepTrackError.unsupported("the two views cannot be decoded: FFmpeg 9 stopped (status \(status))\(said.isEmpty ? "" : ": " + said)")
        }
        guard count == times.count else {
            throw KeepTrackError.unsupported("the two views cannot be decoded: FFmpeg 9 gave \(count) frames of both views where the track has \(times.count)")
        }
        try filter?.filter(nil, body: hand)
    }

    /// Fills `count` bytes at `destination` from the pipe; false at the end before the first byte, an error at an
    /// end inside a frame.
    static func readFully(_ descriptor: Int32, into destination: UnsafeMutableRawPointer, count total: Int) throws -> Bool {
        var filled = 0
        while filled < total {
            let got = read(descriptor, destination + filled, total - filled)
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw KeepTrackError.io("reading FFmpeg 9's frames: \(String(cString: strerror(errno)))") }
            if got == 0 {
                guard filled == 0 else { throw KeepTrackError.unsupported("FFmpeg 9's last frame ended after \(filled) of \(total) bytes") }
                return false
            }
            filled += got
        }
        return true
    }

    /// Ends FFmpeg 9 (the child this producer started) when the encoder gives up or the job is planned anew.
    func stop() {
        lock.withLock { child }?.terminate()
    }
}

/// Frames laid out as FFmpeg's rawvideo writes them (planes back to back, rows unpadded), so one read from the
/// pipe fills a frame with no copy; their buffers come from a pool and are reused once the encoder lets go of them,
/// rather than fresh pages faulted in for every 12 MB picture.
final class RawFrames {
    let layout: PlaneLayout
    let width: Int, height: Int, pixelFormat: Int32
    private var pool: OpaquePointer?

    init(pixelFormat: Int32, width: Int, height: Int) throws {
        layout = try PlaneLayout(pixelFormat: pixelFormat, width: width, height: height)
        (self.width, self.height, self.pixelFormat) = (width, height, pixelFormat)
        // Room past the end for the SIMD readers that look a little beyond a plane.
        guard let pool = av_buffer_pool_init(layout.frameBytes + 64, nil) else { throw KeepTrackError.io("out of memory for a frame pool") }
        self.pool = pool
    }

    /// The pool is freed once the last frame lent out comes back.
    deinit { av_buffer_pool_uninit(&pool) }

    /// The next frame from `descriptor`; nil at the end of the stream.
    func read(from descriptor: Int32) throws -> UnsafeMutablePointer<AVFrame>? {
        guard let buffer = av_buffer_pool_get(pool) else { throw KeepTrackError.io("out of memory for a \(width)x\(height) frame") }
        guard let frame = av_frame_alloc() else {
            var owned: UnsafeMutablePointer<AVBufferRef>? = buffer
            av_buffer_unref(&owned)
            throw KeepTrackError.io("out of memory allocating a frame")
        }
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        frame.pointee.buf.0 = buffer
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = pixelFormat
        let base = buffer.pointee.data!
        let planes = layout.planes
        let offsets = [0, planes[0].rowBytes * planes[0].rows, planes[0].rowBytes * planes[0].rows + planes[1].rowBytes * planes[1].rows]
        frame.pointee.data.0 = base
        frame.pointee.data.1 = base + offsets[1]
        frame.pointee.data.2 = base + offsets[2]
        frame.pointee.linesize.0 = Int32(planes[0].rowBytes)
        frame.pointee.linesize.1 = Int32(planes[1].rowBytes)
        frame.pointee.linesize.2 = Int32(planes[2].rowBytes)
        do {
            guard try StereoViewFrames.readFully(descriptor, into: base, count: layout.frameBytes) else {
                av_frame_free(&owned)
                return nil
            }
        } catch {
            av_frame_free(&owned)
            throw error
        }
        return frame
    }
}

/// Where each plane of a planar YUV format lies in a raw frame (FFmpeg's rawvideo: planes back to back, rows unpadded).
struct PlaneLayout {
    var planes: [(rowBytes: Int, rows: Int)] = []
    var frameBytes: Int { planes.reduce(0) { $0 + $1.rowBytes * $1.rows } }

    init(pixelFormat: Int32, width: Int, height: Int) throws {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: pixelFormat)), descriptor.pointee.nb_components == 3,
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0 else {
            throw KeepTrackError.unsupported("the views decode to a pixel format (\(pixelFormat)) other than planar YUV")
        }
        let bytes = Int(descriptor.pointee.comp.0.step)
        let chromaWidth = -((-width) >> Int(descriptor.pointee.log2_chroma_w)), chromaHeight = -((-height) >> Int(descriptor.pointee.log2_chroma_h))
        planes = [(width * bytes, height), (chromaWidth * bytes, chromaHeight), (chromaWidth * bytes, chromaHeight)]
    }
}

/// A child's standard error, read on a thread of its own so a talkative child never blocks on a full pipe; the
/// first 4 KB (the decoder's first complaint) and the last 8 KB (why it stopped) kept.
final class MessageCollector: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var first = Data()
    private var collected = Data()

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while case let chunk = handle.availableData, !chunk.isEmpty {
                if first.count < 4096 { first.append(chunk.prefix(4096 - first.count)) }
                collected.append(chunk)
                if collected.count > 16_384 { collected = collected.suffix(8192) }
            }
            done.signal()
        }
        thread.start()
    }

    func wait() {
        done.wait()
        done.signal()
    }

    /// After `wait`: the first two different messages and the last, without FFmpeg's `[component @ address]` prefixes.
    var summary: String {
        func messages(_ data: Data) -> [String] {
            String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
                var text = Substring(line)
                while text.hasPrefix("["), let end = text.firstIndex(of: "]") { text = text[text.index(after: end)...].drop { $0 == " " } }
                return String(text)
            }.filter { !$0.isEmpty }
        }
        var distinct: [String] = []
        for message in messages(first) where !distinct.contains(message) && distinct.count < 2 { distinct.append(message) }
        if let last = messages(collected).last, !distinct.contains(last) { distinct.append(last) }
        return distinct.joined(separator: "; ")
    }
}
