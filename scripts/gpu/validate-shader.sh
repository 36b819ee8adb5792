#!/usr/bin/env bash
# Issue 9 on a lent NVIDIA GPU: P of a user's shader (tests/shaders/histogram.comp, shared bytes = 4 x BINS)
# over 10 workgroup sizes x 9 shared sizes, as GLSL (comb alone, bisection alone) and as glslc's SPIR-V
# (both methods), the device surface (vkocc's probe) on the same grid, and per-point verdicts with the
# driver's executable statistics. Build here, carry build-gpu and .gpu (libspirv-cross-c-shared0, libjansson4;
# libshaderc is linked statically):
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DVKOCC_WITH_VIEWER=OFF -DVKOCC_WITH_GLFW=OFF -DBUILD_TESTING=OFF
#   make -C build-gpu vkocc-cli && mkdir -p build-gpu/shaders &&
#   glslc --target-env=vulkan1.1 -o build-gpu/shaders/histogram.comp.spv tests/shaders/histogram.comp
# then on the GPU machine, from the repository root:
#   source .gpu/enter.sh && scripts/gpu/validate-shader.sh OUTDIR
set -uo pipefail
out=${1:?output directory}
bin=build-gpu/vkocc
mkdir -p "$out"
export XDG_CACHE_HOME=$(mktemp -d)
WG=32,64,96,128,192,256,384,512,768,1024
BINS=64,256,1024,2048,4096,6144,8192,10240,12288   # 256 B .. 48 KiB
SH=256,1K,4K,8K,16K,24K,32K,40K,48K
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/nvidia-smi.csv" 2>&1
$bin devices > "$out/devices.txt" 2>&1
t0=$(date +%s)
$bin probe --shader tests/shaders/histogram.comp --spec 0=64 --spec 1=1024 --no-cache > "$out/smoke.txt" 2>&1
echo "smoke rc=$? $(( $(date +%s) - t0 )) s"; cat "$out/smoke.txt"
$bin surface --wg $WG --shmem $SH --no-refine --method comb -o "$out/device-surface.json" > "$out/device-surface.txt" 2>&1
echo "device surface rc=$? $(( $(date +%s) - t0 )) s"
for p in "64 1024" "64 2048" "64 8192" "256 4096" "1024 12288"; do
  set -- $p
  $bin probe --shader tests/shaders/histogram.comp --spec 0=$1 --spec 1=$2 --no-cache --method comb \
    --from "$out/device-surface.json" >> "$out/verdicts.txt" 2>&1
done
echo "verdicts $(( $(date +%s) - t0 )) s"
$bin surface --shader tests/shaders/histogram.comp --vary 0=$WG --vary 1=$BINS --method comb \
  -o "$out/shader-glsl-comb.json" > "$out/shader-glsl-comb.txt" 2>&1
echo "glsl comb rc=$? $(( $(date +%s) - t0 )) s"
$bin surface --shader build-gpu/shaders/histogram.comp.spv --vary 0=$WG --vary 1=$BINS --method both \
  -o "$out/shader-spv-both.json" > "$out/shader-spv-both.txt" 2>&1
echo "spv both rc=$? $(( $(date +%s) - t0 )) s"
$bin surface --shader tests/shaders/histogram.comp --vary 0=$WG --vary 1=$BINS --method bisect \
  -o "$out/shader-glsl-bisect.json" > "$out/shader-glsl-bisect.txt" 2>&1
echo "glsl bisect rc=$? $(( $(date +%s) - t0 )) s"
# Issue 9 item 2: P of the histogram AS WRITTEN (tests/shaders/histogram_grain.comp, GRAIN elements per thread,
# no augmentation) by dispatch bisection on its own runtime (--unmodified), next to the augmented pipeline's
# comb P at the same points. A point whose runtime shows no clean staircase says "could not establish P ..."
# (exit 1) with the reason (workgroups too short, a ramp over the first wave, steps that moved).
echo "wg bins shared grain augmented_comb_P unmodified_P (or why not)" > "$out/unmodified.txt"
for p in "64 256" "64 1024" "64 2048" "64 8192" "256 4096"; do
  set -- $p
  for g in 4096 65536; do
    f="$out/unmod-wg$1-bins$2-grain$g"
    $bin probe --shader tests/shaders/histogram_grain.comp --spec 0=$1 --spec 1=$2 --spec 2=$g --no-cache \
      --method comb > "$f-aug.txt" 2>&1
    $bin probe --shader tests/shaders/histogram_grain.comp --spec 0=$1 --spec 1=$2 --spec 2=$g --no-cache \
      --unmodified > "$f.txt" 2>&1
    rc=$?
    aug=$(grep -o '^P = [0-9]*' "$f-aug.txt" | head -1)
    if [ $rc = 0 ]; then un=$(grep -o '^P = [0-9]*' "$f.txt" | head -1); else un="rc=$rc $(tail -1 "$f.txt")"; fi
    echo "$1 $2 $(( $2 * 4 )) $g ${aug:-?} | ${un}" >> "$out/unmodified.txt"
  done
done
cat "$out/unmodified.txt"
echo "unmodified $(( $(date +%s) - t0 )) s"
