#!/usr/bin/env bash
# Issue 4 on a lent NVIDIA GPU: the default surface with a cold and a warm pipeline cache, the surface
# benchmark, and CUDA's figures (also at a 100 KiB shared-memory carveout) for comparison.
# Run from the repository root on the GPU machine:  source .gpu/enter.sh && scripts/gpu/validate-surface.sh OUTDIR
set -uo pipefail
out=${1:?output directory}
bin=build-gpu/vkocc
mkdir -p "$out"
export XDG_CACHE_HOME=$(mktemp -d)
nvcc -O2 -arch=sm_90 -o /tmp/cuda_props scripts/gpu/cuda_props.cu && /tmp/cuda_props > "$out/cuda.json"
$bin surface -o "$out/surface-cold.json" > "$out/surface-cold.txt" 2>&1
$bin surface -o "$out/surface.json" > "$out/surface.txt" 2>&1
tail -3 "$out/surface-cold.txt"; tail -3 "$out/surface.txt"
build-gpu/bench/bench_surface --runs 3 --json "$out/bench-surface.json" | tee "$out/bench-surface.txt"
$bin calc --table --from "$out/surface.json" > "$out/calc-table.txt"
$bin calc --table --shmem 16K --from "$out/surface.json" --csv > "$out/calc-table-16k.csv"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$out/nvidia-smi.csv"
