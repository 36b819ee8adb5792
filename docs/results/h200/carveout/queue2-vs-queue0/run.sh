#!/usr/bin/env bash
B=build-gpu-vendor
export LD_LIBRARY_PATH=$PWD/$B/glvnd${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee $OUT/nvidia-smi.csv
$B/vkocc devices | tee $OUT/devices.txt
$B/vkocc devices --json > $OUT/devices.json
for q in 2 0; do
  cmd="$B/carveout/carveout $B/carveout/manifest.txt $OUT/carveout-q$q.json --queue-family $q"
  echo "+ $cmd" | tee $OUT/carveout-q$q.txt
  timeout 200 $cmd 2>&1 | tee -a $OUT/carveout-q$q.txt
done
$B/vkocc probe --wg 64 --shmem 4096 --json > $OUT/probe-64-4096.json; grep -m1 '"P"' $OUT/probe-64-4096.json
