#!/usr/bin/env bash
# The README's second command: install what is missing, build with AddressSanitizer and
# UndefinedBehaviorSanitizer, and run the whole ctest suite (unit tests and lavapipe device tests).
# The Debian package test (label "package": a Release build of its own and lintian, 45 s on a quiet
# 2-core machine, 2-2.5 min under load) runs with VKOCC_TEST_PACKAGE=1, or alone: ctest -L package.
set -euo pipefail
# Off a terminal (CI, a pipe), the whole run (build and tests) goes into a session of its own at nice -10
# where allowed (root or CAP_SYS_NICE): other work on the machine then slows it little. Its device tests
# raise their own priority anyway (tests/timed.sh); docs/testing.md says why a session and not only nice.
# (On a terminal a new session would no longer get the terminal's Ctrl-C.)
# (GNU nice runs the command even where it cannot set the priority, warning only: so the check reads the priority got)
can_raise() { [ "$(nice -n -1 nice 2>/dev/null)" -lt "$(nice)" ]; }
if [ -z "${VKOCC_TEST_SESSION:-}" ] && [ ! -t 0 ] && can_raise; then
  export VKOCC_TEST_SESSION=1
  exec setsid -w sh -c 'if [ -w /proc/self/autogroup ]; then echo -10 >/proc/self/autogroup 2>/dev/null; fi
                        exec nice -n -10 "$@"' test.sh "$0" "$@"
fi
cd "$(dirname "$0")/.."
t0=$SECONDS
phase() { echo "test.sh: $1 at $((SECONDS - t0)) s"; }
scripts/install-deps.sh
# Ninja where it is installed (install-deps): the ASan build in 69 s against 91 s with make on this project's 2-core
# machine. A build folder made earlier keeps the generator it was made with.
gen() { if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null; then echo -GNinja; fi; }
# gold links the ~110 test programs, each with the static library and the shader compiler in it, in half the
# time of the default linker (0.3 s of CPU against 0.9 s each, measured on this project's 2-core machine)
link=()
if echo 'int main(void){return 0;}' | cc -x c -fuse-ld=gold -o /dev/null - 2>/dev/null; then
  link=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=gold -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=gold)
fi
cmake -S . -B build-test $(gen build-test) -DCMAKE_BUILD_TYPE=Debug -DVKOCC_SANITIZE=ON "${link[@]}" >/dev/null
cmake --build build-test -j"$(nproc)"
phase "the ASan+UBSan build done"
# Valgrind's memcheck over the unit tests that need no device (reads of uninitialized memory, which ASan does
# not see) needs a build without sanitizers of just those programs (label memcheck, tests/CMakeLists.txt). It is
# built once the ASan build is done (beside it, it took 18 s from that build whatever its priority: 84 s against 66 s
# alone, measured; a build's short compiler processes lose the CPU to any other work), and built and run beside the
# suite's tests in a session of its own at a low priority (autogroup nice 5: a third of
# the weight of another session at nice 0, a 265th of a timed test's at -20), so that it takes CPU time the suite
# leaves and never crowds a timed test (at nice 0 with -j2 the build was one more CPU hog beside them). Quiet, that
# is enough: its build done before the suite, its tests within a second of it (6 of 6 runs). Beside three hogs, which
# take most of what the suite leaves, 24-31 s of it ran after the suite (8 of 8 runs; at nice 19, 41-57 s). Once the
# suite is done it gets this script's priority.
# Skipped only when ctest was given a selection of tests ($@).
mdir=$(mktemp -d)
mbuild=
# (Only where the priority can be raised again, as root or with CAP_SYS_NICE; elsewhere at the ordinary priority.)
prio=0
if can_raise; then prio=5; fi
if [ $# -eq 0 ]; then
  setsid -w sh -c 'if [ -w /proc/self/autogroup ]; then echo "$1" >/proc/self/autogroup 2>/dev/null; fi
                   exec nice -n "$1" sh -c "cmake -S . -B build-memcheck $2 -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
                                            cmake --build build-memcheck -j$(nproc) --target vkocc_memcheck_programs >$3/build.log 2>&1 ||
                                            { echo \$? >$3/build.rc; exit 1; }
                                            echo 0 >$3/build.rc
                                            cd build-memcheck && ctest --output-on-failure -j$(nproc) -L memcheck >$3/ctest.log 2>&1
                                            echo \$? >$3/ctest.rc"' \
    memcheck "$prio" "$(gen build-memcheck)" "$mdir" >"$mdir/setup.log" 2>&1 &
  mbuild=$!
fi
cd build-test
exclude=(-LE package)
if [ "${VKOCC_TEST_PACKAGE:-0}" = 1 ]; then exclude=(); fi
# Every skip is printed by name with its reason (a test skips only where a machine cannot have what it
# needs, e.g. no python3); device tests raise their own priority (tests/timed.sh) and never skip.
log=$(mktemp)
trap 'rm -rf "$log" "$mdir"; [ -z "$mbuild" ] || kill -- -"$mbuild" 2>/dev/null || true' EXIT
set +e
ctest --output-on-failure -j"$(nproc)" "${exclude[@]}" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
phase "the suite done"
if [ -n "$mbuild" ]; then
  # the suite is done: what is left of memcheck (its build, its tests) gets this script's own priority (its
  # session's nice and its processes', which the processes it starts from now on inherit)
  g=$(sed -nE 's/.* nice (-?[0-9]+)$/\1/p' /proc/self/autogroup 2>/dev/null)
  [ -z "$g" ] || { echo "$g" >/proc/"$mbuild"/autogroup; } 2>/dev/null || true
  renice -n "$(nice)" -g "$mbuild" >/dev/null 2>&1 || true
  [ -f "$mdir/build.rc" ] && phase "the memcheck build was done before"
  set +e
  wait "$mbuild"
  mbuild=
  set -e
  brc=$(cat "$mdir/build.rc" 2>/dev/null || echo 1)
  if [ "$brc" != 0 ]; then
    cat "$mdir/setup.log" "$mdir/build.log" 2>/dev/null
    echo "test.sh: the memcheck build failed (exit $brc)"
    rc=$brc
  else
    tee -a "$log" <"$mdir/ctest.log"
    mrc=$(cat "$mdir/ctest.rc" 2>/dev/null || echo 1)
    [ "$mrc" = 0 ] || rc=$mrc
    phase "memcheck done"
  fi
fi
skipped=$(grep -E '\*\*\*Skipped|Not Run' "$log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/' | sort -u | paste -sd' ' - || true)
echo "test.sh: skipped: ${skipped:-none}"
# and every part of a test that skipped itself, with the reason it printed
grep -h 'SKIP' Testing/Temporary/LastTest.log 2>/dev/null | sort -u | sed 's/^/test.sh: /' || true
exit "$rc"
