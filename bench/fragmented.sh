#!/usr/bin/env bash
# A fragmented movie of about 1 GB with more than 1,000 fragments (what ffmpeg -movflags frag_keyframe,
# DASH/CMAF packagers and OBS write): inspect vs ffprobe (structure only: keeptrack must not read mdat),
# remux (defragmenting, verified) vs cp + sync of the copy, peak memory of each.
# Reproduce: make build && bench/fragmented.sh   (bench/run.sh bench/fragmented.sh updates BENCHMARKS.md)
# Floors (issue 11): inspect >= 5x faster than ffprobe -show_streams -show_format; remux within 1.15x of
# cp + sync; peak RSS under 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
KT=.build/release/keeptrack
work=$(mktemp -d /tmp/keeptrack-bench-fragmented.XXXXXX)
trap 'rm -rf "$work"' EXIT
# 20 s of lossless 720p H.264 (a GOP every 6 frames) + AAC, then looped by stream copy to 500 s:
# one fragment per GOP, 5 per second.
ffmpeg -v error -f lavfi -i testsrc2=s=1280x720:r=30 -f lavfi -i sine=f=440:sample_rate=48000 -t 20 \
    -c:v libx264 -preset ultrafast -qp 0 -g 6 -pix_fmt yuv420p -c:a aac -b:a 128k "$work/part.mp4"
ffmpeg -v error -stream_loop 24 -i "$work/part.mp4" -c copy -movflags frag_keyframe+empty_moov+default_base_moof \
    "$work/fragmented.mp4"
size=$(stat -c %s "$work/fragmented.mp4")
fragments=$($KT inspect --json "$work/fragmented.mp4" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("fragments"))')
echo "## fragmented movies: inspect and defragmenting remux"
echo
echo "Input: \`ffmpeg -movflags frag_keyframe+empty_moov+default_base_moof\` of lossless 720p H.264 + AAC, $size bytes, $fragments fragments (keeptrack inspect --json)."
echo
echo "Load average when the inspect measurement started: $(cut -d' ' -f1-3 /proc/loadavg) (on $(nproc) cores shared with other work)."
python3 bench/measure.py --runs 7 --title "structure of a fragmented 1 GB movie" \
    --cmd keeptrack "$KT inspect --json $work/fragmented.mp4" \
    --cmd ffprobe "ffprobe -v error -show_streams -show_format -of json $work/fragmented.mp4"
# Bytes inspect reads (strace's read/pread64 return values) against the bytes outside mdat payloads.
if command -v strace > /dev/null; then
    strace -f -e trace=read,pread64,readv,preadv -o "$work/trace" $KT inspect --json "$work/fragmented.mp4" > /dev/null
    read_bytes=$(awk '/= [0-9]+$/ { s += $NF } END { print s + 0 }' "$work/trace")
    structure=$(python3 - "$work/fragmented.mp4" <<'PY'
import struct, sys
total, pos = 0, 0
with open(sys.argv[1], "rb") as f:
    f.seek(0, 2); end = f.tell()
    while pos + 8 <= end:
        f.seek(pos); size, kind = struct.unpack(">I4s", f.read(8)); header = 8
        if size == 1: size = struct.unpack(">Q", f.read(8))[0]; header = 16
        elif size == 0: size = end - pos
        total += header if kind == b"mdat" else size
        pos += size
print(total)
PY
)
    echo
    echo "keeptrack inspect read $read_bytes bytes of the file (strace: every read/pread64), which has $structure bytes of boxes outside the mdat payloads: it never reads media data."
fi
echo
python3 bench/measure.py --runs 5 --title "defragmenting remux (verified) vs a durable copy" --before "rm -f $work/out.mp4 $work/copy.mp4" \
    --cmd "cp + sync" "sh -c 'cp $work/fragmented.mp4 $work/copy.mp4 && sync $work/copy.mp4'" \
    --cmd "keeptrack remux" "$KT remux $work/fragmented.mp4 $work/out.mp4" \
    --cmd "ffmpeg -c copy" "ffmpeg -v error -y -i $work/fragmented.mp4 -map 0 -c copy $work/out.mp4"
echo
echo "keeptrack's remux writes a progressive movie (moov first) and reads it back to verify; cp + sync only"
echo "copies the bytes and makes them durable; ffmpeg's stream copy is neither verified nor synced."
