#!/bin/sh
# Runs a device test (lavapipe: its workgroups are CPU threads, its clocks host time) with the CPU time its
# measurement needs, so that it keeps one bar on a busy machine instead of lowering it.
# Linux shares the CPU between sessions first (autogroups) and by nice value only within a session: a
# nice value alone does not protect a test from CPU hogs in another session (measured on a 2-core VM beside
# two `yes` hogs: two threads at nice -15 took 2.0-2.5x one thread's time; in a session of their own with
# the session's nice at -15, 0.8-1.3x). So: a new session (setsid), its autogroup and the test at nice -15.
# Raising the priority needs root or CAP_SYS_NICE; without it the test runs as it is and says so.
# Tests that time nothing but run lavapipe beside a timed one (label "beside") set VKOCC_TIMED_NICE=-10: a step
# below, so the timed test keeps most of a contended CPU, still above other sessions at nice 0.
# usage: timed.sh PROGRAM [ARGS...]
n=${VKOCC_TIMED_NICE:--15}
if nice -n "$n" true 2>/dev/null; then
  exec setsid -w sh -c 'if [ -w /proc/self/autogroup ]; then echo "$0" >/proc/self/autogroup 2>/dev/null; fi
                        exec nice -n "$0" "$@"' "$n" "$@"
fi
echo "timed.sh: could not raise the scheduling priority (needs root or CAP_SYS_NICE): running at nice $(nice)" >&2
exec "$@"
