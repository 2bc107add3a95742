#!/usr/bin/env bash
# scrub --in-place on the iPhone recording (2.5 MB) and on the same recording with its mdat padded by a
# 4 GiB hole (4.3 GB): only the location items are written (box type to free, payload zeroed, pwrite +
# fsync), so the cost must not depend on the file's size.
# Before each timed run (not timed) the bytes after mdat (moov, free) are put back, so every run has
# the same four items to remove.
# Reproduce: make build && bench/scrub.sh
source "$(dirname "$0")/lib.sh" scrub
python3 bench/scrub_padded.py pad "$real" "$work/big.mov" 4294967296
cp "$real" "$work/small.mov"
chmod u+w "$work/small.mov"
python3 bench/scrub_padded.py save "$work/big.mov" "$work/big.tail"
python3 bench/scrub_padded.py save "$work/small.mov" "$work/small.tail"
echo "## scrub --in-place: cost independent of file size"
echo
echo "Files: the iPhone 16 Pro recording ($(stat -c %s "$work/small.mov") bytes) and the same with its mdat padded by a"
echo "4 GiB hole after the last sample (\`python3 bench/scrub_padded.py pad IN OUT 4294967296\`, $(stat -c %s "$work/big.mov") bytes)."
echo "Each run removes the location (two moov/meta items, two stale copies in the trailing free box: 4 box-type writes,"
echo "4 overwrites, one fsync); before each run (not timed) the bytes after mdat are written back."
python3 bench/measure.py --runs "${RUNS:-20}" --title "scrub --in-place (location)" \
    --before "python3 bench/scrub_padded.py restore $work/big.mov $work/big.tail && python3 bench/scrub_padded.py restore $work/small.mov $work/small.tail" \
    --cmd "4.3 GB" "$KT scrub --in-place $work/big.mov" \
    --cmd "2.5 MB" "$KT scrub --in-place $work/small.mov" \
    --cmd "4.3 GB, to a new file" "$KT scrub $work/big.mov $work/copy.mov --force" \
    --cmd "start-up only" "$KT --help"
echo
echo "\"to a new file\" writes the whole 4.3 GB copy (its hole stays a hole: copy_file_range), for scale."
