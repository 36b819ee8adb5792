#!/usr/bin/env bash
# P of the pipeline as written through augmentation variants, on a lent NVIDIA GPU: the register-pressure
# experiment of docs/results/h100/registers (scripts/gpu/registers.sh, step c) with the compact default
# augmentation, the variants it tries where the statistics differ, and the earlier (unrolled) augmentation beside.
#   scripts/gpu/registers-variants.sh VKOCC_BINARY OUT_DIR
# VKOCC_BINARY: the vkocc CLI (e.g. BUILD/vkocc of a Release build: cmake -S . -B BUILD -DCMAKE_BUILD_TYPE=Release
# -DVKOCC_WITH_VIEWER=OFF -DVKOCC_WITH_GLFW=OFF -DBUILD_TESTING=OFF && make -C BUILD vkocc-cli). Run from the
# repository (it reads tests/shaders/regpressure.comp from there). Everything goes under OUT_DIR; each step goes on when
# one fails; about 3 minutes on an H100 (a step is skipped when the run nears 4 minutes):
#  (a) the fingerprint of both queue families (the per-SM model the prediction uses; a fresh cache under OUT_DIR):
#      the first also measures the register axis itself (its 27-point register sweep; fingerprint-compute.txt's
#      "registers:" line and register_model), the second reuses that cached register model;
#  (b) probe --shader regpressure.comp --method comb --json at 14 live-value counts x workgroups 64, 256, 1024 on
#      both families, default augmentation (compact): shader-{compute,graphics}/wgW-nN.json;
#  (c) the same on the compute-only family with --augmentation unrolled (vkocc's earlier default):
#      unrolled-compute/wgW-nN.json, for the binary sizes and what that augmentation changed;
#  (d) summary.txt (python3 scripts/gpu/registers-variants.py OUT_DIR): per point the written / augmented / variant
#      statistics (registers, shared bytes, binary size), the evidence that decided P, and the counts.
set -u
[ $# -ge 2 ] || { echo "usage: $(basename "$0") VKOCC_BINARY OUT_DIR" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" 2>/dev/null && pwd)/$(basename "$1")
[ -x "$bin" ] && [ -f "$bin" ] || { echo "registers-variants.sh: $1 is not an executable" >&2; exit 2; }
mkdir -p "$2" && out=$(cd "$2" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.." # the repository root: tests/shaders/regpressure.comp
# the lent NVIDIA machines keep the driver's ICD outside the loader's search (as scripts/gpu/lib.sh does)
if [ -z "${VK_DRIVER_FILES:-}" ]; then
  for f in ${NVIDIA_ICD:-} /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
    if [ -f "$f" ]; then
      export VK_DRIVER_FILES=$f
      g=$(dirname "$(dirname "$(dirname "$f")")")/glvnd/egl_vendor.d/10_nvidia.json
      [ -f "$g" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$g
      break
    fi
  done
fi
{ echo "runner: $(basename "$0") $*"; echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  date -u +"start: %Y-%m-%dT%H:%M:%SZ"; } > "$out/runner.txt"
export XDG_CACHE_HOME="$out/cache"
mkdir -p "$XDG_CACHE_HOME"
log="$out/steps.log"
t0=$(date +%s)
step() { echo "$(date -u +%H:%M:%S) $(( $(date +%s) - t0 )) s: $*" | tee -a "$log"; }
late() { [ $(( $(date +%s) - t0 )) -ge "$1" ]; }
step "start; $($bin --version 2>&1 | head -1)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$out/nvidia-smi.csv" 2>&1
$bin devices > "$out/devices.txt" 2>&1; step "devices rc=$?"

# (a) the per-SM model: both families' fingerprints and the register file (one small sweep: the device's)
for q in compute graphics; do
  timeout 90 $bin fingerprint --queue $q -o "$out/fingerprint-$q.json" > "$out/fingerprint-$q.txt" 2>&1
  step "fingerprint --queue $q rc=$? ($(grep -m1 '^registers:' "$out/fingerprint-$q.txt"))"
done
cp "$XDG_CACHE_HOME"/vkocc/registers-*.json "$out/" 2>/dev/null # the sweep the fingerprint measured

# (b) the register-pressure shader, default augmentation, both families; (c) the earlier augmentation
probe_all() { # DIR QUEUE [extra args]
  local dir=$1 q=$2; shift 2
  mkdir -p "$out/$dir"
  for wg in 64 256 1024; do
    for n in 0 8 16 24 32 48 64 80 96 112 128 144 160 192; do
      if late 225; then echo "$q wg $wg n $n skipped (the run nears 4 minutes)" >> "$out/$dir/rc.txt"; continue; fi
      f="$out/$dir/wg$wg-n$n"
      timeout 30 $bin probe --shader tests/shaders/regpressure.comp --spec 0=$wg --spec 1=$n --queue $q --no-cache \
        --method comb --json "$@" > "$f.json" 2> "$f.err"
      echo "$q wg $wg n $n rc=$?" >> "$out/$dir/rc.txt"
    done
  done
}
probe_all shader-compute compute; step "shader (compute, compact)"
if late 150; then step "skipped: shader (graphics)"; else probe_all shader-graphics graphics; step "shader (graphics, compact)"; fi
if late 165; then step "skipped: unrolled (compute)"; else probe_all unrolled-compute compute --augmentation unrolled; step "shader (compute, unrolled)"; fi

# (d) the summary
if command -v python3 >/dev/null; then
  python3 scripts/gpu/registers-variants.py "$out" > "$out/summary.txt" 2>&1; step "summary rc=$?"
else
  step "summary: no python3 here; run python3 scripts/gpu/registers-variants.py $out where the results land"
fi
step "done"
