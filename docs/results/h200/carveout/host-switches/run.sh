#!/usr/bin/env bash
B=build-gpu-vendor
export LD_LIBRARY_PATH=$PWD/$B/glvnd${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
DIR=$B/carveout $B/carveout-host.sh /tmp/host $B/vkocc 2>&1 | tee $OUT/host.txt
tar -C /tmp -czf $OUT/host.tar.gz host
