#!/usr/bin/env bash
# fix --in-place on a 4.2 GB file vs on a 200 KB file: only the tkhd flag bytes are written (pwrite +
# fsync), so the cost must not depend on the file size (floor: under 20 ms on both).
# Before each timed run (not timed) the moov is put back as it was, so every run has a fix to make.
# Reproduce: make build && bench/fix-inplace.sh
set -euo pipefail
cd "$(dirname "$0")/.."
KT=.build/release/keeptrack
work=$(mktemp -d /tmp/keeptrack-bench-fix.XXXXXX)
trap 'rm -rf "$work"' EXIT
# 60 video frames of 70 MB left as holes; both audio tracks enabled (what fix repairs).
$KT fixture both-enabled "$work/big.mov" --sparse --video-frame-bytes 70000000 >/dev/null
$KT fixture both-enabled "$work/small.mov" >/dev/null
# The moov is the only box fix --in-place may touch: snapshot it to put it back before each run.
python3 bench/moov_snapshot.py save "$work/big.mov" "$work/big.moov"
python3 bench/moov_snapshot.py save "$work/small.mov" "$work/small.moov"
echo "## fix --in-place: cost independent of file size"
echo
echo "Files: $(stat -c %s "$work/big.mov") bytes (sparse video) and $(stat -c %s "$work/small.mov") bytes, both with both audio tracks enabled."
echo "Before each run (not timed) the original moov is written back, so each run patches one tkhd and fsyncs."
python3 bench/measure.py --runs 20 --title "fix --in-place (one 3-byte patch + fsync)" \
    --before "python3 bench/moov_snapshot.py restore $work/big.mov $work/big.moov && python3 bench/moov_snapshot.py restore $work/small.mov $work/small.moov" \
    --cmd "4.2 GB" "$KT fix --in-place $work/big.mov" \
    --cmd "200 KB" "$KT fix --in-place $work/small.mov" \
    --cmd "4.2 GB, plan only" "$KT fix $work/big.mov" \
    --cmd "start-up only" "$KT --help"
echo
echo "\"plan only\" (fix without OUT or --in-place) opens the file and prints the plan without writing; \"start-up only\""
echo "is \`keeptrack --help\`: what the process costs before it reads anything (the slim executable: no codec library is loaded)."
