#!/usr/bin/env bash
# Issue 9 on a lent NVIDIA GPU, in one call: the user-shader validation (validate-shader.sh: the histogram over
# 10 workgroup sizes x 9 shared sizes as GLSL with comb alone and bisection alone, as SPIR-V with both, the
# device surface, verdicts, --unmodified), the same histogram surface on the graphics+compute queue family,
# and standalone bisection before (79ec0aa) and after the launch-ramp sizing (bisect-standalone.sh).
# Prepared on Debian (binaries and SPIR-V in the ignored folder gpurun/):
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DVKOCC_WITH_VIEWER=OFF -DVKOCC_WITH_GLFW=OFF -DBUILD_TESTING=OFF
#   cmake --build build-gpu --target vkocc-cli; cp build-gpu/vkocc gpurun/vkocc
#   (the same at commit 79ec0aa into gpurun/vkocc-79ec0aa)
#   glslc --target-env=vulkan1.1 -o gpurun/shaders/histogram.comp.spv tests/shaders/histogram.comp
# On the GPU machine (run tool, carry .gpu and gpurun):
#   source .gpu/enter.sh && scripts/gpu/issue9-h100.sh $OUT
set -uo pipefail
out=${1:?output directory}
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mkdir -p build-gpu/shaders "$out"
cp gpurun/vkocc build-gpu/vkocc && cp gpurun/shaders/histogram.comp.spv build-gpu/shaders/
t0=$(date +%s)
scripts/gpu/validate-shader.sh "$out/shader" 2>&1 | tee "$out/shader.log"
echo "validate-shader done $(( $(date +%s) - t0 )) s"
export XDG_CACHE_HOME=$(mktemp -d)
WG=32,64,96,128,192,256,384,512,768,1024
BINS=64,256,1024,2048,4096,6144,8192,10240,12288
build-gpu/vkocc surface --queue graphics --shader tests/shaders/histogram.comp --vary 0=$WG --vary 1=$BINS \
  --method comb -o "$out/shader-glsl-comb-graphics.json" > "$out/shader-glsl-comb-graphics.txt" 2>&1
echo "graphics-queue histogram rc=$? $(( $(date +%s) - t0 )) s"
build-gpu/vkocc surface --queue graphics --wg $WG --shmem 256,1K,4K,8K,16K,24K,32K,40K,48K --no-refine \
  --method comb -o "$out/device-surface-graphics.json" > "$out/device-surface-graphics.txt" 2>&1
echo "graphics-queue device surface rc=$? $(( $(date +%s) - t0 )) s"
if [ "${SKIP_BISECT_STANDALONE:-0}" != 1 ]; then
  scripts/gpu/bisect-standalone.sh gpurun/vkocc gpurun/vkocc-79ec0aa 5 "$out/bisect-standalone" > /dev/null 2>&1
  cat "$out/bisect-standalone/summary.txt"
fi
# many small files: one archive comes back whole
tar -C "$out" -czf "$out.tgz" . && rm -rf "$out"
echo "all done $(( $(date +%s) - t0 )) s"
