#!/usr/bin/env bash
# The README's first command: install what is missing, build, and characterize the default device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
mkdir -p out
./build/vkocc devices
# Characterize the default device: calibration, surface on the canonical grid, derived limits,
# normalized surface and cluster ID (a summary table), the fingerprint JSON and a plot of its surface.
./build/vkocc fingerprint -o out/fingerprint.json
./build/vkocc plot surface out/fingerprint.json -o out/surface.png
echo "main job: wrote out/fingerprint.json and out/surface.png"
