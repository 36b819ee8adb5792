# Sourced by every runner in scripts/gpu/: `RUNNER BUILD_DIR OUT_DIR [ARGS...]`.
#   BUILD_DIR  a build folder of this repository (Release: cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release);
#              the runner uses BUILD_DIR/vkocc and, where it says so, BUILD_DIR/bench/*
#   OUT_DIR    created if missing; everything the runner writes goes there
# Sets: root (the repository; the runner works from there), build, out (absolute), bin (the vkocc binary),
# XDG_CACHE_HOME (a fresh cache under OUT_DIR unless KEEP_CACHE=1), and the NVIDIA Vulkan driver where the
# loader would not find it (VK_DRIVER_FILES already set wins; NVIDIA_ICD names another file to try).
set -uo pipefail
gpu_usage() { echo "usage: $(basename "$0") BUILD_DIR OUT_DIR $*" >&2; exit 2; }
gpu_init() { # BUILD_DIR OUT_DIR
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  [ -n "${1:-}" ] && [ -n "${2:-}" ] || return 2
  build=$(cd "$1" 2>/dev/null && pwd) || { echo "$(basename "$0"): no build folder '$1'" >&2; exit 2; }
  mkdir -p "$2" && out=$(cd "$2" && pwd)
  bin=$build/vkocc
  [ -x "$bin" ] || { echo "$(basename "$0"): $bin is missing (cmake --build $1 --target vkocc-cli)" >&2; exit 2; }
  cd "$root"
  if [ "${KEEP_CACHE:-0}" != 1 ]; then export XDG_CACHE_HOME="$out/.cache"; fi
  if [ -z "${VK_DRIVER_FILES:-}" ]; then # the lent NVIDIA machines keep the driver's ICD outside the loader's search
    for f in ${NVIDIA_ICD:-} /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
      if [ -f "$f" ]; then
        export VK_DRIVER_FILES=$f
        g=$(dirname "$(dirname "$(dirname "$f")")")/glvnd/egl_vendor.d/10_nvidia.json
        [ -f "$g" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$g
        break
      fi
    done
  fi
  { echo "runner: $(basename "$0") $*"; echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    date -u +"start: %Y-%m-%dT%H:%M:%SZ"; } >"$out/runner.txt"
}
# CUDA's own figures for comparison, where nvcc is there: OUT_DIR/cuda.json
gpu_cuda_props() {
  command -v nvcc >/dev/null || { echo "no nvcc: cuda.json left out" >&2; return 0; }
  local t; t=$(mktemp -d)
  nvcc -O2 -o "$t/cuda_props" "$root/scripts/gpu/cuda_props.cu" && "$t/cuda_props" >"$out/cuda.json"
  rm -rf "$t"
}
gpu_smi() { # nvidia-smi's clocks and names into OUT_DIR/nvidia-smi.csv (appended), where it is there
  command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv >>"$out/nvidia-smi.csv" 2>&1
}
