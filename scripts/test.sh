#!/usr/bin/env bash
# The README's second command: install what is missing, build with AddressSanitizer and
# UndefinedBehaviorSanitizer, and run the whole ctest suite (unit tests and lavapipe device tests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DVKOCC_SANITIZE=ON >/dev/null
cmake --build build-test -j"$(nproc)"
cd build-test
ctest --output-on-failure -j"$(nproc)" "$@"
