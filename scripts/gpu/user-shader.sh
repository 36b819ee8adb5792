#!/usr/bin/env bash
# The user's own shader (docs/shader.md): P of tests/shaders/histogram.comp (shared bytes = 4 x BINS) over
# 10 workgroup sizes x 9 shared sizes as GLSL (comb alone, bisection alone) and as SPIR-V (both methods;
# glslc here, or BUILD_DIR/shaders/histogram.comp.spv), the device surface on the same grid, per-point
# verdicts with the driver's executable statistics, the histogram as written (--unmodified), the same on the
# graphics+compute queue family, and a latency-bound chase (tests/shaders/chase_unmod.comp) unmodified
# against augmented. Record: docs/results/h100/user-shader/.
#   scripts/gpu/user-shader.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
gpu_init "$@" || gpu_usage
spv=""
if [ -f "$build/shaders/histogram.comp.spv" ]; then spv=$build/shaders/histogram.comp.spv
elif command -v glslc >/dev/null; then
  spv=$out/histogram.comp.spv
  glslc --target-env=vulkan1.1 -o "$spv" tests/shaders/histogram.comp || spv=""
fi
[ -n "$spv" ] || echo "no glslc and no BUILD_DIR/shaders/histogram.comp.spv: the SPIR-V surface is left out" >&2
WG=32,64,96,128,192,256,384,512,768,1024
BINS=64,256,1024,2048,4096,6144,8192,10240,12288   # 256 B .. 48 KiB
SH=256,1K,4K,8K,16K,24K,32K,40K,48K
gpu_smi
"$bin" devices > "$out/devices.txt" 2>&1
t0=$(date +%s)
"$bin" probe --shader tests/shaders/histogram.comp --spec 0=64 --spec 1=1024 --no-cache > "$out/smoke.txt" 2>&1
echo "smoke rc=$? $(( $(date +%s) - t0 )) s"; cat "$out/smoke.txt"
"$bin" surface --wg $WG --shmem $SH --no-refine --method comb -o "$out/device-surface.json" > "$out/device-surface.txt" 2>&1
echo "device surface rc=$? $(( $(date +%s) - t0 )) s"
for p in "64 1024" "64 2048" "64 8192" "256 4096" "1024 12288"; do
  set -- $p
  "$bin" probe --shader tests/shaders/histogram.comp --spec 0=$1 --spec 1=$2 --no-cache --method comb \
    --from "$out/device-surface.json" >> "$out/verdicts.txt" 2>&1
done
echo "verdicts $(( $(date +%s) - t0 )) s"
"$bin" surface --shader tests/shaders/histogram.comp --vary 0=$WG --vary 1=$BINS --method comb \
  -o "$out/shader-glsl-comb.json" > "$out/shader-glsl-comb.txt" 2>&1
echo "glsl comb rc=$? $(( $(date +%s) - t0 )) s"
if [ -n "$spv" ]; then
  "$bin" surface --shader "$spv" --vary 0=$WG --vary 1=$BINS --method both \
    -o "$out/shader-spv-both.json" > "$out/shader-spv-both.txt" 2>&1
  echo "spv both rc=$? $(( $(date +%s) - t0 )) s"
fi
"$bin" surface --shader tests/shaders/histogram.comp --vary 0=$WG --vary 1=$BINS --method bisect \
  -o "$out/shader-glsl-bisect.json" > "$out/shader-glsl-bisect.txt" 2>&1
echo "glsl bisect rc=$? $(( $(date +%s) - t0 )) s"
# P of the histogram AS WRITTEN (tests/shaders/histogram_grain.comp, GRAIN elements per thread,
# no augmentation) by dispatch bisection on its own runtime (--unmodified), next to the augmented pipeline's
# comb P at the same points. A point whose runtime shows no clean staircase says "could not establish P ..."
# (exit 1) with the reason (workgroups too short, a ramp over the first wave, steps that moved).
echo "wg bins shared grain augmented_comb_P unmodified_P (or why not)" > "$out/unmodified.txt"
for p in "64 256" "64 1024" "64 2048" "64 8192" "256 4096"; do
  set -- $p
  for g in 4096 65536; do
    f="$out/unmod-wg$1-bins$2-grain$g"
    "$bin" probe --shader tests/shaders/histogram_grain.comp --spec 0=$1 --spec 1=$2 --spec 2=$g --no-cache \
      --method comb > "$f-aug.txt" 2>&1
    "$bin" probe --shader tests/shaders/histogram_grain.comp --spec 0=$1 --spec 1=$2 --spec 2=$g --no-cache \
      --unmodified > "$f.txt" 2>&1
    rc=$?
    aug=$(grep -o '^P = [0-9]*' "$f-aug.txt" | head -1)
    if [ $rc = 0 ]; then un=$(grep -o '^P = [0-9]*' "$f.txt" | head -1); else un="rc=$rc $(tail -1 "$f.txt")"; fi
    echo "$1 $2 $(( $2 * 4 )) $g ${aug:-?} | ${un}" >> "$out/unmodified.txt"
  done
done
cat "$out/unmodified.txt"
echo "unmodified $(( $(date +%s) - t0 )) s"
# the same on the graphics+compute queue family (NVIDIA: 48 KiB of shared memory per SM there)
"$bin" surface --queue graphics --shader tests/shaders/histogram.comp --vary 0=$WG --vary 1=$BINS \
  --method comb -o "$out/shader-glsl-comb-graphics.json" > "$out/shader-glsl-comb-graphics.txt" 2>&1
echo "graphics-queue histogram rc=$? $(( $(date +%s) - t0 )) s"
"$bin" surface --queue graphics --wg $WG --shmem $SH --no-refine \
  --method comb -o "$out/device-surface-graphics.json" > "$out/device-surface-graphics.txt" 2>&1
echo "graphics-queue device surface rc=$? $(( $(date +%s) - t0 )) s"
# a latency-bound shader: P unmodified (bisection on its own runtime) against the augmented pipeline's comb
mkdir -p "$out/chase"
echo "wg words shared rounds augmented_comb_P unmodified_P (or why not)" | tee "$out/chase/summary.txt"
for p in "64 256" "64 1024" "64 2048" "64 8192" "256 4096" "1024 1024"; do
  set -- $p
  for r in 16384 65536; do
    f="$out/chase/wg$1-words$2-rounds$r"
    "$bin" probe --shader tests/shaders/chase_unmod.comp --spec 0=$1 --spec 1=$2 --spec 2=$r --no-cache \
      --method comb --json > "$f-aug.json" 2> "$f-aug.err"
    "$bin" probe --shader tests/shaders/chase_unmod.comp --spec 0=$1 --spec 1=$2 --spec 2=$r --no-cache \
      --unmodified --json > "$f.json" 2> "$f.err"
    rc=$?
    aug=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"]["P"])' "$f-aug.json" 2>/dev/null)
    if [ $rc = 0 ]; then un=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"]["P"])' "$f.json"); else un="rc=$rc $(tail -1 "$f.err")"; fi
    echo "$1 $2 $(( $2 * 4 )) $r ${aug:-?} | ${un}" | tee -a "$out/chase/summary.txt"
  done
done
