# Sourced by benchmarks, not one itself (bench/run.sh skips it): `source "$(dirname "$0")/lib.sh" NAME`
# sets strict mode, works from the checkout, and sets KT (the release keeptrack), RUNS (default 5), work
# (a fresh folder under BENCH_DIR, default /tmp, removed on exit) and real (the iPhone 16 Pro recording).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
KT=$PWD/.build/release/keeptrack
RUNS=${RUNS:-5}
work=$(mktemp -d "${BENCH_DIR:-/tmp}/keeptrack-bench-$1.XXXXXX")
trap 'rm -rf "$work"' EXIT
real=../shared/fixtures/iphone16pro-spatial-audio.mov
