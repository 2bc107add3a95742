#!/usr/bin/env bash
# Measuring a 10-minute stereo AAC track: `keeptrack levels` (libavcodec decode from keeptrack's own
# demuxer + RMS/peak + libebur128, per track and the enabled mix) side by side with
# `ffmpeg -af ebur128,astats -f null -` (libavformat demux + the same decoder + ffmpeg's filters).
# Floor: keeptrack under 2 s. Reproduce: make build && bench/levels.sh [runs]
# (prints a Markdown section for BENCHMARKS.md; the input is cached in $TMPDIR/keeptrack-bench-levels).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
KT=.build/release/keeptrack
[ -x "$KT" ] || swift build -c release --static-swift-stdlib >/dev/null
work=${TMPDIR:-/tmp}/keeptrack-bench-levels
mkdir -p "$work"
input="$work/tone-10min.m4a"
if [ ! -s "$input" ]; then
    # Pink noise plus a tone, so the decoder does real work (not a near-silent stream).
    ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i "anoisesrc=color=pink:amplitude=0.2:d=600:r=48000" \
        -f lavfi -i "sine=frequency=440:sample_rate=48000:d=600" -filter_complex "[0][1]amix=inputs=2,pan=stereo|c0=c0|c1=c0" \
        -c:a aac -b:a 160k "$input"
fi
echo "## levels: 10-minute stereo AAC vs ffmpeg ebur128+astats"
echo
echo "Input: 600 s stereo AAC-LC 48 kHz 160 kb/s, $(stat -c %s "$input") bytes. Floor: keeptrack under 2 s."
# -loglevel error: measure.py reads stderr only after the run, and ebur128 logs 10 lines a second.
python3 bench/measure.py --runs "$runs" --title "levels of a 10-minute stereo AAC track" --baseline ffmpeg \
    --cmd keeptrack "$KT levels $input" \
    --cmd ffmpeg "ffmpeg -nostdin -loglevel error -i $input -af ebur128,astats -f null -" \
    --cmd "ffmpeg decode only" "ffmpeg -nostdin -loglevel error -i $input -f null -"
echo
echo 'keeptrack levels output (agrees with ffmpeg astats/ebur128):'
echo '```'
"$KT" levels "$input" | sed -n '3,5p'
ffmpeg -nostdin -hide_banner -nostats -i "$input" -af astats=measure_perchannel=none,ebur128 -f null - 2>&1 | grep -E "RMS level dB|Peak level dB|^ +I:" | sed 's/^\[[^]]*\] //'
echo '```'
