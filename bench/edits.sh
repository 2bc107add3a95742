#!/usr/bin/env bash
# strip-spatial and select vs remux (same writer, one track fewer / flags changed) on the hour-long
# 60 fps file (560,700 small samples: many short runs) and on a 1 GiB iPhone-layout movie; and
# remux vs cp + sync on the 1 GiB movie (remux fsyncs and reads its output back). Prints a Markdown
# section for BENCHMARKS.md.
# Reproduce: make build && bench/edits.sh        (RUNS=5 by default; BENCH_DIR=/path to choose the disk)
source "$(dirname "$0")/lib.sh" edits
hour="$work/hour.mov"
big="$work/big.mov"
$KT fixture both-enabled "$hour" --duration 3600 --frame-rate 60 --video-frame-bytes 100 >/dev/null
$KT fixture iphone "$big" --duration 60 --video-frame-bytes 540000 >/dev/null
echo "## strip-spatial and select vs remux; remux vs cp + sync"
echo
echo "Inputs: the hour file of bench/hour.sh (\`fixture both-enabled --duration 3600 --frame-rate 60"
echo "--video-frame-bytes 100\`, $(stat -c %s "$hour") bytes) and \`fixture iphone --duration 60 --video-frame-bytes 540000\`"
echo "($(stat -c %s "$big") bytes). Every command writes through the same writer, fsyncs and reads its output back;"
echo "strip-spatial writes fewer bytes (no APAC track). Floors (issue 15): strip-spatial and select within 1.1× of"
echo "remux; remux within 1.05× of \`cp\` + \`sync\` on the 1 GiB movie. Outputs removed before every run (not timed)."
echo "Load when the run started: \`$(uptime | sed 's/.*load average/load average/')\` (2 cores shared)."
for file in "$hour" "$big"; do
    python3 bench/measure.py --runs "$RUNS" --baseline remux --title "$(basename "$file"): edits vs remux" \
        --before "rm -f $work/out.mov" \
        --cmd remux "$KT remux $file $work/out.mov" \
        --cmd strip-spatial "$KT strip-spatial $file $work/out.mov" \
        --cmd select "$KT select $file $work/out.mov"
done
python3 bench/measure.py --runs "$RUNS" --baseline "cp + sync" --title "$(basename "$big"): remux vs a durable copy" \
    --before "rm -f $work/out.mov" \
    --cmd "cp + sync" "sh -c 'cp $big $work/out.mov && sync $work/out.mov'" \
    --cmd remux "$KT remux $big $work/out.mov" \
    --cmd "remux --no-verify" "$KT remux --no-verify $big $work/out.mov"
echo
echo "Load at the end: \`$(uptime | sed 's/.*load average/load average/')\`."
