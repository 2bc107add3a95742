#!/usr/bin/env bash
# compare (sample bytes compared directly) vs reading both files (cat) vs hashing both (sha256sum),
# on a 1 GiB iPhone-layout movie and its remux (real bytes, different chunk layout), warm and cold
# page cache; then remux --verify-data vs remux. Prints a Markdown section for BENCHMARKS.md.
# Reproduce: make build && bench/compare.sh      (RUNS=5 by default; BENCH_DIR=/path to choose the disk;
#            DURATION=2 RUNS=1 for a quick check that the script works: small files, figures meaningless)
source "$(dirname "$0")/lib.sh" compare
duration=${DURATION:-60}
a="$work/a.mov"
b="$work/b.mov"
# 60 s at 30 fps, ~540 KB frames (sync frames 2.2 MB): about 1 GiB; B is its remux (moov first, new chunks).
$KT fixture iphone "$a" --duration "$duration" --video-frame-bytes 540000 >/dev/null
$KT remux "$a" "$b" >/dev/null
size=$(stat -c %s "$a")
# Drops both files from the page cache (posix_fadvise DONTNEED through dd; only these files).
cold="dd if=$a iflag=nocache count=0 status=none; dd if=$b iflag=nocache count=0 status=none"
echo "## compare vs cat vs sha256sum"
echo
echo "A: \`keeptrack fixture iphone A --duration $duration --video-frame-bytes 540000\` ($size bytes, moov last);"
echo "B: \`keeptrack remux A B\` (moov first, other chunks). \`keeptrack compare\` reads every sample of both"
echo "and compares them byte for byte (pieces on both cores); \`--digest sha256\` also hashes every sample."
echo "Floors (issue 15): within 3× of \`cat A B\` on a warm cache, within 1.3× of it on a cold cache."
echo "Load when the run started: \`$(uptime | sed 's/.*load average/load average/')\` (2 cores shared)."
python3 bench/measure.py --runs "$RUNS" --baseline cat --title "warm cache: identical pair" \
    --cmd cat "cat $a $b" \
    --cmd "compare" "$KT compare $a $b" \
    --cmd "compare --digest sha256" "$KT compare --digest sha256 $a $b" \
    --cmd sha256sum "sha256sum $a $b"
python3 bench/measure.py --runs "$RUNS" --baseline cat --title "cold cache (both files dropped from the page cache before each run)" \
    --before "$cold" \
    --cmd cat "cat $a $b" \
    --cmd "compare" "$KT compare $a $b"
echo
echo "Load when the compare runs ended: \`$(uptime | sed 's/.*load average/load average/')\`."
out="$work/out.mov"
python3 bench/measure.py --runs "$RUNS" --baseline remux --title "remux --verify-data (output read back and compared with the input)" \
    --before "rm -f $out" \
    --cmd remux "$KT remux $a $out" \
    --cmd "remux --verify-data" "$KT remux --verify-data $a $out" \
    --cmd "cp + sync" "sh -c 'cp $a $out && sync $out'"
echo
echo "Load at the end: \`$(uptime | sed 's/.*load average/load average/')\`."
