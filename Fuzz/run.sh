#!/usr/bin/env bash
# Builds the libFuzzer harness (parser, track model and inspect on every input, then one of: remux
# planner, lint, the fix / strip-spatial / select / extract edits, chosen from the input:
# FuzzTargets.exerciseOne; Annex B streams go to the H.264/HEVC parameter-set parser) with AddressSanitizer and the
# structure-aware box mutator (Fuzz/BoxMutator.swift), and runs it.
#   Fuzz/run.sh [SECONDS]   fuzz for SECONDS (default 60) from the committed corpus and seeds
#   Fuzz/run.sh replay      run only the committed inputs (Fuzz/regressions, Fuzz/corpus, Fuzz/seeds)
#   Fuzz/run.sh merge       minimise Fuzz/corpus: keep the inputs that add coverage (commit the result)
# Environment: FUZZ_JOBS=N runs N fuzzing processes (default 1); FUZZ_BIG_SEEDS=1 adds the real
# recordings beside the checkout (MBs each: far fewer executions per second).
# Seeds (Fuzz/seeds, a few KB each, every layout we read) come from Fuzz/make-seeds.sh.
# Crashes are written to Fuzz/out/; minimise one with `Fuzz/out/keeptrack-fuzz -minimize_crash=1 FILE`
# and commit it under Fuzz/regressions/ (it then also runs as a unit test, FuzzRegressionTests).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-60}"
out=Fuzz/out
mkdir -p "$out/corpus" "$out/seeds" Fuzz/corpus
binary="$out/keeptrack-fuzz"
# The core library plus the codec layer's (pure Swift) parameter-set parser.
sources="$(find Sources/KeepTrack -name '*.swift' | sort) Sources/KeepTrackCodec/VideoParameterSets.swift"
if [ ! -x "$binary" ] || [ -n "$(find Sources/KeepTrack Sources/KeepTrackCodec/VideoParameterSets.swift Fuzz -newer "$binary" -name '*.swift' | head -1)" ]; then
    echo "fuzz: building harness"
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name KeepTrack \
        $sources Fuzz/FuzzEntry.swift Fuzz/ParameterSetTarget.swift Fuzz/BoxMutator.swift -o "$binary" 2> "$out/build.log" || { cat "$out/build.log"; exit 1; }
fi
# AddressSanitizer records a stack trace for every allocation by default: with this allocation-heavy
# Swift code that was ~15 % of all fuzzing time (perf). A crash report still shows the crashing stack;
# replay an input with ASAN_OPTIONS=malloc_context_size=30 to see where its memory was allocated.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}"
options=(-max_len=262144 -rss_limit_mb=2048 -timeout=5 -artifact_prefix="$out/" -print_final_stats=1)
case "$mode" in
replay)
    "$binary" -runs=0 "${options[@]}" Fuzz/regressions Fuzz/corpus Fuzz/seeds 2>&1 | grep -E "^(#[0-9]+ *(INITED|DONE)|Done|==[0-9]+==ERROR|SUMMARY)" || true
    exit 0 ;;
merge)
    rm -rf "$out/merged"; mkdir -p "$out/merged"
    "$binary" -merge=1 "${options[@]}" "$out/merged" Fuzz/corpus "$out/corpus" Fuzz/seeds 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
    rm -rf Fuzz/corpus; mv "$out/merged" Fuzz/corpus
    echo "fuzz: Fuzz/corpus now holds $(ls Fuzz/corpus | wc -l) inputs, $(du -sh Fuzz/corpus | cut -f1)"
    exit 0 ;;
esac
if [ "${FUZZ_BIG_SEEDS:-0}" = 1 ] && [ -d ../shared/fixtures ]; then
    cp -f ../shared/fixtures/*.mov ../shared/fixtures/*.mp4 "$out/seeds/" 2>/dev/null || true
fi
jobs=${FUZZ_JOBS:-1}
echo "fuzz: running for ${mode}s ($jobs job(s))"
log="$out/fuzz.log"
if [ "$jobs" -gt 1 ]; then
    # Each worker writes fuzz-N.log; libFuzzer's -jobs mode shares the corpus directory.
    (cd "$out" && ./keeptrack-fuzz corpus ../corpus ../seeds ../../Fuzz/corpus ../../Fuzz/seeds ../../Fuzz/regressions \
        -max_total_time="$mode" -jobs="$jobs" -workers="$jobs" -max_len=262144 -rss_limit_mb=2048 -timeout=5 \
        -artifact_prefix=./ -print_final_stats=1 > "fuzz.log" 2>&1) || true
    cat "$out"/fuzz-*.log > "$log" 2>/dev/null || true
else
    "$binary" "$out/corpus" "$out/seeds" Fuzz/corpus Fuzz/seeds Fuzz/regressions -max_total_time="$mode" "${options[@]}" > "$log" 2>&1 || true
fi
grep -E "^(#[0-9]+ *DONE|Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss|stat::new_units_added|INFO: seed corpus|==[0-9]+==ERROR|SUMMARY)" "$log" || true
if compgen -G "$out/crash-*" >/dev/null || compgen -G "$out/timeout-*" >/dev/null || compgen -G "$out/oom-*" >/dev/null; then
    echo "fuzz: FOUND a failing input:"; ls "$out"/crash-* "$out"/timeout-* "$out"/oom-* 2>/dev/null
    exit 1
fi
echo "fuzz: no crash"
