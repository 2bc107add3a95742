#!/usr/bin/env bash
# Builds the libFuzzer harness (parser and track model on every input, then one of: the inspect report, remux
# planner, lint, the fix / strip-spatial / select / extract edits, chosen from the input:
# FuzzTargets.exerciseOne; Annex B streams go to the H.264/HEVC parameter-set parser) with AddressSanitizer and the
# structure-aware box mutator (Fuzz/BoxMutator.swift), and runs it.
#   Fuzz/run.sh [SECONDS]   fuzz for SECONDS (default 60) from the committed corpus and seeds
#   Fuzz/run.sh build       only build the harness (make test builds it beside the test build, at nice 19)
#   Fuzz/run.sh replay      run only the committed inputs (Fuzz/regressions, Fuzz/corpus, Fuzz/seeds)
#   Fuzz/run.sh merge       minimise Fuzz/corpus: keep one input per edge reached (commit the result)
# Environment: FUZZ_JOBS=N runs N fuzzing processes (default 1); FUZZ_RUNS=N stops each process after N executions
# (a long run's floor: FUZZ_JOBS=2 FUZZ_RUNS=5000000 is 10^7 in all, SECONDS then only an upper bound); FUZZ_RELOAD=S
# how often the processes of a FUZZ_JOBS run read each other's finds (30 s); FUZZ_TIMEOUT=S per-input wall limit (5); FUZZ_ENTROPIC=0
# turns libFuzzer's entropic scheduling off (faster on the seeds, slower and shallower later); FUZZ_BIG_SEEDS=1 adds the real
# recordings beside the checkout (MBs each: far fewer executions per second).
# Seeds (Fuzz/seeds, a few KB each, every layout we read) come from Fuzz/make-seeds.sh.
# Crashes are written to Fuzz/out/; minimise one with `Fuzz/out/keeptrack-fuzz -minimize_crash=1 FILE`
# and commit it under Fuzz/regressions/ (it then also runs as a unit test, FuzzRegressionTests).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-60}"
out=Fuzz/out
mkdir -p "$out/corpus" "$out/seeds" Fuzz/corpus
# FUZZ_ASAN=1 (default): AddressSanitizer + libFuzzer (the smoke in `make test`, crash replays).
# FUZZ_ASAN=0: libFuzzer alone, with Swift's own checks (bounds, overflow, exclusivity: every one a
# trap libFuzzer reports as a crash): ~3x the executions per second, for long runs (BENCHMARKS.md).
asan="${FUZZ_ASAN:-1}"
if [ "$asan" = 0 ]; then binary="$out/keeptrack-fuzz-noasan"; sanitize=fuzzer; else binary="$out/keeptrack-fuzz"; sanitize=fuzzer,address; fi
# The core library plus the codec layer's (pure Swift) parameter-set parser, one module, whole-module
# optimised (as the release build is: cross-file specialisation and inlining).
sources="$(find Sources/KeepTrack -name '*.swift' | sort) Sources/KeepTrackCodec/VideoParameterSets.swift"
if [ ! -x "$binary" ] || [ -n "$(find Sources/KeepTrack Sources/KeepTrackCodec/VideoParameterSets.swift Fuzz -newer "$binary" -name '*.swift' | head -1)" ]; then
    echo "fuzz: building harness ($sanitize)"
    # The mutator is not code under test: its own module, without coverage or sanitizer
    # instrumentation (instrumented, it cost a fifth of the CPU and counted its own edges).
    swiftc -parse-as-library -O -wmo -module-name KeepTrackFuzzMutator -c Fuzz/BoxMutator.swift -o "$out/mutator.o" \
        2> "$out/build.log" || { cat "$out/build.log"; exit 1; }
    # -num-threads: LLVM's code generation of the whole-module build spread over the cores (as SwiftPM's
    # release build does); the same optimised code, in half the wall time on 2 cores (make test).
    swiftc -sanitize="$sanitize" -parse-as-library -O -wmo -num-threads "$(nproc 2>/dev/null || echo 2)" -module-name KeepTrack \
        $sources Fuzz/FuzzEntry.swift Fuzz/ParameterSetTarget.swift "$out/mutator.o" -o "$binary" 2>> "$out/build.log" || { cat "$out/build.log"; exit 1; }
