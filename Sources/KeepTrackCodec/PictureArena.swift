import CFFmpeg
import Foundation

/// Memory a video decoder decodes its pictures into when every picture is kept (reframe's analysis keeps
/// the whole clip for the encoder): one mapping, its pages made present a run at a time
/// (`MADV_POPULATE_WRITE`) instead of one fault at a time, and no zeroing by libavcodec's default pool
/// (`av_buffer_allocz`) before the decoder writes every byte anyway.
///
/// Why: each kept picture was a fresh buffer from the default pool; on the 2-core VM the exception entries
/// and the pool's memset cost about 5 % of a 1080p reframe beyond the kernel's own zeroing of the pages
/// (perf on a 1080p reframe, 2026-12-02). The kernel still supplies and zeroes every page once: that part is the
/// price of keeping the frames at all. Pictures are never freed back into the arena (all are kept); once
/// it is full the decoder falls back to its default pool.
public final class PictureArena: @unchecked Sendable {
    /// Bytes made present at a time, ahead of the pictures placed.
    static let populateStep = 8 << 20
    /// How far ahead of the pictures placed the pages are made present, on `populating`'s thread: the kernel
    /// supplying and zeroing them (a third of a 1080p analysis on the decoder's thread, perf) then runs on the
    /// core the decoder leaves idle.
    static let populateLead = 4 * populateStep
    /// After each plane: libavcodec's pool adds 16 + its stride alignment; SIMD readers go a little past a row.
    static let planePadding = 128

    public let capacity: Int
    private let base: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var used = 0
    private var populated = 0
    private let populating = DispatchQueue(label: "keeptrack.picture-arena.populate")
    /// Pictures placed here (the rest came from the default pool).
    public private(set) var placed = 0

    /// Room for `pictures` pictures of up to `width`×`height` 4:2:0 samples of `bytesPerSample` bytes, with
    /// room for the decoders' alignment. Only address space until pictures are placed. Nil when it cannot be mapped.
    public init?(pictures: Int, width: Int, height: Int, bytesPerSample: Int) {
        let perPicture = Self.pictureBytes(width: width + 64, height: height + 64, bytesPerSample: bytesPerSample)
        let capacity = Self.roundedToPages(perPicture * max(pictures, 1))
        let mapped = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { return nil }
        base = mapped
        self.capacity = capacity
    }

    deinit { munmap(base, capacity) }

    /// Whether `pointer` lies in the arena.
    public func contains(_ pointer: UnsafeRawPointer) -> Bool {
        pointer >= UnsafeRawPointer(base) && pointer < UnsafeRawPointer(base) + capacity
    }

    /// Row bytes, stride (a multiple of 64 bytes) and rows of plane `plane` of a 4:2:0 picture.
    public static func planeLayout(_ plane: Int, width: Int, height: Int, bytesPerSample: Int) -> (rowBytes: Int, stride: Int, rows: Int) {
        let shift = plane == 0 ? 0 : 1
        let rowBytes = ((width + shift) >> shift) * bytesPerSample
        return (rowBytes, (rowBytes + 63) & ~63, (height + shift) >> shift)
    }

    static func pictureBytes(width: Int, height: Int, bytesPerSample: Int) -> Int {
        (0..<3).reduce(0) { total, plane in
            let layout = planeLayout(plane, width: width, height: height, bytesPerSample: bytesPerSample)
            return total + layout.stride * layout.rows + planePadding
        }
    }

    static func roundedToPages(_ bytes: Int) -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        return (bytes + page - 1) / page * page
    }

    /// Sets `context` to decode into this arena; the arena must outlive the decoder and the pictures.
    func install(on context: UnsafeMutablePointer<AVCodecContext>) {
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.get_buffer2 = { context, frame, flags in
            guard let context, let frame, let opaque = context.pointee.opaque,
                  Unmanaged<PictureArena>.fromOpaque(opaque).takeUnretainedValue().place(frame, context: context) else {
                return avcodec_default_get_buffer2(context, frame, flags)
            }
            return 0
        }
    }

    /// Gives `frame` (its format and coded size set by the decoder) planes in the arena, laid out as
    /// libavcodec's default pool would (dimensions aligned by `avcodec_align_dimensions2`); false when the
    /// format is not 4:2:0 8/10-bit or the arena is full. May be called from the decoder's threads.
    func place(_ frame: UnsafeMutablePointer<AVFrame>, context: UnsafeMutablePointer<AVCodecContext>) -> Bool {
        let bytesPerSample: Int
        switch AVPixelFormat(rawValue: frame.pointee.format) {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: bytesPerSample = 1
        case AV_PIX_FMT_YUV420P10LE: bytesPerSample = 2
        default: return false
        }
        var width = frame.pointee.width, height = frame.pointee.height
        var strideAlignment = [Int32](repeating: 0, count: Int(AV_NUM_DATA_POINTERS))
        avcodec_align_dimensions2(context, &width, &height, &strideAlignment)
        let layouts = (0..<3).map { Self.planeLayout($0, width: Int(width), height: Int(height), bytesPerSample: bytesPerSample) }
        guard zip(layouts, strideAlignment).allSatisfy({ $1 <= 0 || $0.stride % Int($1) == 0 }) else { return false }
        let bytes = layouts.reduce(0) { $0 + $1.stride * $1.rows + Self.planePadding }
        guard let start = reserve(bytes) else { return false }
        let owner = Unmanaged.passRetained(self).toOpaque()
        guard let buffer = av_buffer_create((base + start).assumingMemoryBound(to: UInt8.self), bytes,
                                            { owner, _ in Unmanaged<PictureArena>.fromOpaque(owner!).release() }, owner, 0) else {
            Unmanaged<PictureArena>.fromOpaque(owner).release()
            return false
        }
        frame.pointee.buf.0 = buffer
        var plane = buffer.pointee.data!
        frame.pointee.data = (nil, nil, nil, nil, nil, nil, nil, nil)
        frame.pointee.linesize = (0, 0, 0, 0, 0, 0, 0, 0)
        frame.pointee.data.0 = plane; frame.pointee.linesize.0 = Int32(layouts[0].stride)
        plane += layouts[0].stride * layouts[0].rows + Self.planePadding
        frame.pointee.data.1 = plane; frame.pointee.linesize.1 = Int32(layouts[1].stride)
        plane += layouts[1].stride * layouts[1].rows + Self.planePadding
        frame.pointee.data.2 = plane; frame.pointee.linesize.2 = Int32(layouts[2].stride)
        frame.pointee.extended_data = (UnsafeMutableRawPointer(frame) + MemoryLayout<AVFrame>.offset(of: \AVFrame.data)!)
            .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        return true
    }

    /// The offset of `bytes` fresh bytes (64-byte aligned), made present; nil when they do not fit.
    private func reserve(_ bytes: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        let start = (used + 63) & ~63
        guard start + bytes <= capacity else { return nil }
        used = start + bytes
        placed += 1
        // Where the kernel lacks MADV_POPULATE_WRITE (before Linux 5.14) this fails and pages fault in on first write.
        // Populating never changes a page already present, so the decoder may write beside it.
        while used + Self.populateLead > populated, populated < capacity {
            let from = populated, target = min(capacity, Self.roundedToPages(populated + Self.populateStep))
            populated = target
            populating.async { [self] in _ = madvise(base + from, target - from, Self.populateWrite) }
        }
        return start
    }

    /// `MADV_POPULATE_WRITE` (Linux 5.14; older libc headers lack the name).
    static let populateWrite: Int32 = 23
}
