#!/usr/bin/env bash
# Before/after on lavapipe in interleaved pairs, so that a shared machine's load falls on both binaries alike:
#   bash bench/tune/lavapipe-pairs.sh BEFORE_VKOCC AFTER_VKOCC BENCH_DIR OUT_DIR [PAIRS]
# per pair: the small spec-constant space (SAXPY-P over 256 Ki floats, 24 configurations, every one re-timed at the
# end) and KTT's vadd (4 configurations), before then after; each process with an empty cache (XDG_CACHE_HOME), so
# that P, pipelines and the clock are had as in a first tuning. The load average is logged beside every run
# (load.txt) and host.txt holds the machine. Results: OUT_DIR/before, OUT_DIR/after (bench_tune_report.py reads each).
set -u
B=$1; A=$2; BD=$3; R=$4; N=${5:-3}
mkdir -p "$R/before" "$R/after"
{ date -u; uptime; nproc; echo "LP_NUM_THREADS=${LP_NUM_THREADS:-unset}"; } > "$R/host.txt"
one() { # VKOCC SIDE NAME SPEC COUNT [options]
  local v=$1 side=$2 name=$3; shift 3
  rm -rf "$R/cache"
  echo "$(date -u +%T) $side/$name start $(cut -d' ' -f1-3 /proc/loadavg)" >> "$R/load.txt"
  XDG_CACHE_HOME=$R/cache "$BD/bench_tune.sh" "$v" "$R/$side" "$name" "$@"
  echo "$(date -u +%T) $side/$name end $(cut -d' ' -f1-3 /proc/loadavg)" >> "$R/load.txt"
}
for p in $(seq 1 "$N"); do
  for side in before after; do
    v=$B; [ "$side" = after ] && v=$A
    one "$v" "$side" "small-p$p" "$BD/tune/saxpy/saxpy_small.json" 24 1 --confirm 24
    one "$v" "$side" "vadd-p$p" "$BD/tune/vadd/vadd.json" 4 1 --confirm 4
  done
done
rm -rf "$R/cache"
uptime >> "$R/host.txt"
