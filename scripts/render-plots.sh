#!/bin/sh
# Renders every plot kind from the committed documents: lavapipe (docs/plots/lavapipe/, written by
# `vkocc surface`, `fingerprint`, `probe --raw` and `surface --shader --vary` on Mesa 22.3.6 with 2 threads)
# and the H100 (docs/results/h100/). Usage: scripts/render-plots.sh VKOCC OUT_DIR
set -eu
[ $# -eq 2 ] || { echo "usage: $0 VKOCC OUT_DIR" >&2; exit 2; }
vkocc=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
lvp=$root/docs/plots/lavapipe h100=$root/docs/results/h100
mkdir -p "$out"
"$vkocc" plot surface "$lvp/surface.json" -o "$out/lavapipe-surface.png"
"$vkocc" plot wg "$lvp/surface.json" -o "$out/lavapipe-wg.png"
"$vkocc" plot comb "$lvp/raw-comb.json" -o "$out/lavapipe-comb.png"
"$vkocc" plot surface "$lvp/shader-surface.json" -o "$out/lavapipe-shader-surface.png"
"$vkocc" plot compare "$lvp/fingerprint.json" "$h100/fingerprint/fingerprint-1.json" -o "$out/compare-lavapipe-h100.png"
"$vkocc" plot surface "$h100/surface/surface.json" -o "$out/h100-surface.png"
"$vkocc" plot surface "$h100/surface-speed/surface-adaptive.json" -o "$out/h100-surface-adaptive.png"
"$vkocc" plot wg "$h100/surface-speed/surface-adaptive.json" -o "$out/h100-wg.png"
"$vkocc" plot comb "$h100/raw-comb-256-16384.json" -o "$out/h100-comb.png"
"$vkocc" plot surface "$h100/surface-speed/surface-adaptive.json" -o "$out/h100-surface-adaptive.pdf"
"$vkocc" plot surface "$h100/surface-speed/surface-adaptive.json" -o "$out/h100-surface-adaptive.svg"
