#!/usr/bin/env bash
# reframe vs a plain ffmpeg crop + encode at the same encoder settings, side by side in one run.
# Reproduce: make build && bench/reframe.sh   (prints a Markdown section for BENCHMARKS.md)
#
# ffmpeg gets the same crop window keeptrack chose (read from its --json summary): fixed for the still
# scene, a linear pan between the same first and last offsets for the drift scene, so both encoders see
# comparable pictures. The difference is what following the person costs: the analysis pass (decoding the
# referenced frames of the source, their histograms, face detection 1-3 times a second beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
KT=.build/release/keeptrack
PHOTO=.deps/testdata/astronaut.png
RUNS=${RUNS:-7}
work=$(mktemp -d /tmp/keeptrack-bench-reframe.XXXXXX)
trap 'rm -rf "$work"' EXIT

offsets() { # clip codec-options... -> "first last"
    local clip=$1; shift
    $KT reframe "$clip" "$work/probe.mov" --force --json "$@" 2>/dev/null | python3 -c '
import json, sys
path = json.load(sys.stdin)["path"]
print(path["firstOffset"], path["lastOffset"])'
}

run() { # title clip seconds kt-options ffmpeg-encoder-options
    local title=$1 clip=$2 seconds=$3 kt_options=$4 ff_options=$5
    read -r first last < <(offsets "$clip" $kt_options)
    local x="$first+($last-$first)*t/$seconds"
    python3 bench/measure.py --runs "$RUNS" --title "$title" \
        --cmd ffmpeg "ffmpeg -v error -y -i $clip -map 0 -vf crop=608:1080:'$x':0 $ff_options -c:a copy $work/ffmpeg.mov" \
        --cmd keeptrack "$KT reframe $clip $work/keeptrack.mov --force $kt_options"
}

$KT fixture scene:still "$work/still.mov" --photo "$PHOTO" --duration 10 >/dev/null
$KT fixture scene:drift "$work/drift.mov" --photo "$PHOTO" --duration 10 >/dev/null
$KT fixture scene:still "$work/still-hlg.mov" --photo "$PHOTO" --duration 5 --hevc >/dev/null

echo "## reframe vs ffmpeg crop + encode"
echo
echo "Clips: 1920x1080 30 fps, rendered by \`keeptrack fixture scene:NAME\` (H.264 High 8-bit SDR, 10 s; HEVC Main10 HLG, 5 s), two AAC tracks."
echo "Output 608x1080 (9:16). Machine: $(nproc) cores (shared)."
run "1080p30 H.264, still subject: libx264 medium crf 20" "$work/still.mov" 10 \
    "--preset medium --crf 20" "-c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p"
run "1080p30 H.264, drifting subject (camera pans): libx264 medium crf 20" "$work/drift.mov" 10 \
    "--preset medium --crf 20" "-c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p"
run "1080p30 HEVC Main10 HLG, still subject: libx265 fast crf 22, 10-bit" "$work/still-hlg.mov" 5 \
    "--preset fast --crf 22" "-c:v libx265 -preset fast -crf 22 -pix_fmt yuv420p10le -x265-params log-level=error:open-gop=0 -tag:v hvc1"
