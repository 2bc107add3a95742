#!/usr/bin/env bash
# reframe --layout fit and --layout split against the equivalent ffmpeg filter graph, CPU (user + system of
# the child) side by side in one run: fit = the whole picture scaled over a blurred (shrunk to a sixteenth,
# grown back), darkened (luma 45 % above black) copy of its centre; split = two windows cropped, scaled into
# the halves and stacked with a black divider. ffmpeg's split windows stay where keeptrack's plan puts them
# on the first frame (an ffmpeg graph cannot follow a path without a command per frame); keeptrack also
# analyses (decode, faces, people) and plans. Both encode libx264 medium crf 20, audio copied.
# Reproduce: make build && bench/layouts.sh   (RUNS=1 by default: the machine is shared; prints Markdown)
source "$(dirname "$0")/lib.sh" layouts
RUNS=${RUNS_LAYOUTS:-1}
$KT fixture scene:two-apart "$work/two-apart.mov" --photo .deps/testdata/astronaut.png --duration 6 >/dev/null
echo "Machine: $(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
encode="-c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -c:a copy"
# Each clip with its output size: the 480x270 footage scaled up to 1080x1920, the 1080p scene at the crop's own size.
for entry in "../shared/fixtures/footage/two_people_apart.mp4 1080x1920" "$work/two-apart.mov 608x1080"; do
    read -r clip size <<<"$entry"
    name=$(basename "$clip")
    # The output size and the windows keeptrack plans (from a --plan-only plan of the same clip); the graphs.
    $KT reframe "$clip" --plan-only --layout split --size "$size" --plan-out "$work/plan.json" --force >/dev/null
    python3 - "$work/plan.json" "$work" "$size" <<'EOF'
import json, sys
plan = json.load(open(sys.argv[1]))
sw, sh = plan["source"]["width"], plan["source"]["height"]
cw, ch = plan["crop"]["width"], plan["crop"]["height"]
W, H = map(int, sys.argv[3].split("x"))
half = max(2, (H - max(2, H // 270 // 2 * 2)) // 2 // 2 * 2)
div = H - 2 * half
ww, wh = plan["split"]["width"], plan["split"]["height"]
top, bottom = plan["frames"][0]["top"], plan["frames"][0]["bottom"]
fh = max(2, round(sh * W / sw / 2) * 2)
fit = (f"[0:v]split[a][b];[a]crop={cw}:{ch}:{(sw - cw) // 4 * 2}:{(sh - ch) // 4 * 2},scale={W // 16 // 2 * 2}:{H // 16 // 2 * 2}:flags=area,"
       f"scale={W}:{H}:flags=bilinear,lutyuv=y='16+max(val-16,0)*0.45'[bg];[b]scale={W}:{fh}:flags=bicubic[fg];"
       f"[bg][fg]overlay=0:{(H - fh) // 4 * 2}[v]")
split = (f"[0:v]split[a][b];[a]crop={ww}:{wh}:{top['x']}:{top['y']},scale={W}:{half}:flags=bicubic,pad={W}:{half + div}:0:0:black[t];"
         f"[b]crop={ww}:{wh}:{bottom['x']}:{bottom['y']},scale={W}:{half}:flags=bicubic[u];[t][u]vstack[v]")
open(sys.argv[2] + "/fit.graph", "w").write(fit)
open(sys.argv[2] + "/split.graph", "w").write(split)
open(sys.argv[2] + "/sizes", "w").write(f"{sw}x{sh} {W}x{H} {ww}x{wh}\n")
EOF
    read -r source_size output_size window_size <"$work/sizes"
    python3 bench/measure.py --runs "$RUNS" --baseline "ffmpeg fit" --title "$name: fit ($source_size -> $output_size)" \
        --before "rm -f $work/out.mp4" \
        --cmd "ffmpeg fit" "ffmpeg -v error -y -i $clip -filter_complex_script $work/fit.graph -map '[v]' -map 0:a? $encode $work/out.mp4" \
        --cmd "keeptrack --layout fit" "$KT reframe $clip $work/out.mp4 --layout fit --size $size --preset medium --crf 20 --force"
    python3 bench/measure.py --runs "$RUNS" --baseline "ffmpeg split" --title "$name: split (two $window_size windows -> $output_size)" \
        --before "rm -f $work/out.mp4" \
        --cmd "ffmpeg split" "ffmpeg -v error -y -i $clip -filter_complex_script $work/split.graph -map '[v]' -map 0:a? $encode $work/out.mp4" \
        --cmd "keeptrack --layout split" "$KT reframe $clip $work/out.mp4 --layout split --size $size --preset medium --crf 20 --force"
done
echo "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
