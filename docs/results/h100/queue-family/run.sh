#!/bin/bash
# The exact command of this run (device tool, kind nvidia-h100-x1, carry [".gpu", "build-gpu-queue"]), one line
# there, split here. Built on the Debian machine with:
#   cmake -S . -B build-gpu-queue -DCMAKE_BUILD_TYPE=Release -DVKOCC_WITH_VIEWER=OFF \
#         -DVKOCC_WITH_GLFW=OFF -DBUILD_TESTING=OFF && cmake --build build-gpu-queue -j2 --target vkocc-cli
source .gpu/enter.sh && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json XDG_CACHE_HOME=/tmp/xdg && B=build-gpu-queue; R=$OUT/r; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; $B/vkocc devices; } 2>&1 | tee $R/devices.txt
$B/vkocc devices --json > $R/devices.json
for q in compute graphics; do
  for s in 4096 8192 32768; do
    $B/vkocc probe --queue $q --wg 64 --shmem $s --json > $R/probe-$q-$s.json 2>$R/probe-$q-$s.err; echo "probe $q $s rc=$?"
  done
  $B/vkocc surface --queue $q --json > $R/surface-$q.json 2>$R/surface-$q.err; echo "surface $q rc=$?"
  $B/vkocc probe --queue $q --wg 64 --shmem 4096 2>&1 | tee $R/probe-$q-4096.txt
  $B/vkocc surface --queue $q --wg 64 --shmem 0,4K,8K,16K,32K,48K --no-refine 2>&1 | tee $R/surface-small-$q.txt
done
grep -h '"P"' $R/probe-*.json | head -20
cd $OUT && tar czf queue-family.tar.gz r && rm -rf r; ls -la $OUT
# Every *.err was empty and every rc was 0.
