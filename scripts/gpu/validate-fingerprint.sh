#!/usr/bin/env bash
# Issues 4 and 5 on a lent NVIDIA GPU: the default surface (cold, warm) and its benchmark, CUDA's figures,
# and the fingerprint measured twice from scratch (it must repeat exactly).
# Run from the repository root on the GPU machine:  source .gpu/enter.sh && scripts/gpu/validate-fingerprint.sh OUTDIR
set -uo pipefail
out=${1:?output directory}
bin=build-gpu/vkocc
mkdir -p "$out"
export XDG_CACHE_HOME=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/nvidia-smi.csv"
nvcc -O2 -arch=sm_90 -o /tmp/cuda_props scripts/gpu/cuda_props.cu && /tmp/cuda_props > "$out/cuda.json"
$bin devices --json > "$out/devices.json"
$bin fingerprint --fresh -o "$out/fingerprint-1.json" > "$out/fingerprint-1.txt" 2>&1
$bin fingerprint --fresh -o "$out/fingerprint-2.json" > "$out/fingerprint-2.txt" 2>&1
$bin fingerprint > "$out/fingerprint-cached.txt" 2>&1
$bin surface -o "$out/surface-cold.json" > "$out/surface-cold.txt" 2>&1
$bin surface -o "$out/surface.json" > "$out/surface.txt" 2>&1
build-gpu/bench/bench_surface --runs 3 --json "$out/bench-surface.json" | tee "$out/bench-surface.txt"
$bin calc --table --from "$out/surface.json" > "$out/calc-table.txt"
cat "$out/fingerprint-1.txt"; grep -h "cluster ID" "$out"/fingerprint-*.txt; head -2 "$out/fingerprint-cached.txt"
tail -2 "$out/surface.txt"
nvidia-smi --query-gpu=clocks.sm --format=csv >> "$out/nvidia-smi.csv"
