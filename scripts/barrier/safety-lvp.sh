#!/bin/bash
# The device barrier on lavapipe: the barrier safety test with P measured (LP_NUM_THREADS=2, P = 2): 100 runs with P,
# 20 runs with P + 1 (how long until the timeout fired), and the benchmarks. usage: safety-lvp.sh BUILD_DIR OUT_DIR
set -u
BUILD=${1:?build dir}; R=${2:?output dir}
mkdir -p "$R"
export VKOCC_DEVICE=llvmpipe LP_NUM_THREADS=${LP_NUM_THREADS:-2} XDG_CACHE_HOME=$(mktemp -d)
: > "$R/commands.txt"
run() {
  local out=$1; shift; echo "\$ LP_NUM_THREADS=$LP_NUM_THREADS $* > $out   (load: $(cut -d' ' -f1-3 /proc/loadavg))" >> "$R/commands.txt"
  local t0=$(date +%s%N); "$@" > "$R/$out" 2> "$R/$out.err"; local rc=$?
  echo "  exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> "$R/commands.txt"
}
run p-100.json "$BUILD/vkocc" barrier-test --fresh --runs 100 --json
run p-100.txt "$BUILD/vkocc" barrier-test --runs 100
run p1-20.json "$BUILD/vkocc" barrier-test --extra 1 --runs 20 --json
run p1-20.txt "$BUILD/vkocc" barrier-test --extra 1 --runs 3
run p2p-5.json "$BUILD/vkocc" barrier-test --extra 2 --runs 5 --json
run bench.txt "$BUILD/bench/bench_barrier" --json "$R/bench.json"
run bench-wg64.txt "$BUILD/bench/bench_barrier" --wg 64 --only stencil --json "$R/bench-wg64.json"
rm -rf "$XDG_CACHE_HOME"
