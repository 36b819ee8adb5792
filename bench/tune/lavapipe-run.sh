#!/usr/bin/env bash
# The tuning-speed benchmark on lavapipe, as run for docs/results/lavapipe/tune-speed:
#   bash bench/tune/lavapipe-run.sh VKOCC BENCH_DIR OUT_DIR
# a small spec-constant space (SAXPY-P over 256 Ki floats, 24 configurations) and KTT's vadd, 3 processes each,
# every configuration re-timed at the end; the device's floor: one configuration against itself, 3 processes.
set -u
V=$1; BD=$2; R=$3
mkdir -p "$R"
export XDG_CACHE_HOME=$R/cache
B="$BD/bench_tune.sh"
{ date -u; uptime; nproc; echo "LP_NUM_THREADS=${LP_NUM_THREADS:-unset}"; } > "$R/host.txt"
for p in 1 2 3; do
  $B "$V" "$R" small-p$p "$BD/tune/saxpy/saxpy_small.json" 24 1 --confirm 24
  $B "$V" "$R" vadd-p$p "$BD/tune/vadd/vadd.json" 4 1 --confirm 4
  $B "$V" "$R" floor-p$p "$BD/tune/saxpy/saxpy_small.json" 1 1 --only WG=64 --only EPT=1 --only C=1
done
uptime >> "$R/host.txt"
