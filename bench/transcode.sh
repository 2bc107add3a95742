#!/usr/bin/env bash
# transcode vs ffmpeg's own encode with the same encoder and settings, side by side in one run.
# Reproduce: make build && bench/transcode.sh   (prints a Markdown section for BENCHMARKS.md; RUNS=N, HLG_RUNS=N,
# CLIPS="a.mp4 b.mp4", PARTS="footage hlg folder" for some of the three)
#
# ffmpeg encodes the video alone (-map 0:v:0 -an), as a user would when only the video matters; keeptrack
# also passes every other track through and reads its output back. The HLG clip is tone-mapped by both,
# with the same libavfilter chain (FilterGraph.toneMapToSDR). Folder mode: a shell loop over ffmpeg
# against one `transcode DIR --out-dir` run with -j 2.
set -euo pipefail
cd "$(dirname "$0")/.."
KT=.build/release/keeptrack
RUNS=${RUNS:-3}
HLG_RUNS=${HLG_RUNS:-1}
PARTS=${PARTS:-"footage hlg folder"}
FOOTAGE=../shared/fixtures/footage
CLIPS=${CLIPS:-"talking_head_720p.mp4 stage_cuts_audience.mp4 two_people_apart.mp4 basketball_running.mp4"}
TONEMAP="zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
work=$(mktemp -d /tmp/keeptrack-bench-transcode.XXXXXX)
trap 'rm -rf "$work"' EXIT

run() { # title clip extension ffmpeg-filter-options [runs]
    local title=$1 clip=$2 ext=$3 filter=$4 runs=${5:-$RUNS}
    python3 bench/measure.py --runs "$runs" --title "$title" \
        --cmd ffmpeg "ffmpeg -v error -nostdin -y -i $clip -map 0:v:0 $filter -c:v libx264 -crf 23 -preset medium -an $work/ffmpeg.$ext" \
        --cmd keeptrack "$KT transcode $clip $work/keeptrack.$ext --force --video h264 --crf 23 --preset medium"
}

echo "## transcode vs ffmpeg's encode"
echo
echo "Both with libx264 \`-crf 23 -preset medium\`, $RUNS runs each after a warm-up, interleaved. Machine: $(nproc) cores (shared)."
has() { case " $PARTS " in *" $1 "*) return 0;; *) return 1;; esac; }
if has footage; then
    for name in $CLIPS; do
        run "footage/$name" "$FOOTAGE/$name" "${name##*.}" ""
    done
fi

if has hlg; then
    # 30 s of 1080p30 HEVC Main 10 HLG, made by ffmpeg (zscale to BT.2020 and HLG, tagged).
    ffmpeg -v error -nostdin -y -f lavfi -i "testsrc2=s=1920x1080:r=30:d=30" -f lavfi -i "sine=frequency=440:duration=30" \
        -vf "zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t=arib-std-b67:m=2020_ncl:p=2020:r=tv:npl=100,format=yuv420p10le" \
        -c:v libx265 -preset ultrafast -x265-params log-level=error -tag:v hvc1 \
        -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc -c:a aac "$work/hlg.mov"
    run "30 s 1080p30 HEVC Main 10 HLG, tone-mapped to SDR H.264 by both" "$work/hlg.mov" mov "-vf $TONEMAP" "$HLG_RUNS"
fi
has folder || exit 0

# Folder mode: 20 short clips (the footage, repeated), files per minute.
mkdir -p "$work/library" "$work/out-ff" "$work/out-kt"
i=0
while [ $i -lt 20 ]; do
    for name in $CLIPS; do
        [ $i -lt 20 ] || break
        cp "$FOOTAGE/$name" "$work/library/clip-$(printf %02d $i).${name##*.}"
        i=$((i + 1))
    done
done
python3 bench/measure.py --runs 1 --title "folder of 20 clips (footage repeated): a shell loop over ffmpeg vs transcode -j 2" \
    --cmd "ffmpeg loop" "sh -c 'rm -rf $work/out-ff/*; for f in $work/library/*; do ffmpeg -v error -nostdin -y -i \"\$f\" -map 0:v:0 -c:v libx264 -crf 23 -preset medium -an $work/out-ff/\$(basename \"\$f\"); done'" \
    --cmd keeptrack "sh -c 'rm -rf $work/out-kt/*; $KT transcode $work/library --out-dir $work/out-kt -j 2 --video h264 --crf 23 --preset medium >/dev/null'"
echo
echo "Files per minute: 20 / (median wall seconds / 60)."
