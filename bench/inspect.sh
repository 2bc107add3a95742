#!/usr/bin/env bash
# inspect vs ffprobe vs mediainfo: on the real fixture and on a 4 GiB sparse iPhone-layout file.
# Reproduce: make build && bench/inspect.sh   (prints a Markdown section; bench/run.sh bench/inspect.sh updates BENCHMARKS.md)
# Floor: 10x faster than ffprobe, independent of the file size.
set -euo pipefail
cd "$(dirname "$0")/.."
KT=.build/release/keeptrack
work=$(mktemp -d /tmp/keeptrack-bench-inspect.XXXXXX)
trap 'rm -rf "$work"' EXIT
real=../shared/fixtures/iphone16pro-spatial-audio.mov
# 4 GiB: 150 frames of 28 MiB left as holes, real audio and metadata samples.
$KT fixture iphone "$work/big.mov" --sparse --duration 5 --video-frame-bytes 28000000 >/dev/null
$KT fixture iphone "$work/small.mov" >/dev/null
echo "## inspect vs ffprobe vs mediainfo"
echo
echo "Sizes: real fixture $(stat -c %s "$real") bytes; large sparse file $(stat -c %s "$work/big.mov") bytes (video payload is holes, so every tool reads structure only)."
for file in "$real" "$work/small.mov" "$work/big.mov"; do
    name=$(basename "$file")
    python3 bench/measure.py --runs 10 --title "structure of $name" \
        --cmd keeptrack "$KT inspect --json $file" \
        --cmd ffprobe "ffprobe -v error -show_streams -show_format -of json $file" \
        --cmd mediainfo "mediainfo --Output=JSON $file"
done
# Where the time of a small file goes: process start-up. Two C programs that do nothing: one plain,
# one linked with the libraries keeptrack links for `levels` (FFmpeg's libavcodec and friends,
# libebur128, from the module maps), loaded eagerly by the dynamic loader on every run.
libraries=$(grep -ho 'link "[a-z0-9_]*"' Sources/CFFmpeg/module.modulemap Sources/CEbur128/module.modulemap | sed 's/link "\(.*\)"/-l\1/' | tr '\n' ' ')
echo 'int main(void) { return 0; }' > "$work/empty.c"
gcc "$work/empty.c" -o "$work/empty"
gcc "$work/empty.c" -o "$work/empty-codecs" -Wl,--no-as-needed $libraries
python3 bench/measure.py --runs 20 --title "process start-up (programs that do nothing)" \
    --cmd "keeptrack --help" "$KT --help" \
    --cmd "empty C + codec libraries" "$work/empty-codecs" \
    --cmd "empty C" "$work/empty"
echo
echo "The empty program linked with $libraries($(ldd "$work/empty-codecs" | wc -l) shared objects with their dependencies)"
echo "takes 20+ ms just to start: that is why \`keeptrack\` links no codec library and hands the media commands"
echo "(levels, reframe, demo, compare --levels) to \`keeptrack-media\`."
