// FFmpeg 5.1 (Debian 12) decoding, encoding, filtering (tone mapping), resampling and scaling; no libavformat:
// keeptrack demuxes itself.
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <sys/prctl.h>

// AVERROR(EAGAIN) and AVERROR_EOF are macros Swift cannot import.
static inline int cffmpeg_error_again(void) { return AVERROR(EAGAIN); }
static inline int cffmpeg_error_eof(void) { return AVERROR_EOF; }

// Transparent huge pages off for this process and the children it starts (HugePagePolicy says when and why).
// prctl is variadic, which Swift cannot call.
static inline int cffmpeg_disable_huge_pages(void) { return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0); }
static inline int cffmpeg_huge_pages_disabled(void) { return prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0); }
