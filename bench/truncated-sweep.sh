#!/usr/bin/env bash
# Truncated movies: each movie (moov first) cut with `head -c` at N points spread over its media data. For each
# cut: `keeptrack inspect` exits 0, and every track's complete-sample count equals the number of leading packets
# ffprobe lists in the cut file with the same size and SHA-256 as in the whole file; `salvage` writes a file that
# ffmpeg decodes without a message (or refuses, saying nothing is whole). A correctness sweep, not a timing:
# the newer of the release and debug builds is used. Prints a Markdown section for BENCHMARKS.md.
# Reproduce: bench/truncated-sweep.sh            (40 cuts of the real recording remuxed moov-first, an ffmpeg
#            H.264 + AAC movie and two wild movies; POINTS=N for another count)
#            bench/truncated-sweep.sh MOVIE...   (those movies instead, one line each)
source "$(dirname "$0")/lib.sh" truncated
# A correctness sweep: the newer of the release and debug builds.
[ -x "$KT" ] && [ ! .build/debug/keeptrack -nt "$KT" ] || KT=$PWD/.build/debug/keeptrack
points=${POINTS:-40}
movies=("$@")
if [ ${#movies[@]} -eq 0 ]; then
    "$KT" remux "$real" "$work/iphone16pro-moov-first.mov" >/dev/null
    ffmpeg -v error -nostdin -f lavfi -i testsrc2=size=320x240:rate=25 -f lavfi -i sine=sample_rate=48000 -t 4 \
        -c:v libx264 -bf 2 -c:a aac -movflags +faststart "$work/ffmpeg-h264-aac.mp4"
    movies=("$work/iphone16pro-moov-first.mov" "$work/ffmpeg-h264-aac.mp4"
            ../shared/fixtures/wild/eyevinn-mp4ff/prog_8s.mp4 ../shared/fixtures/wild/androidx-media/sample_with_metadata.mp4)
    echo "## Truncated movies: inspect and salvage on $points cuts each (2026-12-03, bench/truncated-sweep.sh)"
    echo
    echo "Each movie cut with \`head -c\` at $points points over its media data. \"Counts\": every track's"
    echo "complete samples as inspect says equal the leading packets ffprobe lists whole (size and SHA-256)."
    echo "\"Decoded\": \`ffmpeg -v error -f null\` on the salvaged file's video and decodable audio prints nothing."
    echo "Cuts not salvaged are refused (65) because no audio or video sample is whole or none covers a common frame."
    echo
    echo "| Movie | Cuts | inspect exit 0 | Counts equal | Salvaged | Decoded |"
    echo "|---|---|---|---|---|---|"
    table=1
else
    table=0
fi
for movie in "${movies[@]}"; do
    python3 - "$KT" "$movie" "$points" "$work" "$table" <<'PY'
import json, os, subprocess, sys
kt, movie, points, work, table = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5] == "1"
def note(*words):
    if not table: print(*words)
def packets(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-of", "json", "-show_streams", "-show_packets", "-show_data_hash", "sha256", path],
                         capture_output=True, text=True).stdout
    data = json.loads(out)
    ids = {s["index"]: int(s["id"], 16) for s in data["streams"]}
    result = {}
    for p in data["packets"]:
        result.setdefault(ids[p["stream_index"]], []).append((p["size"], p.get("data_hash")))
    return result
whole = packets(movie)
size = len(open(movie, "rb").read())
moov = json.loads(subprocess.run([kt, "inspect", "--json", movie], capture_output=True, text=True).stdout)
data = open(movie, "rb").read()
start = data.find(b"mdat") + 4
checked = agree = exit0 = salvaged = decoded = 0
for k in range(1, points + 1):
    length = start + (size - start - 16) * k // (points + 1)
    cut = f"{work}/cut.mp4"
    open(cut, "wb").write(data[:length])
    r = subprocess.run([kt, "inspect", "--json", cut], capture_output=True, text=True)
    checked += 1
    if r.returncode != 0:
        note("  exit", r.returncode, "at", length, r.stderr.strip()[:200]); continue
    exit0 += 1
    tracks = json.loads(r.stdout).get("truncated", {}).get("tracks", [])
    listed = packets(cut)
    ok = True
    for t in tracks:
        same = 0
        for a, b in zip(listed.get(t["id"], []), whole.get(t["id"], [])):
            if a != b: break
            same += 1
        if same != t["completeSamples"]: ok = False; note("  track", t["id"], "at", length, ":", t["completeSamples"], "complete, ffprobe lists", same)
    agree += ok
    out = f"{work}/saved.mov"
    s = subprocess.run([kt, "salvage", "--force", cut, out], capture_output=True, text=True)
    if s.returncode != 0:
        note("  salvage exit", s.returncode, "at", length, s.stderr.strip()[:300])
    if s.returncode == 0:
        salvaged += 1
        maps = []
        for st in json.loads(subprocess.run(["ffprobe", "-v", "error", "-of", "json", "-show_streams", out], capture_output=True, text=True).stdout)["streams"]:
            if st["codec_type"] == "video" or (st["codec_type"] == "audio" and st.get("codec_name") not in (None, "none")):
                maps += ["-map", "0:%d" % st["index"]]
        d = subprocess.run(["ffmpeg", "-v", "error", "-i", out] + maps + ["-f", "null", "-"], capture_output=True, text=True)
        decoded += d.returncode == 0 and d.stderr.strip() == ""
        if d.returncode != 0 or d.stderr.strip(): note("  decoding the salvaged cut at", length, ":", d.stderr.strip()[:300])
if table:
    print(f"| {os.path.basename(movie)} | {checked} | {exit0} | {agree} | {salvaged} | {decoded} |")
else:
    print(f"{movie}: {checked} cuts, inspect exit 0 on {exit0}, counts equal to ffprobe's on {agree}, salvaged {salvaged}, decoded without a message {decoded}")
PY
done
