#!/usr/bin/env bash
# KTT's vadd and vkocc's on lavapipe side by side, in interleaved rounds, so that a shared machine's load falls on
# every program alike:
#   bash bench/tune/lavapipe-ktt.sh KTT_VADD BEFORE_VKOCC AFTER_VKOCC BENCH_DIR OUT_DIR [ROUNDS] [FINGERPRINT]
# KTT_VADD: KTT's Tutorials/03KernelTuning Vulkan program (03KernelTuningVulkan, run as `KTT_VADD 0 KERNEL`: device 0,
# the 4 work-group sizes of multiply_work_group_size, one dispatch each, its reference compared). BEFORE_VKOCC,
# AFTER_VKOCC: `vkocc tune BENCH_DIR/tune/vadd/vadd.json` (the same kernel, sizes and reference) with its defaults and
# --budget 4 --seed 1 --strategy random_sample (bench/bench_tune.sh). A program given as "-" is skipped.
# Each process starts with an empty cache (XDG_CACHE_HOME: Mesa's shader cache and vkocc's pipelines, P and clock);
# FINGERPRINT, when given, is copied into vkocc's part of it first: the device's fingerprint is measured once per
# device and cached (a first `vkocc tune` on a machine measures it, 6-12 s on this one), so the rounds time a tuning
# of a known device. Per round: KTT, before, after. Every process's wall (process start included) goes to
# OUT_DIR/walls.txt with the load average at its start and end; vkocc's documents to OUT_DIR/{before,after}.
set -u
K=$1; B=$2; A=$3; BD=$4; R=$5; N=${6:-5}; FP=${7:-}
mkdir -p "$R/before" "$R/after" "$R/ktt"
{ date -u; uptime; nproc; echo "LP_NUM_THREADS=${LP_NUM_THREADS:-unset}"; } > "$R/host.txt"
fresh() {
  rm -rf "$R/cache"
  mkdir -p "$R/cache/vkocc"
  [ -n "$FP" ] && cp "$FP" "$R/cache/vkocc/"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }
for p in $(seq 1 "$N"); do
  if [ "$K" != - ]; then
    fresh
    l0=$(load)
    t0=$(date +%s%N)
    (cd "$R/ktt" && XDG_CACHE_HOME=$R/cache "$K" 0 "$BD/tune/vadd/VulkanKernel.glsl" > "ktt-p$p.log" 2>&1)
    rc=$?
    t1=$(date +%s%N)
    echo "ktt p$p wall_ms $(( (t1 - t0) / 1000000 )) rc $rc load_start $l0 load_end $(load)" >> "$R/walls.txt"
  fi
  for side in before after; do
    v=$B; [ "$side" = after ] && v=$A
    [ "$v" = - ] && continue
    fresh
    l0=$(load)
    XDG_CACHE_HOME=$R/cache "$BD/bench_tune.sh" "$v" "$R/$side" "vadd-p$p" "$BD/tune/vadd/vadd.json" 4 1 2> /dev/null
    echo "$side p$p wall_ms $(sed -n 's/^wall_ms //p' "$R/$side/vadd-p$p.wall") rc $(sed -n 's/^rc //p' "$R/$side/vadd-p$p.wall") load_start $l0 load_end $(load)" >> "$R/walls.txt"
  done
done
rm -rf "$R/cache"
uptime >> "$R/host.txt"
