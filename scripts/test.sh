#!/usr/bin/env bash
# The README's second command: install what is missing, build with AddressSanitizer and
# UndefinedBehaviorSanitizer, and run the whole ctest suite (unit tests and lavapipe device tests).
# The Debian package test (label "package": a Release build of its own and lintian, 45 s on a quiet
# 2-core machine, 2-2.5 min under load) runs with VKOCC_TEST_PACKAGE=1, or alone: ctest -L package.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DVKOCC_SANITIZE=ON >/dev/null
cmake --build build-test -j"$(nproc)"
cd build-test
exclude=(-LE package)
if [ "${VKOCC_TEST_PACKAGE:-0}" = 1 ]; then exclude=(); fi
ctest --output-on-failure -j"$(nproc)" "${exclude[@]}" "$@"
