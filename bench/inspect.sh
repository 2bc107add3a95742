#!/usr/bin/env bash
# inspect vs ffprobe vs mediainfo: on the real fixture and on a 4 GiB sparse iPhone-layout file.
# Reproduce: make build && bench/inspect.sh   (prints a Markdown section for BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
KT=.build/release/keeptrack
work=$(mktemp -d /tmp/keeptrack-bench-inspect.XXXXXX)
trap 'rm -rf "$work"' EXIT
real=../shared/fixtures/iphone16pro-spatial-audio.mov
# 4 GiB: 150 frames of 28 MiB left as holes, real audio and metadata samples.
$KT fixture iphone "$work/big.mov" --sparse --duration 5 --video-frame-bytes 28000000 >/dev/null
$KT fixture iphone "$work/small.mov" >/dev/null
echo "## inspect vs ffprobe vs mediainfo"
echo
echo "Sizes: real fixture $(stat -c %s "$real") bytes; large sparse file $(stat -c %s "$work/big.mov") bytes (video payload is holes, so every tool reads structure only)."
for file in "$real" "$work/small.mov" "$work/big.mov"; do
    name=$(basename "$file")
    python3 bench/measure.py --runs 10 --title "structure of $name" \
        --cmd keeptrack "$KT inspect --json $file" \
        --cmd ffprobe "ffprobe -v error -show_streams -show_format -of json $file" \
        --cmd mediainfo "mediainfo --Output=JSON $file"
done
