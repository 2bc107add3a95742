#!/usr/bin/env bash
# reframe on real footage (../shared/fixtures/footage) and synthetic 1080p scenes: time against a plain
# ffmpeg crop + libx264 medium crf 20 at the same crop size, and framing judged by OpenCV's Haar cascade
# (independent of the YuNet detector reframe uses) for keeptrack and for a plain centre crop.
# Reproduce: make build && bench/footage.sh   (RUNS=3 by default; prints a Markdown table for BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
KT=${KT:-.build/release/keeptrack}  # KT=path/to/keeptrack compares another build
FOOTAGE=../shared/fixtures/footage
work=$(mktemp -d /tmp/keeptrack-bench-footage.XXXXXX)
trap 'rm -rf "$work"' EXIT
$KT fixture scene:still "$work/scene_still.mov" --photo .deps/testdata/astronaut.png --duration 10 >/dev/null
$KT fixture scene:drift "$work/scene_drift.mov" --photo .deps/testdata/astronaut.png --duration 10 >/dev/null
echo "Machine: $(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
/usr/bin/python3 bench/footage.py --keeptrack "$KT" --runs "${RUNS:-3}" --work "$work" \
    "$FOOTAGE"/*.mp4 "$FOOTAGE"/*.mov "$work/scene_still.mov" "$work/scene_drift.mov"
echo
echo "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
