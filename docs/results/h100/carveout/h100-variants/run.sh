#!/usr/bin/env bash
# On the GPU machine, from the repository root: source .gpu/enter.sh && build-gpu-vendor/run-carveout.sh
B=build-gpu-vendor
export LD_LIBRARY_PATH=$PWD/$B/glvnd${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/nvidia-smi.csv
if ! $B/vkocc devices | tee $OUT/devices.txt; then
  cat $VK_DRIVER_FILES; lib=$(grep -o '"library_path"[^,]*' $VK_DRIVER_FILES | cut -d'"' -f4)
  ldd $(ldconfig -p | grep -m1 "$lib" | awk '{print $NF}') 2>&1 | grep -i "not found"
  VK_LOADER_DEBUG=error,warn,driver $B/vkocc devices 2>&1 | tail -30
  exit 1
fi
$B/vkocc devices --json > $OUT/devices.json
$B/vkocc probe --wg 64 --shmem 4096 --json > $OUT/probe-64-4096.json
grep -m3 '"P"' $OUT/probe-64-4096.json
cmd="$B/carveout/carveout $B/carveout/manifest.txt $OUT/carveout.json"
echo "+ $cmd" | tee $OUT/carveout.txt
time timeout 400 $cmd 2>&1 | tee -a $OUT/carveout.txt
