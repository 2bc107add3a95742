#!/usr/bin/env bash
# Builds the libFuzzer harness (parser, track model, inspect, lint, remux planner, the fix /
# strip-spatial / select / extract edits: FuzzTargets.exercise) with AddressSanitizer and runs it.
#   Fuzz/run.sh [SECONDS]   fuzz for SECONDS (default 60), seeded from fixtures and variants
#   Fuzz/run.sh replay      run only the committed regression corpus (Fuzz/regressions)
# Crashes are written to Fuzz/out/; minimise one with `Fuzz/out/keeptrack-fuzz -minimize_crash=1 FILE`
# and commit it under Fuzz/regressions/ (it then also runs as a unit test).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-60}"
out=Fuzz/out
mkdir -p "$out/corpus" "$out/seeds"
binary="$out/keeptrack-fuzz"
sources=$(find Sources/KeepTrack -name '*.swift' | sort)
if [ ! -x "$binary" ] || [ -n "$(find Sources/KeepTrack Fuzz/FuzzEntry.swift -newer "$binary" -name '*.swift' | head -1)" ]; then
    echo "fuzz: building harness"
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name KeepTrack \
        $sources Fuzz/FuzzEntry.swift -o "$binary" 2> "$out/build.log" || { cat "$out/build.log"; exit 1; }
fi
if [ "$mode" = "replay" ]; then
    if compgen -G "Fuzz/regressions/*" >/dev/null; then
        "$binary" -runs=0 Fuzz/regressions/* 2>&1 | tail -3
    fi
    exit 0
fi
# Seeds: the real recordings (beside the checkout; never committed) and synthetic variants.
if [ -d ../shared/fixtures ]; then cp -f ../shared/fixtures/*.mov ../shared/fixtures/*.mp4 "$out/seeds/" 2>/dev/null || true; fi
if [ ! -x .build/release/keeptrack ]; then swift build -c release --static-swift-stdlib >/dev/null; fi
for variant in iphone spatial-first mp4 co64 moov-first no-fall audio-only lpcm-spatial; do
    [ -f "$out/seeds/$variant" ] || .build/release/keeptrack fixture "$variant" "$out/seeds/$variant" >/dev/null
done
# Tiny versions of every variant (about 10 KB): many more executions per second reach lint and the edits.
for variant in $(.build/release/keeptrack fixture --help | sed -n 's/^Variants: //p' | tr -d '.' | tr ',' ' '); do
    [ -f "$out/seeds/tiny-$variant" ] || .build/release/keeptrack fixture "$variant" "$out/seeds/tiny-$variant" \
        --duration 0.1 --video-frame-bytes 16 >/dev/null
done
cp -f Fuzz/regressions/* "$out/seeds/" 2>/dev/null || true
echo "fuzz: running for ${mode}s"
"$binary" "$out/corpus" "$out/seeds" -max_total_time="$mode" -max_len=4194304 -rss_limit_mb=2048 -timeout=5 \
    -artifact_prefix="$out/" -print_final_stats=1 2>&1 | grep -E "^(#[0-9]+ *DONE|Done|stat::number_of_executed_units|stat::peak_rss|INFO: seed corpus|==[0-9]+==ERROR|SUMMARY)" || true
if compgen -G "$out/crash-*" >/dev/null || compgen -G "$out/timeout-*" >/dev/null || compgen -G "$out/oom-*" >/dev/null; then
    echo "fuzz: FOUND a failing input:"; ls "$out"/crash-* "$out"/timeout-* "$out"/oom-* 2>/dev/null
    exit 1
fi
echo "fuzz: no crash"
