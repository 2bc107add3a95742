#!/usr/bin/env bash
# join vs cp + sync of the same bytes: three pieces of a ~1 GiB iPhone-layout movie (real bytes, not
# sparse) joined back. Prints a Markdown section for BENCHMARKS.md.
# Reproduce: make build && bench/join.sh        (RUNS=5 by default; BENCH_DIR=/path to choose the disk)
# Target (issue 32): within 1.05x of cp + sync of the summed inputs.
source "$(dirname "$0")/lib.sh" join
# 60 s at 30 fps: ~0.5 MB frames (sync frames 4x), stereo AAC + APAC, two mebx tracks, moov last.
$KT fixture iphone "$work/big.mov" --duration 60 --video-frame-bytes 520000 >/dev/null
# Cut where sync frames are shown (k*6 s + 1 frame, see bench/trim.sh), so no piece repeats a GOP.
$KT split "$work/big.mov" --at 24.033334 --at 48.033334 --out-dir "$work/pieces" >/dev/null
pieces=$(ls "$work"/pieces/*.mov | tr '\n' ' ')
size=$(cat $pieces | wc -c)
mkdir -p "$work/copies"

echo "## join (bench/join.sh)"
echo
echo "keeptrack join reads the pieces' boxes, copies every sample's bytes with copy_file_range, reads the"
echo "output back (structure, sample tables and the independent per-sample reading of every piece) and"
echo "fsyncs it before renaming. The baseline copies the same pieces with cp and syncs the copies."
echo "Outputs removed before every run (not timed). The shared 2-core VM makes disk timings noisy: rerun"
echo "before drawing conclusions. Target (issue 32): within 1.05x of cp + sync."
echo
python3 bench/measure.py --runs "$RUNS" --baseline "cp + sync" --title "join 3 pieces of big.mov ($size bytes in all)" \
    --before "rm -f $work/out-* $work/copies/*" \
    --cmd "cp + sync" "sh -c 'cp $pieces $work/copies/ && sync $work/copies/*'" \
    --cmd "keeptrack join" "$KT join $pieces $work/out-kt.mov"
echo
$KT join $pieces "$work/out-kt.mov" --force >/dev/null
report=$($KT compare "$work/big.mov" "$work/out-kt.mov" || true)
differences=$(grep -c '^  - ' <<<"$report" || true)
identical=$(grep -c 'sample data *identical' <<<"$report" || true)
tracks=$(grep -c '^Track ' <<<"$report" || true)
echo "Output check: \`keeptrack compare big.mov joined.mov\` lists $differences differences, $(grep '^  - ' <<<"$report" | sed 's/^  - //' | paste -sd ';' | sed 's/;/; /g');"
echo "sample data identical in $identical of $tracks tracks."
