import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif
import KeepTrack
import KeepTrackCodec

/// libavfilter, opened when the first graph is made rather than linked: Debian's libavfilter brings about 70 more
/// shared libraries (rubberband, tesseract, vulkan, zmq...), which cost every keeptrack-media command about 30 ms of
/// loading (`perf`, 2026-12-04), and most never filter. The ten functions a graph needs are looked up by name.
struct LibAVFilter {
    typealias GetByName = @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?
    typealias GraphAlloc = @convention(c) () -> UnsafeMutablePointer<AVFilterGraph>?
    typealias GraphFree = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterGraph>?>?) -> Void
    typealias CreateFilter = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterContext>?>?, UnsafePointer<AVFilter>?,
                                             UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?,
                                             UnsafeMutablePointer<AVFilterGraph>?) -> Int32
    typealias InOutAlloc = @convention(c) () -> UnsafeMutablePointer<AVFilterInOut>?
    typealias InOutFree = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?) -> Void
    typealias ParsePointer = @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafePointer<CChar>?,
                                             UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?,
                                             UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?, UnsafeMutableRawPointer?) -> Int32
    typealias GraphConfig = @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafeMutableRawPointer?) -> Int32
    typealias AddFrame = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?, Int32) -> Int32
    typealias GetFrame = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?) -> Int32

    let getByName: GetByName, graphAlloc: GraphAlloc, graphFree: GraphFree, createFilter: CreateFilter
    let inOutAlloc: InOutAlloc, inOutFree: InOutFree, parse: ParsePointer, config: GraphConfig
    let addFrame: AddFrame, getFrame: GetFrame

    /// The library whose major version the headers are (libavfilter.so.8 for FFmpeg 5.1), or why it cannot be had.
    static let loaded: Result<LibAVFilter, KeepTrackError> = {
        let name = "libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)"
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? name
            return .failure(.unsupported("FFmpeg's filters (scaling, tone mapping) need \(name), which cannot be loaded: \(why); run make setup"))
        }
        func symbol<T>(_ symbol: String, _: T.Type) throws -> T {
            guard let address = dlsym(handle, symbol) else { throw KeepTrackError.unsupported("\(name) has no \(symbol)") }
            return unsafeBitCast(address, to: T.self)
        }
        do {
            return .success(LibAVFilter(
                getByName: try symbol("avfilter_get_by_name", GetByName.self), graphAlloc: try symbol("avfilter_graph_alloc", GraphAlloc.self),
                graphFree: try symbol("avfilter_graph_free", GraphFree.self), createFilter: try symbol("avfilter_graph_create_filter", CreateFilter.self),
                inOutAlloc: try symbol("avfilter_inout_alloc", InOutAlloc.self), inOutFree: try symbol("avfilter_inout_free", InOutFree.self),
                parse: try symbol("avfilter_graph_parse_ptr", ParsePointer.self), config: try symbol("avfilter_graph_config", GraphConfig.self),
                addFrame: try symbol("av_buffersrc_add_frame_flags", AddFrame.self), getFrame: try symbol("av_buffersink_get_frame", GetFrame.self)))
        } catch {
            return .failure(error as? KeepTrackError ?? .unsupported("\(error)"))
        }
    }()
}

