#!/usr/bin/env bash
# Measuring a 10-minute stereo AAC track: `keeptrack levels` (libavcodec decode from keeptrack's own
# demuxer + RMS/peak + libebur128, per track and the enabled mix) side by side with
# `ffmpeg -af ebur128,astats -f null -` (libavformat demux + decode + the same measurements).
# Floor: keeptrack under 2 s. Usage: bench/levels.sh [runs]   (default 3; best run reported)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=${TMPDIR:-/tmp}/keeptrack-bench-levels
mkdir -p "$work"
input="$work/tone-10min.m4a"
if [ ! -s "$input" ]; then
    # Pink-ish noise plus a tone, so the encoder does real work (not a near-silent stream).
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "anoisesrc=color=pink:amplitude=0.2:d=600:r=48000" \
        -f lavfi -i "sine=frequency=440:sample_rate=48000:d=600" -filter_complex "[0][1]amix=inputs=2,pan=stereo|c0=c0|c1=c0" \
        -c:a aac -b:a 160k "$input"
fi
swift build -c release --product keeptrack >/dev/null
bin=.build/release/keeptrack

best() { # best wall time in seconds over $runs runs of "$@"
    local best=""
    for _ in $(seq "$runs"); do
        local start end elapsed
        start=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        end=$(date +%s.%N)
        elapsed=$(echo "$end - $start" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$elapsed < $best" | bc -l)" = 1 ]; then best=$elapsed; fi
    done
    printf '%.3f' "$best"
}

keeptrack_time=$(best "$bin" levels "$input")
ffmpeg_time=$(best ffmpeg -hide_banner -nostats -i "$input" -af ebur128,astats -f null -)
ratio=$(echo "$keeptrack_time / $ffmpeg_time" | bc -l)
printf 'input: %s (%s bytes, 600 s stereo AAC 160 kb/s)\n' "$input" "$(stat -c %s "$input")"
printf '%-48s %8s s\n' "keeptrack levels" "$keeptrack_time"
printf '%-48s %8s s\n' "ffmpeg -af ebur128,astats -f null -" "$ffmpeg_time"
printf 'keeptrack / ffmpeg: %.2f   (floor: keeptrack < 2 s: %s)\n' "$ratio" \
    "$( [ "$(echo "$keeptrack_time < 2" | bc -l)" = 1 ] && echo met || echo MISSED )"
"$bin" levels "$input" | sed -n '3,6p'
