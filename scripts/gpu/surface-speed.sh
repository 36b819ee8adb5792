#!/usr/bin/env bash
# Adaptive against full surface: bench_surface (points, pipelines, GPU ms, wall ms, cold and warm pipeline
# caches, RUNS runs, medians; BUILD_DIR/bench/bench_surface), the identical-surface check, the CLI surface in
# both modes, the fingerprint fresh and cached (end to end, 10 runs) and --device all on surface and
# fingerprint. Record: docs/results/h100/surface-speed/.
#   scripts/gpu/surface-speed.sh BUILD_DIR OUT_DIR [RUNS]      (RUNS default 5)
source "$(dirname "$0")/lib.sh"
gpu_init "$@" || gpu_usage "[RUNS]"
runs=${3:-5}
mkdir -p "$out/cmp" "$out/all"
ms() { echo $(( $(date +%s%N) / 1000000 )); }
{
  echo "== devices"; "$bin" devices
  echo "== bench_surface --runs $runs"
  "$build/bench/bench_surface" --runs "$runs" --save "$out/cmp" --json "$out/bench.json"
  echo "== vkocc surface (adaptive), cold then warm pipeline cache"
  for k in cold warm; do
    t0=$(ms); "$bin" surface -o "$out/surface-adaptive-$k.json" > "$out/surface-adaptive-$k.txt"; rc=$?; t1=$(ms)
    echo "surface adaptive $k: exit $rc, $((t1 - t0)) ms end to end"; head -1 "$out/surface-adaptive-$k.txt"
  done
  t0=$(ms); "$bin" surface --full -o "$out/surface-full.json" > "$out/surface-full.txt"; rc=$?; t1=$(ms)
  echo "surface --full warm: exit $rc, $((t1 - t0)) ms end to end"; head -1 "$out/surface-full.txt"
  echo "== fingerprint: fresh, then cached 10 times (end to end)"
  t0=$(ms); "$bin" fingerprint --fresh -o "$out/fingerprint.json" > "$out/fingerprint.txt"; rc=$?; t1=$(ms)
  echo "fingerprint --fresh: exit $rc, $((t1 - t0)) ms"
  for i in $(seq 1 10); do
    t0=$(ms); "$bin" fingerprint > /dev/null; rc=$?; t1=$(ms); echo "fingerprint cached $i: exit $rc, $((t1 - t0)) ms"
  done
  echo "== vkocc devices (the Vulkan start-up a cached fingerprint also pays), 5 times"
  for i in 1 2 3 4 5; do t0=$(ms); "$bin" devices > /dev/null; echo "devices $i: $(( $(ms) - t0 )) ms"; done
  echo "== --device all"
  t0=$(ms); "$bin" surface --device all -o "$out/all/surface" ; echo "exit $?, $(( $(ms) - t0 )) ms"
  t0=$(ms); "$bin" fingerprint --device all -o "$out/all/fingerprint"; echo "exit $?, $(( $(ms) - t0 )) ms"
} 2>&1 | tee "$out/log.txt"
