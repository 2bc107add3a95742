#!/usr/bin/env bash
# Peak RSS and wall time of every command on an hour-long recording's worth of samples: 60 fps
# video, stereo AAC + APAC, two timed metadata tracks (560,700 samples; payload bytes are tiny, so
# this measures the sample tables, not the copy), side by side with ffprobe, mediainfo and ffmpeg.
# Reproduce: make build && bench/hour.sh
set -euo pipefail
cd "$(dirname "$0")/.."
KT=.build/release/keeptrack
work=$(mktemp -d /tmp/keeptrack-bench-hour.XXXXXX)
trap 'rm -rf "$work"' EXIT
in="$work/hour.mov"
$KT fixture both-enabled "$in" --duration 3600 --frame-rate 60 --video-frame-bytes 100 >/dev/null
echo "## An hour at 60 fps: memory and time of each command"
echo
echo "Input: \`keeptrack fixture both-enabled OUT --duration 3600 --frame-rate 60 --video-frame-bytes 100\`," \
     "$(stat -c %s "$in") bytes, $($KT inspect --json "$in" | python3 -c 'import json,sys; print(sum(t["samples"] for t in json.load(sys.stdin)["tracks"]))') samples."
echo "Outputs are removed before each run (not timed)."
python3 bench/measure.py --runs 3 --title "reading the structure" \
    --cmd "inspect" "$KT inspect --json $in" \
    --cmd "lint" "$KT lint $in" \
    --cmd "ffprobe" "ffprobe -v error -show_streams -show_format -of json $in" \
    --cmd "mediainfo" "mediainfo --Output=JSON $in"
echo "lint exits 1 by design here: both audio tracks are enabled (an error-level finding)."
python3 bench/measure.py --runs 3 --title "writing a new file" --before "rm -f $work/out.*" \
    --cmd "remux" "$KT remux $in $work/out.mov" \
    --cmd "fix" "$KT fix $in $work/out.mov" \
    --cmd "strip-spatial" "$KT strip-spatial $in $work/out.mov" \
    --cmd "select" "$KT select $in $work/out.mov" \
    --cmd "extract" "$KT extract $in --track 1 $work/out.mov" \
    --cmd "ffmpeg" "ffmpeg -v error -i $in -map 0 -c copy -f mov $work/out.ffmpeg"
python3 bench/measure.py --runs 5 --title "fix --in-place (a fresh copy of the input before each run)" \
    --before "cp --sparse=always $in $work/copy.mov" \
    --cmd "fix --in-place" "$KT fix --in-place $work/copy.mov"
