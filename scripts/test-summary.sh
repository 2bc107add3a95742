#!/usr/bin/env bash
# Prints what a `swift test --parallel --xunit-output FILE` run did: tests, failures, the sum of the
# tests' own times (each measured in its own worker process) and the slowest tests.
#   scripts/test-summary.sh FILE [COUNT]
set -euo pipefail
file="$1"; count="${2:-10}"
[ -f "$file" ] || { echo "test-summary: no $file" >&2; exit 66; }
grep -o '<testcase classname="[^"]*" name="[^"]*" time="[^"]*"' "$file" |
    sed -E 's/<testcase classname="KeepTrackTests\.([^"]*)" name="([^"]*)" time="([^"]*)"/\3 \1.\2/' |
    sort -rn > "$file.times"
failures=$(grep -o '<testsuite [^>]*failures="[0-9]*"' "$file" | sed -E 's/.*failures="([0-9]*)"/\1/' | head -1)
awk -v failures="${failures:-?}" '{ total += $1; n++ } END { printf "tests: %d run in parallel workers, %s failures, %.1f s of test time in all; slowest:\n", n, failures, total }' "$file.times"
head -n "$count" "$file.times" | awk '{ printf "  %7.1f s  %s\n", $1, $2 }'