fi
# FUZZ_TIMEOUT (seconds, default 5) is wall time: a run at `nice -n 19` beside other work waits for a core,
# so a long run there takes a larger one and reports libFuzzer's slowest unit instead (BENCHMARKS.md).
timeout="${FUZZ_TIMEOUT:-5}"
# FUZZ_ENTROPIC=0 turns libFuzzer's entropic input scheduling off. On the seeds alone that runs a third
# more executions (2,270-2,430 against 1,670-1,740 per CPU second, 20,000 runs, the same coverage), but
# from a grown corpus it ran 416 against 629 a second with less coverage (3 min each; BENCHMARKS.md): on.
entropic="${FUZZ_ENTROPIC:-1}"
options=(-max_len=262144 -rss_limit_mb=2048 -timeout="$timeout" -entropic="$entropic" -artifact_prefix="$out/" -print_final_stats=1)
case "$mode" in
build)
    exit 0 ;;
replay)
    "$binary" -runs=0 "${options[@]}" Fuzz/regressions Fuzz/corpus Fuzz/seeds 2>&1 | grep -E "^(#[0-9]+ *(INITED|DONE)|Done|==[0-9]+==ERROR|SUMMARY)" || true
    exit 0 ;;
merge)
    rm -rf "$out/merged"; mkdir -p "$out/merged"
    # Edges only (-use_counters=0): keeping an input for every hit-count bucket kept 4,301 files (53 MB) of a
    # 10^7-execution run's finds; one input per edge keeps 1,046 (8.4 MB) with the same 6,963 edges.
    "$binary" -merge=1 -use_counters=0 "${options[@]}" "$out/merged" Fuzz/corpus "$out/corpus" Fuzz/seeds 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
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
    # FUZZ_RELOAD: libFuzzer rereads the shared corpus folder every second by default; with a grown folder (tens of
    # thousands of files) that listing was 9 % of each process (a long run on 2026-12-02), so every 30 s instead.
    (cd "$out" && "./$(basename "$binary")" corpus ../corpus ../seeds ../../Fuzz/corpus ../../Fuzz/seeds ../../Fuzz/regressions \
        -max_total_time="$mode" -jobs="$jobs" -workers="$jobs" -max_len=262144 -rss_limit_mb=2048 -timeout="$timeout" -entropic="$entropic" \
        -reload="${FUZZ_RELOAD:-30}" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -artifact_prefix=./ -print_final_stats=1 > "fuzz.log" 2>&1) || true
    cat "$out"/fuzz-*.log > "$log" 2>/dev/null || true
else
    "$binary" "$out/corpus" "$out/seeds" Fuzz/corpus Fuzz/seeds Fuzz/regressions -max_total_time="$mode" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} "${options[@]}" > "$log" 2>&1 || true
fi
grep -E "^(#[0-9]+ *DONE|Done|stat::average_exec_per_sec|stat::peak_rss|stat::new_units_added|stat::slowest_unit_time_sec|INFO: seed corpus|==[0-9]+==ERROR|SUMMARY)" "$log" || true
# The figure a long run reports: executions summed over every process (each prints its own final stats).
awk '/^stat::number_of_executed_units/ { total += $2; n++ } END { if (n) printf "fuzz: %d executions in total (%d process(es))\n", total, n }' "$log"
if compgen -G "$out/crash-*" >/dev/null || compgen -G "$out/timeout-*" >/dev/null || compgen -G "$out/oom-*" >/dev/null; then
    echo "fuzz: FOUND a failing input:"; ls "$out"/crash-* "$out"/timeout-* "$out"/oom-* 2>/dev/null
    exit 1
fi
echo "fuzz: no crash"
