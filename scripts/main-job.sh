#!/usr/bin/env bash
# The README's first command: install what is missing, build, and characterize the default device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
mkdir -p out
./build/vkocc devices
./build/vkocc calibrate
