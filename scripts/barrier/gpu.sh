#!/bin/bash
# The device barrier on a GPU (run by the device machine from the repository root, binaries in $B): the barrier
# safety test (P: 100 runs; P+1 and P+P: 20 runs each, with how long a timed-out dispatch took), the
# multi-phase speedup and the persistent histogram at P. Everything lands in $OUT/barrier/ (+ a tarball).
set -u
B=${B:-gpurun-barrier}
R=$OUT/barrier
mkdir -p "$R"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/xc}
log() { echo "\$ $*" >> "$R/commands.txt"; }
run() { # run NAME CMD...: stdout to NAME, stderr to NAME.err, exit code and wall time logged
  local out=$1; shift; log "$* > $out"
  local t0=$(date +%s%N); "$@" > "$R/$out" 2> "$R/$out.err"; local rc=$?
  echo "  exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> "$R/commands.txt"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$R/nvidia-smi.csv" 2>&1
run devices.txt "$B/vkocc" devices
# P measured for the barrier kernel's pipeline (fresh, then cached for the runs after it)
run p-100.json "$B/vkocc" barrier-test --fresh --runs 100 --json
run p-100.txt "$B/vkocc" barrier-test --runs 100
P=$(python3 -c "import json; print(json.load(open('$R/p-100.json'))['P'])" 2>/dev/null || echo 0)
echo "P=$P" >> "$R/commands.txt"
run p1-20.json "$B/vkocc" barrier-test --extra 1 --runs 20 --bound-ms 200 --json
run p1-20.txt "$B/vkocc" barrier-test --extra 1 --runs 3 --bound-ms 200
run p1-bound1000.json "$B/vkocc" barrier-test --extra 1 --runs 3 --bound-ms 1000 --json
[ "$P" -gt 0 ] && run p2p-20.json "$B/vkocc" barrier-test --extra "$P" --runs 20 --bound-ms 200 --json
# a larger workgroup: another pipeline, another P
run p-wg256-100.json "$B/vkocc" barrier-test --wg 256 --runs 100 --json
run p1-wg256-20.json "$B/vkocc" barrier-test --wg 256 --extra 1 --runs 20 --bound-ms 200 --json
run bench.txt "$B/bench_barrier" --json "$R/bench.json"
run bench-small.txt "$B/bench_barrier" --only stencil --n 65536 --steps 1000 --json "$R/bench-small.json"
# the fused stencil with P/8 workgroups (one per SM at wg 256 on an H100): fewer waiters per barrier
run bench-div8.txt "$B/bench_barrier" --only stencil --fused-div 8 --json "$R/bench-div8.json"
run bench-small-div8.txt "$B/bench_barrier" --only stencil --n 65536 --steps 1000 --fused-div 8 --json "$R/bench-small-div8.json"
# helper tune's persistent histogram (kernels/histogram/histogram.comp, branch tune) at its best H100 configuration
# (wg 512, grain 16, 1 copy; 32 Mi keys as tuned): P of that pipeline against tune's counts and a sweep
TH=${TH:-$B/tune_histogram.comp}
[ -f "$TH" ] && run bench-tune-hist.txt "$B/bench_barrier" --only histogram --tune-hist "$TH" --tune-config 512,16,1 \
  --keys 33554432 --json "$R/bench-tune-hist.json"
tar czf "$OUT/barrier.tar.gz" -C "$OUT" barrier
