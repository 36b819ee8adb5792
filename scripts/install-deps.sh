#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages vkocc needs to build, test and run its main job on lavapipe.
# Idempotent: installs only what is missing. As non-root it prints the exact command and exits 1.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config     # ninja: the suite's builds (scripts/test.sh)
      libvulkan-dev libvulkan1 mesa-vulkan-drivers glslc   # loader + headers, lavapipe, shader compiler
      libjansson-dev libcairo2-dev libglfw3-dev libgl-dev  # JSON, plots, optional interactive viewer
      libgl1-mesa-dri xvfb xauth                           # headless (Xvfb) window test of the viewer
      libshaderc-dev glslang-dev spirv-tools               # the user's shader: libshaderc (linked statically
                                                           # with glslang and SPIRV-Tools), spirv-val in tests
      libspirv-cross-c-shared-dev                          # reflection of the user's shader (SPIRV-Cross)
      libsqlite3-dev                                       # the policy store (vkocc policy add --db)
      debhelper                                            # the Debian package test (test_package); lintian
                                                           # is optional: apt-get install lintian
      python3-jsonschema                                   # tests: T4 tuning results against their JSON schemas
      valgrind                                             # tests: memcheck over the unit tests (scripts/test.sh)
      clang-format                                         # CI: scripts/format-check.py on the lines a change writes
      libopenmpi-dev openmpi-bin)                          # tuning across MPI ranks (mpirun/srun vkocc tune)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root:  sudo sh -c '$cmd'" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
sh -c "$cmd"
