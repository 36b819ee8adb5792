#!/bin/sh
# Runs a device test (lavapipe: its workgroups are CPU threads, its clocks host time) with the CPU time its
# measurement needs, so that it keeps one bar on a busy machine instead of lowering it.
# Linux shares the CPU between sessions first (autogroups) and by nice value only within a session: a
# nice value alone does not protect a test from CPU hogs in another session (measured on a 2-core VM beside
# two `yes` hogs: two threads at nice -15 took 2.0-2.5x one thread's time; in a session of their own with
# the session's nice at -15, 0.8-1.3x). So: a new session (setsid), its autogroup and the test at nice -20.
# The suite's other tests run beside it in the session it came from (ctest's; scripts/test.sh puts that one at
# nice -10). While it runs, that session is lowered to nice -5 at most. By the autogroups' weights (88761 at -20,
# 3121 at -5, 1024 at 0) a timed test with both CPUs busy then keeps 92% of the CPU the other test runs on, as much
# as it kept at -15 beside one other session at nice 0, and the other test still takes three quarters of a CPU the
# timed test leaves from other sessions at nice 0.
# Raising the priority needs root or CAP_SYS_NICE; without it the test runs as it is and says so.
# A device test that times nothing (label "beside": VKOCC_BESIDE=1) stays in that session, at its priority.
# usage: timed.sh PROGRAM [ARGS...]
if [ -n "${VKOCC_BESIDE:-}" ]; then exec "$@"; fi
# (GNU nice runs the command even where it cannot set the priority, warning only: so the check reads the priority got;
# -40 because nice adds to the current value: -20 from any start)
if [ "$(nice -n -40 nice 2>/dev/null)" = -20 ]; then
  home=$(sed -nE 's/.* nice (-?[0-9]+)$/\1/p' /proc/self/autogroup 2>/dev/null)
  if [ -n "$home" ] && [ "$home" -lt -5 ]; then echo -5 >/proc/self/autogroup 2>/dev/null || home=; else home=; fi
  setsid -w sh -c 'if [ -w /proc/self/autogroup ]; then echo -20 >/proc/self/autogroup 2>/dev/null; fi
                   exec nice -n -40 "$@"' timed.sh "$@"
  rc=$?
  if [ -n "$home" ]; then echo "$home" >/proc/self/autogroup 2>/dev/null; fi
  exit "$rc"
fi
echo "timed.sh: could not raise the scheduling priority (needs root or CAP_SYS_NICE): running at nice $(nice)" >&2
exec "$@"