/// A libavfilter graph from a buffer source to a buffer sink: frames in, filtered frames out, times kept.
/// Scaling and tone mapping are FFmpeg's own filters (`scale`, `zscale`, `tonemap`), not ours.
public final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private let received: UnsafeMutablePointer<AVFrame>
    private let library: LibAVFilter
    public let description: String

    /// HDR (HLG or PQ) to SDR BT.709, limited range: linear light, BT.709 primaries, Hable's curve without
    /// desaturation, then BT.709's transfer and matrix; the chain FFmpeg's documentation gives for `tonemap`.
    public static let toneMapToSDR = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv"

    /// The filters for a plan: scale to `size` and convert the pixel format, in the range the encoder is told
    /// (full for a full-range source such as Motion JPEG; a conversion left to FFmpeg made it video range while the
    /// stream still said full), tone-map when the plan says. Nil when frames need none of it.
    public static func description(from source: (width: Int, height: Int, pixelFormat: Int32), to size: (width: Int, height: Int),
                                   plan: EncodePlan) -> String? {
        let resized = source.width != size.width || source.height != size.height
        guard resized || plan.toneMaps || source.pixelFormat != plan.pixelFormat else { return nil }
        let range = plan.settings.colour?.fullRange ?? false ? "full" : "limited"
        var filters = ["scale=\(size.width):\(size.height):flags=bicubic:out_range=\(range)"]
        if plan.toneMaps { filters.append(toneMapToSDR) }
        let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: plan.pixelFormat)).map { String(cString: $0) } ?? "yuv420p"
        filters.append("format=\(name)")
        return filters.joined(separator: ",")
    }

    public init(_ description: String, width: Int, height: Int, pixelFormat: Int32, timeBase: Int32) throws {
        self.description = description
        let library = try LibAVFilter.loaded.get()
        self.library = library
        guard let received = av_frame_alloc(), let graph = library.graphAlloc() else {
            throw KeepTrackError.io("out of memory allocating a filter graph")
        }
        self.received = received
        self.graph = graph
        let arguments = "video_size=\(width)x\(height):pix_fmt=\(pixelFormat):time_base=1/\(timeBase):pixel_aspect=1/1"
        var status = library.createFilter(&source, library.getByName("buffer"), "in", arguments, nil, graph)
        if status >= 0 { status = library.createFilter(&sink, library.getByName("buffersink"), "out", nil, nil, graph) }
        guard status >= 0 else { throw CodecError.encodeFailed("cannot set up the filter graph's ends: \(CodecError.describe(status))") }
        // As FFmpeg's filtering example: the graph's open input is our source ("in"), its open output our sink
        // ("out"); parsing links them and leaves in the two lists what it did not use, freed here.
        var outputs = library.inOutAlloc(), inputs = library.inOutAlloc()
        defer {
            library.inOutFree(&outputs)
            library.inOutFree(&inputs)
        }
        guard let sourceEnd = outputs, let sinkEnd = inputs else { throw KeepTrackError.io("out of memory allocating a filter graph") }
        sourceEnd.pointee.name = av_strdup("in")
        sourceEnd.pointee.filter_ctx = source
        sinkEnd.pointee.name = av_strdup("out")
        sinkEnd.pointee.filter_ctx = sink
        status = library.parse(graph, description, &inputs, &outputs, nil)
        if status >= 0 { status = library.config(graph, nil) }
        guard status >= 0 else {
            throw CodecError.encodeFailed("FFmpeg's filters refused '\(description)': \(CodecError.describe(status))")
        }
    }

    deinit {
        library.graphFree(&graph)
        var frame: UnsafeMutablePointer<AVFrame>? = received
        av_frame_free(&frame)
    }

    /// Filters `frame` (nil: the end) and hands each frame that comes out to `body`, which owns it.
    public func filter(_ frame: UnsafePointer<AVFrame>?, body: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        let status = library.addFrame(source, frame.map { UnsafeMutablePointer(mutating: $0) }, Int32(AV_BUFFERSRC_FLAG_KEEP_REF))
        guard status >= 0 else { throw CodecError.encodeFailed("filter graph: \(CodecError.describe(status))") }
        while true {
            let got = library.getFrame(sink, received)
            if got == cffmpeg_error_again() || got == cffmpeg_error_eof() { return }
            guard got >= 0 else { throw CodecError.encodeFailed("filter graph: \(CodecError.describe(got))") }
            guard let owned = av_frame_alloc() else { throw KeepTrackError.io("out of memory handing a filtered frame over") }
            av_frame_move_ref(owned, received)
            try body(owned)
        }
    }
}
