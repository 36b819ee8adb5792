#!/usr/bin/env bash
# The device's characterization as a user gets it: devices, CUDA's figures, the fingerprint measured twice
# from scratch (it must repeat exactly) and once from the cache, the default surface with a cold and a warm
# pipeline cache, the surface benchmark (BUILD_DIR/bench/bench_surface), the calculator tables and the plots.
# Record: docs/results/h100/ (fingerprint/, surface/, the PNGs) and docs/results/h200/.
#   scripts/gpu/characterize.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
gpu_init "$@" || gpu_usage
gpu_smi
gpu_cuda_props
"$bin" devices --json >"$out/devices.json"
"$bin" fingerprint --fresh -o "$out/fingerprint-1.json" >"$out/fingerprint-1.txt" 2>&1
"$bin" fingerprint --fresh -o "$out/fingerprint-2.json" >"$out/fingerprint-2.txt" 2>&1
"$bin" fingerprint >"$out/fingerprint-cached.txt" 2>&1
rm -rf "$XDG_CACHE_HOME/vkocc" # the surface below starts with a cold pipeline cache
"$bin" surface -o "$out/surface-cold.json" >"$out/surface-cold.txt" 2>&1
"$bin" surface -o "$out/surface.json" >"$out/surface.txt" 2>&1
if [ -x "$build/bench/bench_surface" ]; then
  "$build/bench/bench_surface" --runs 3 --json "$out/bench-surface.json" | tee "$out/bench-surface.txt"
fi
"$bin" calc --table --from "$out/surface.json" >"$out/calc-table.txt"
"$bin" calc --table --shmem 16K --from "$out/surface.json" --csv >"$out/calc-table-16k.csv"
for p in "surface surface.png" "wg wg.png --shmem 0,8K,16K,32K" "wg wg.svg --shmem 0,8K,16K,32K"; do
  set -- $p
  kind=$1 file=$2; shift 2
  "$bin" plot "$kind" "$out/surface.json" "$@" -o "$out/$file" 2>>"$out/plots.err" || true
done
cat "$out/fingerprint-1.txt"; grep -h "cluster" "$out"/fingerprint-*.txt; head -2 "$out/fingerprint-cached.txt"
tail -2 "$out/surface.txt"
gpu_smi
