#!/usr/bin/env bash
# repair of interrupted recordings: record-like files cut at many points with the moov removed, rebuilt
# with `keeptrack repair BROKEN --reference GOOD OUT` (and with untrunc when UNTRUNC names a binary of it),
# every output read by ffprobe: the share of the source's samples inside the cut that come back exactly
# (same bytes, size and key flag, in decode order, per track) and the share that ffmpeg also decodes
# without an error message.
# Reproduce: swift build && KT=.build/debug/keeptrack-media CUTS=20 bench/repair.sh
#            (UNTRUNC=/path/to/untrunc adds its figures; it is built from anthwlock/untrunc, never committed)
# Prints a Markdown section; bench/run.sh bench/repair.sh updates BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
KT=${KT:-.build/release/keeptrack-media}
CUTS=${CUTS:-20}
UNTRUNC=${UNTRUNC:-}
work=$(mktemp -d /tmp/keeptrack-bench-repair.XXXXXX)
trap 'rm -rf "$work"' EXIT
real=../shared/fixtures/iphone16pro-spatial-audio.mov
ff() { ffmpeg -v error -nostdin -y "$@"; }
x264=(-c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p -c:a aac -b:a 128k -ac 2)
x265=(-c:v libx265 -x265-params log-level=error -preset ultrafast -g 30 -pix_fmt yuv420p -tag:v hvc1 -c:a aac -b:a 128k -ac 2)
# Sources (moov at the end: ffmpeg's default) and references of the same settings, other pictures and sound.
ff -f lavfi -i "testsrc=size=640x360:rate=30:duration=8" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=8" "${x264[@]}" "$work/h264.mp4"
ff -f lavfi -i "testsrc2=size=640x360:rate=30:duration=3" -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=3" "${x264[@]}" "$work/h264-ref.mp4"
ff -f lavfi -i "testsrc=size=640x360:rate=30:duration=8" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=8" "${x265[@]}" "$work/hevc.mov"
ff -f lavfi -i "testsrc2=size=640x360:rate=30:duration=3" -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=3" "${x265[@]}" "$work/hevc-ref.mov"
cases=("h264.mp4 h264-ref.mp4" "hevc.mov hevc-ref.mov")
if [ -f "$real" ]; then
    # The iPhone recording is its own reference (the only recording of that device here): the walk uses its
    # sample descriptions and chunk pattern, never its sample positions.
    cp "$real" "$work/iphone.mov"
    cases+=("iphone.mov iphone.mov")
fi
python3 - "$work" "$KT" "$CUTS" "$UNTRUNC" "${cases[@]}" <<'PY'
import json, os, shutil, subprocess, sys
work, kt, cuts, untrunc = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cases = [c.split() for c in sys.argv[5:]]

def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-of", "json", "-show_streams", "-show_packets", "-show_data_hash", "sha256", path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None
    data = json.loads(out.stdout)
    streams = {s["index"]: s for s in data.get("streams", [])}
    tracks = {}
    for p in data.get("packets", []):
        s = streams[p["stream_index"]]
        track = int(s.get("id", "0"), 16)
        tracks.setdefault(track, {"kind": s["codec_type"], "tag": s.get("codec_tag_string", "?"), "packets": []})["packets"].append(
            (int(p["size"]), p.get("data_hash"), "K" in p.get("flags", ""), int(p.get("pos", -1)), p.get("pts"), p.get("dts")))
    return tracks

def decodes_clean(path):
    out = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-i", path, "-map", "0:v?", "-map", "0:a?", "-f", "null", "-"],
                         capture_output=True, text=True)
    return out.returncode == 0 and not out.stderr.strip()

def kind_of(track):
    return {"avc1": "video", "hvc1": "video", "hev1": "video", "mp4a": "AAC", "apac": "APAC", "mebx": "metadata"}.get(track["tag"], track["tag"])

def exact_prefix(expected, got, timed):
    count = 0
    for a, b in zip(expected, got):
        if a[:3] != b[:3] or (timed and a[4:] != b[4:]):
            break
        count += 1
    return count

rows = []
for source, reference in cases:
    src = os.path.join(work, source)
    data = open(src, "rb").read()
    moov = data.find(b"moov") - 4
    tracks = probe(src)
    mdat_start = data.find(b"mdat") + 4
    totals = {}
    for tool in ["keeptrack"] + (["untrunc"] if untrunc else []):
        totals[tool] = {}
    for i in range(cuts):
        cut = mdat_start + (moov - mdat_start) * (i + 1) // (cuts + 1)
        broken = os.path.join(work, "broken-" + source)
        open(broken, "wb").write(data[:cut])
        outputs = {}
        out = os.path.join(work, "out-" + source)
        if subprocess.run([kt, "repair", broken, "--reference", os.path.join(work, reference), out, "--force"], capture_output=True).returncode == 0:
            outputs["keeptrack"] = out
        if untrunc:
            fixed = broken + "_fixed" + os.path.splitext(source)[1]
            if os.path.exists(fixed):
                os.remove(fixed)
            subprocess.run([untrunc, "-n", "-dst", fixed, os.path.join(work, reference), broken], capture_output=True, timeout=600)
            if os.path.exists(fixed):
                outputs["untrunc"] = fixed
        for tool in totals:
            got = probe(outputs[tool]) if tool in outputs else None
            clean = got is not None and decodes_clean(outputs[tool])
            for track_id, track in tracks.items():
                expected = [p for p in track["packets"] if p[3] >= 0 and p[3] + p[0] <= cut]
                kind = kind_of(track)
                entry = totals[tool].setdefault(kind, [0, 0, 0, 0])
                entry[0] += len(expected)
                if got and track_id in got:
                    packets = got[track_id]["packets"]
                    entry[1] += exact_prefix(expected, packets, False)
                    timed = exact_prefix(expected, packets, kind in ("video", "AAC"))
                    entry[2] += timed
                    if clean:
                        entry[3] += timed
    for tool, kinds in totals.items():
        for kind, (expected, same, timed, clean) in sorted(kinds.items()):
            if expected:
                share = lambda n: f"{100 * n / expected:.1f} %"
                decodable = kind in ("video", "AAC")
                rows.append(f"| {source} | {tool} | {kind} | {expected} | {share(same)} | {share(timed) if decodable else '–'} | {share(clean) if decodable else 'not decodable'} |")
print(f"## repair: interrupted recordings cut at {cuts} points each")
print()
print("Each source is cut at evenly spaced points of its media data (the moov, at the end, removed with the rest); the")
print("reference is another recording of the same settings (the iPhone file is its own: only its sample descriptions and")
print("chunk pattern are used). Expected: the source's samples that lie wholly before the cut, summed over the cuts.")
print("Same bytes: recovered in decode order, from the first, with the same bytes, size and key flag (ffprobe's SHA-256 of")
print("each packet). Exact: the same and, for video and AAC, the same pts and dts (timed metadata gets the reference's usual")
print("duration). Decode-clean: exact and in an output that ffmpeg 5.1 decodes (`-map 0:v? -map 0:a? -f null -`) without any")
print("error message.")
print()
print("| source | tool | samples | expected | same bytes | exact | decode-clean |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
for row in rows:
    print(row)
PY
