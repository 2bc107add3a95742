#!/usr/bin/env bash
# Cuts each movie given (moov first) with `head -c` at N points spread over its media data and checks, for each
# cut, that `keeptrack inspect` exits 0 and that every track's complete-sample count equals the number of leading
# packets ffprobe lists in the cut file with the same size and SHA-256 as in the whole file; then that `salvage`
# writes a file ffmpeg decodes without a message. Prints one line per movie.
#   bench/truncated-sweep.sh N MOVIE...      (keeptrack from .build/debug unless KT is set)
set -euo pipefail
points="$1"; shift
KT="${KT:-$(dirname "$0")/../.build/debug/keeptrack}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
for movie in "$@"; do
    python3 - "$KT" "$movie" "$points" "$work" <<'PY'
import json, subprocess, sys
kt, movie, points, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
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
        print("  exit", r.returncode, "at", length, r.stderr.strip()[:200]); continue
    exit0 += 1
    tracks = json.loads(r.stdout).get("truncated", {}).get("tracks", [])
    listed = packets(cut)
    ok = True
    for t in tracks:
        same = 0
        for a, b in zip(listed.get(t["id"], []), whole.get(t["id"], [])):
            if a != b: break
            same += 1
        if same != t["completeSamples"]: ok = False; print("  track", t["id"], "at", length, ":", t["completeSamples"], "complete, ffprobe lists", same)
    agree += ok
    out = f"{work}/saved.mov"
    s = subprocess.run([kt, "salvage", "--force", cut, out], capture_output=True, text=True)
    if s.returncode != 0:
        print("  salvage exit", s.returncode, "at", length, s.stderr.strip()[:300])
    if s.returncode == 0:
        salvaged += 1
        maps = []
        for st in json.loads(subprocess.run(["ffprobe", "-v", "error", "-of", "json", "-show_streams", out], capture_output=True, text=True).stdout)["streams"]:
            if st["codec_type"] == "video" or (st["codec_type"] == "audio" and st.get("codec_name") not in (None, "none")):
                maps += ["-map", "0:%d" % st["index"]]
        d = subprocess.run(["ffmpeg", "-v", "error", "-i", out] + maps + ["-f", "null", "-"], capture_output=True, text=True)
        decoded += d.returncode == 0 and d.stderr.strip() == ""
        if d.returncode != 0 or d.stderr.strip(): print("  decoding the salvaged cut at", length, ":", d.stderr.strip()[:300])
print(f"{movie}: {checked} cuts, inspect exit 0 on {exit0}, counts equal to ffprobe's on {agree}, salvaged {salvaged}, decoded without a message {decoded}")
PY
done
