#!/usr/bin/env bash
# transcode --stereo vs FFmpeg 9 doing the same in one command: both views of MV-HEVC decoded, stacked side by side
# (hstack; --half: each eye scaled to half the width first) and encoded with libx264 crf 20, preset medium.
# Reproduce: make build && bench/stereo.sh   (prints a Markdown section for BENCHMARKS.md; RUNS=N). The last two
# tables time the two libx264 builds alone on the same raw frames, both with huge pages off.
#
# keeptrack runs the same FFmpeg 9 (.deps/ffmpeg9/ffmpeg, make setup; started by keeptrack before keeptrack-media
# loads, docs/stereo.md) for the decode and the stacking, reads its raw frames from a pipe, encodes them with Debian's
# libx264 (FFmpeg 5.1's libavcodec), writes st3d/hfov, passes every other track through and reads its output back. FFmpeg 9's command encodes with its own static libx264 and writes
# the video alone. The inputs are the two stereo movies in the wild fixtures and a 300-frame one made by looping the
# small one with FFmpeg 9 (-stream_loop 29 -c copy; both its views decode to 300 frames). No MV-HEVC encoder is
# reachable here to make longer or larger ones (docs/stereo.md), and looping the 4K water movie does not work: its
# second view starts with a CRA picture, not an IDR, so each repetition repeats its picture order counts and FFmpeg 9
# drops those pictures as duplicates (with ffmpeg -stream_loop or with the sample table repeated, end-of-sequence NAL
# units added or not).
set -euo pipefail
cd "$(dirname "$0")/.."
KT=.build/release/keeptrack
FF9=.deps/ffmpeg9/ffmpeg
RUNS=${RUNS:-5}
WILD=../shared/fixtures/wild
[ -x "$FF9" ] || { echo "bench/stereo.sh: $FF9 is missing: run make setup" >&2; exit 69; }
work=$(mktemp -d /tmp/keeptrack-bench-stereo.XXXXXX)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/without-huge-pages" bench/without-huge-pages.c

run() { # title input extension graph keeptrack-options [measure.py options]
    local title=$1 input=$2 ext=$3 graph=$4 options=$5
    shift 5
    python3 bench/measure.py --runs "$RUNS" --title "$title" "$@" \
        --cmd "ffmpeg 9" "${FF9_WRAP:-}$FF9 -v error -nostdin -y -i $input -filter_complex '$graph' -map '[out]' -fps_mode passthrough -c:v libx264 -crf 20 -preset medium -an $work/ffmpeg9.$ext" \
        --cmd keeptrack "$KT transcode $input $work/keeptrack.$ext --force $options"
}

echo "## transcode --stereo vs FFmpeg 9's decode + hstack + encode"
echo
echo "Both with libx264 \`-crf 20 -preset medium\`, $RUNS runs each after a warm-up, interleaved. Machine: $(nproc) cores (shared)."
reporting=no
if python3 - <<'PY'
import glob, sys
for folder in glob.glob("/sys/bus/virtio/devices/*"):
    try:
        device, bits = open(folder + "/device").read().strip(), open(folder + "/features").read().strip()
    except OSError:
        continue
    if int(device, 16) == 5 and len(bits) > 5 and bits[5] == "1":
        sys.exit(0)
sys.exit(1)
PY
then reporting=yes; fi
echo
echo "Free page reporting (a virtio balloon handing free memory back to the host): $reporting. Where it is on, a 2 MB"
echo "page free for more than about 2 s must be faulted in from the host again, about 18 times slower than one still"
echo "backed; FFmpeg 9's libx264 asks for such pages, keeptrack's encoders then do not (HugePagePolicy.swift). Back to"
echo "back, each command reuses pages the one before freed; the \"runs 4 s apart\" tables start every run after the"
echo "host has taken them back, as a command run on its own meets them."
water=$WILD/androidx-media/water_180_mvhevc_5frames.mov
spatial=$WILD/eyevinn-mp4ff/stereo_spatial.mp4
run "water_180_mvhevc_5frames.mov (5 frames, two 1934x2160 views) to 3868x2160 full side by side" "$water" mov \
    "[0:v:vidx:0][0:v:vidx:1]hstack[out]" "--stereo sbs"
