#!/usr/bin/env bash
# lint over a library of 10,000 small synthetic files (a mix of good, both-enabled, none-enabled,
# no-fall, mp4 and broken files in 100 folders), against reading the same bytes with cat and
# against ffprobe (one process per file, their usual use) and mediainfo on a 500-file subset; their
# stderr is discarded because they complain at length about the opaque synthetic payloads.
# Reproduce: make build && bench/lint-folder.sh   (prints a Markdown section for BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
KT=$PWD/.build/release/keeptrack
COUNT=${COUNT:-10000}
work=$(mktemp -d /tmp/keeptrack-bench-lint.XXXXXX)
trap 'rm -rf "$work"' EXIT
variants="iphone both-enabled none-enabled spatial-first no-fall mp4 five-channel audio-only"
for variant in $variants; do
    $KT fixture "$variant" "$work/$variant.mov" --duration 1 --video-frame-bytes 200 >/dev/null
done
head -c 3000 "$work/iphone.mov" > "$work/broken.mov"
python3 - "$work" "$COUNT" $variants broken <<'PY'
import os, shutil, sys
work, count, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for i in range(count):
    folder = os.path.join(work, "library", f"{i // 100:03d}")
    os.makedirs(folder, exist_ok=True)
    shutil.copyfile(os.path.join(work, names[i % len(names)] + ".mov"), os.path.join(folder, f"IMG_{i:05d}.mov"))
PY
lib="$work/library"
mkdir -p "$work/subset"
ls "$lib"/000/*.mov "$lib"/001/*.mov "$lib"/002/*.mov "$lib"/003/*.mov "$lib"/004/*.mov | head -500 | xargs -I{} cp {} "$work/subset/"
bytes=$(du -sb "$lib" | cut -f1)
echo "## lint over a folder"
echo
echo "$COUNT synthetic files ($(ls "$work"/*.mov | wc -l) kinds, 1 s each, $((bytes / COUNT)) bytes on average, $((bytes / 1048576)) MiB in all) in 100 folders; $(nproc) cores."
echo "lint exits 65 here on purpose: one kind of file is truncated (malformed), reported per file while the rest go on."
python3 bench/measure.py --runs 3 --title "lint $COUNT files (-r)" \
    --cmd "lint -j $(nproc)" "$KT lint -r $lib --report $work/report.json --force" \
    --cmd "lint -j 1" "$KT lint -r -j 1 $lib" \
    --cmd "cat (read every byte)" "find $lib -name '*.mov' -print0 | xargs -0 cat"
python3 bench/measure.py --runs 3 --title "500 files: lint vs ffprobe vs mediainfo" \
    --cmd "lint" "$KT lint $work/subset" \
    --cmd "ffprobe (1 process per file, -P $(nproc))" "ls $work/subset/*.mov | xargs -P $(nproc) -I{} ffprobe -v error -show_streams -of json {} 2>/dev/null" \
    --cmd "mediainfo (1 process, all files)" "mediainfo --Output=JSON $work/subset/*.mov 2>/dev/null"
echo
echo "Report rows: $(python3 -c "import json,sys; r=json.load(open('$work/report.json')); print(r['files'], 'files,', r['failed'], 'failed, exit', r['exitCode'])")"
