#!/usr/bin/env bash
# The register axis on a lent NVIDIA GPU (docs/model.md "Registers", docs/shader.md "The pipeline as written").
#   scripts/gpu/registers.sh BUILD_DIR OUT_DIR
# BUILD_DIR holds the vkocc CLI (cmake -S . -B BUILD_DIR -DCMAKE_BUILD_TYPE=Release -DVKOCC_WITH_VIEWER=OFF
# -DVKOCC_WITH_GLFW=OFF -DBUILD_TESTING=OFF && make -C BUILD_DIR vkocc-cli); run from the repository root. Steps,
# each going on when one fails, everything under OUT_DIR:
#  (a) the device's fingerprint on both queue families (cached: probe --shader takes the per-SM model from it),
#      then the register surface on the default (compute-only) family: 6 workgroup sizes x 17 live-value counts
#      (0..256 step 16), JSON + text; then a smaller one on the graphics+compute family (same register file?);
#  (b) CUDA on the same machine: scripts/gpu/cuda_regs.cu (nvcc), cudaGetDeviceProperties and cuda_occupancy.h's
#      cudaOccMaxActiveBlocksPerMultiprocessor with numRegs = 1..255 at the same workgroup sizes, for a point-by-
#      point comparison with (a);
#  (c) tests/shaders/regpressure.comp (N floats live, 256 shared bytes) through probe --shader --json at 14 values
#      of N x 3 workgroup sizes on both queue families: the written and augmented statistics and P of the pipeline
#      as written (or why it cannot be established), to find points where augmentation changes the statistics;
#      at the points found there, --unmodified is not run (the kernel does no timed work).
set -u
build=${1:?build directory}
out=${2:?output directory}
bin=$build/vkocc
mkdir -p "$out"
export XDG_CACHE_HOME="$out/cache"
mkdir -p "$XDG_CACHE_HOME"
log="$out/steps.log"
step() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$log"; }
t0=$(date +%s)
WG=64,128,256,512,768,1024
step "start; vkocc $($bin --version 2>&1 | head -1)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$out/nvidia-smi.csv" 2>&1
$bin devices > "$out/devices.txt" 2>&1; step "devices rc=$?"

# (a) per-SM model of both families, then the register surface
for q in compute graphics; do
  $bin fingerprint --queue $q -o "$out/fingerprint-$q.json" > "$out/fingerprint-$q.txt" 2>&1
  step "fingerprint --queue $q rc=$? $(( $(date +%s) - t0 )) s"
done
$bin surface --registers --wg $WG --live 0-256:16 -o "$out/registers-compute.json" > "$out/registers-compute.txt" 2>&1
step "surface --registers (compute) rc=$? $(( $(date +%s) - t0 )) s"
cp "$XDG_CACHE_HOME"/vkocc/registers-*.json "$out/" 2>/dev/null
$bin surface --registers --queue graphics --wg 64,256,1024 --live 0-256:32 -o "$out/registers-graphics.json" \
  > "$out/registers-graphics.txt" 2>&1
step "surface --registers (graphics) rc=$? $(( $(date +%s) - t0 )) s"
# keep the compute-family model in the cache for (c) (the register file is the device's)
[ -f "$out/registers-compute.json" ] && cp "$out/registers-compute.json" "$(ls "$XDG_CACHE_HOME"/vkocc/registers-*.json | head -1)" 2>/dev/null
# the calculator from the measured document: bad input and a table
$bin calc --regs 0 --wg 256 --from "$out/registers-compute.json" > "$out/calc-bad.txt" 2>&1; echo "rc=$?" >> "$out/calc-bad.txt"
$bin calc --regs 300 --wg 256 --from "$out/registers-compute.json" >> "$out/calc-bad.txt" 2>&1; echo "rc=$?" >> "$out/calc-bad.txt"
$bin calc --regs 89 --wg 256 --shmem 256 --from "$out/registers-compute.json" > "$out/calc-89.txt" 2>&1
$bin calc --regs 80 --table --from "$out/registers-compute.json" > "$out/calc-table-80.txt" 2>&1
step "calc rc=$?"

# (b) CUDA
if command -v nvcc >/dev/null; then
  nvcc -O2 -o "$out/cuda_regs" scripts/gpu/cuda_regs.cu > "$out/cuda-build.txt" 2>&1 && \
    "$out/cuda_regs" 64 128 256 512 768 1024 > "$out/cuda-registers.json" 2> "$out/cuda-registers.err"
  step "cuda rc=$? $(( $(date +%s) - t0 )) s"
else
  step "cuda: nvcc not found"
fi

# (c) the user's register-pressure shader on both families
for q in compute graphics; do
  mkdir -p "$out/shader-$q"
  for wg in 64 256 1024; do
    for n in 0 8 16 24 32 48 64 80 96 112 128 144 160 192; do
      f="$out/shader-$q/wg$wg-n$n"
      $bin probe --shader tests/shaders/regpressure.comp --spec 0=$wg --spec 1=$n --queue $q --no-cache --method comb --json \
        > "$f.json" 2> "$f.err"
      echo "$q wg $wg n $n rc=$?" >> "$out/shader-$q/rc.txt"
    done
  done
  step "shader ($q) $(( $(date +%s) - t0 )) s"
done
# a summary the lead can read without tools: per point the statistics and the answer
for q in compute graphics; do
  for f in "$out/shader-$q"/*.json; do
    [ -s "$f" ] || continue
    printf '%s ' "$(basename "$f" .json)"
    tr -d '\n ' < "$f" | grep -o '"P":[0-9null]*\|"augmented_P":[0-9]*\|"evidence":"[^"]*"\|"name":"Register Count","value":[0-9.null]*,"augmented":[0-9.]*\|"name":"Shared Memory Size","value":[0-9.null]*,"augmented":[0-9.]*' | tr '\n' ' '
    echo
  done > "$out/shader-$q-summary.txt"
done
# the point-by-point comparison (python3 where available; else run it where the results land)
command -v python3 >/dev/null && python3 scripts/gpu/registers-compare.py "$out" > "$out/compare.txt" 2>&1
step "compare rc=$?"
step "done $(( $(date +%s) - t0 )) s"
