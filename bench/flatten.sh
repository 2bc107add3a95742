#!/usr/bin/env bash
# flatten-stereo vs remux vs cp vs ffmpeg -c copy on a 20 s 1080p HEVC movie (~75 MB) whose sample entry
# is given an lhvC box, so flatten-stereo walks every NAL unit of every sample (all of layer 0 here: none
# dropped, every byte copied; a real second view would halve what is written). Prints a Markdown section.
# Reproduce: make build && bench/flatten.sh       (RUNS=5 by default; BENCH_DIR=/path to choose the disk)
source "$(dirname "$0")/lib.sh" flatten
ffmpeg -v error -nostdin -y -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=20 \
    -c:v libx265 -preset ultrafast -b:v 30M -x265-params log-level=error -tag:v hvc1 "$work/plain.mp4"
# An lhvC (no parameter sets) after hvcC: moov is last, so no chunk offset moves; only the sizes of the
# boxes holding it grow.
python3 - "$work/plain.mp4" "$work/stereo.mp4" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
def boxes(start, end):
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        yield at, size, kind
        at += size
path, start, end = [], 0, len(data)
for wanted, skip in ((b"moov", 0), (b"trak", 0), (b"mdia", 0), (b"minf", 0), (b"stbl", 0), (b"stsd", 8), (b"hvc1", 78)):
    at, size, kind = next(b for b in boxes(start, end) if b[2] == wanted)
    path.append(at)
    start, end = at + 8 + skip, at + size
# version 1, no segmentation or parallelism, 4-byte NAL lengths (as hvcC), no parameter-set arrays
payload = bytes([0x01, 0xF0, 0x00, 0xFC, 0xCB, 0x00])
lhvc = struct.pack(">I4s", 8 + len(payload), b"lhvC") + payload
for at in path:
    struct.pack_into(">I", data, at, struct.unpack(">I", data[at:at + 4])[0] + len(lhvc))
data[end:end] = lhvc
open(sys.argv[2], "wb").write(data)
PY
size=$(stat -c %s "$work/stereo.mp4")
$KT flatten-stereo "$work/stereo.mp4" "$work/check.mp4" >/dev/null
cmp -s <(ffmpeg -v error -i "$work/stereo.mp4" -map 0:v -f framecrc -) <(ffmpeg -v error -i "$work/check.mp4" -map 0:v -f framecrc -) \
    || { echo "flatten-stereo changed the pictures" >&2; exit 1; }
rm -f "$work/check.mp4"

echo "## flatten-stereo vs remux vs cp vs ffmpeg -c copy"
echo
echo "keeptrack flatten-stereo and remux read their output back and fsync it before renaming; cp and ffmpeg"
echo "do neither. flatten-stereo also reads every video sample once to walk its NAL units, then copies the"
echo "kept ranges from the input like remux copies samples. The flattened output decodes to the same frames"
echo "(ffmpeg framecrc, checked before timing). Outputs removed before every run (not timed)."
echo
python3 bench/measure.py --runs "$RUNS" --baseline "cp" --title "20 s of 1080p HEVC with an lhvC ($size bytes)" \
    --before "rm -f $work/out-*" \
    --cmd "cp" "cp $work/stereo.mp4 $work/out-cp.mp4" \
    --cmd "keeptrack remux" "$KT remux $work/stereo.mp4 $work/out-remux.mp4" \
    --cmd "keeptrack flatten-stereo" "$KT flatten-stereo $work/stereo.mp4 $work/out-flat.mp4" \
    --cmd "ffmpeg -c copy -map 0" "ffmpeg -v error -nostdin -y -i $work/stereo.mp4 -c copy -map 0 $work/out-ff.mp4"
rm -f "$work"/out-*