run "water_180_mvhevc_5frames.mov to 1934x2160 half side by side" "$water" mov \
    "[0:v:vidx:0]scale=967:2160[l];[0:v:vidx:1]scale=967:2160[r];[l][r]hstack[out]" "--stereo sbs --half"
run "water_180_mvhevc_5frames.mov full side by side, runs 4 s apart" "$water" mov \
    "[0:v:vidx:0][0:v:vidx:1]hstack[out]" "--stereo sbs" --before "sleep 4"
run "water_180_mvhevc_5frames.mov half side by side, runs 4 s apart" "$water" mov \
    "[0:v:vidx:0]scale=967:2160[l];[0:v:vidx:1]scale=967:2160[r];[l][r]hstack[out]" "--stereo sbs --half" --before "sleep 4"
# The wrapper adds about 0.5 ms (perf stat -r 20 without-huge-pages /bin/true: 1.3 ms, /bin/true alone 0.7 ms).
FF9_WRAP="$work/without-huge-pages " run "water_180_mvhevc_5frames.mov full side by side, FFmpeg 9 with huge pages off too" \
    "$water" mov "[0:v:vidx:0][0:v:vidx:1]hstack[out]" "--stereo sbs"
FF9_WRAP="$work/without-huge-pages " run "water_180_mvhevc_5frames.mov half side by side, FFmpeg 9 with huge pages off too" \
    "$water" mov "[0:v:vidx:0]scale=967:2160[l];[0:v:vidx:1]scale=967:2160[r];[l][r]hstack[out]" "--stereo sbs --half"
run "stereo_spatial.mp4 (10 frames, two 160x120 views) to 320x120 full side by side" "$spatial" mp4 \
    "[0:v:vidx:0][0:v:vidx:1]hstack[out]" "--stereo sbs"
"$FF9" -v error -nostdin -y -stream_loop 29 -i "$spatial" -map 0:v -c copy "$work/spatial300.mp4"
run "stereo_spatial.mp4 looped 30 times (300 frames, 10 s) to 320x120 full side by side" "$work/spatial300.mp4" mp4 \
    "[0:v:vidx:0][0:v:vidx:1]hstack[out]" "--stereo sbs"

# The encoders alone, on the same raw frames: Debian's FFmpeg 5.1 with its libx264 (core 164, the library keeptrack
# encodes with) against FFmpeg 9 with its own static libx264 (core 165), both with huge pages off
# (bench/without-huge-pages.c) so that the page policy does not count, only the builds.
encoders() { # title raw-file size
    local title=$1 raw=$2 size=$3 input="-v error -nostdin -y -f rawvideo -pix_fmt yuv420p -s $3 -r 30 -i $2"
    python3 bench/measure.py --runs "$RUNS" --title "$title" \
        --cmd "ffmpeg 9" "$work/without-huge-pages $FF9 $input -c:v libx264 -crf 20 -preset medium $work/encoded9.mp4" \
        --cmd "ffmpeg 5.1" "$work/without-huge-pages ffmpeg $input -c:v libx264 -crf 20 -preset medium $work/encoded51.mp4"
}
"$FF9" -v error -nostdin -y -i "$work/spatial300.mp4" -filter_complex "[0:v:vidx:0][0:v:vidx:1]hstack[out]" -map "[out]" \
    -f rawvideo -pix_fmt yuv420p "$work/spatial300.yuv"
encoders "libx264 alone: the 300 side-by-side 320x120 frames, raw" "$work/spatial300.yuv" 320x120
"$FF9" -v error -nostdin -y -i "$water" -filter_complex "[0:v:vidx:0]scale=967:2160[l];[0:v:vidx:1]scale=967:2160[r];[l][r]hstack[out]" \
    -map "[out]" -f rawvideo -pix_fmt yuv420p "$work/half5.yuv"
for _ in 1 2 3 4 5 6 7 8 9 10; do cat "$work/half5.yuv"; done > "$work/half50.yuv"
encoders "libx264 alone: the water movie's 5 half side-by-side 1934x2160 frames, 10 times over (50 frames), raw" "$work/half50.yuv" 1934x2160
