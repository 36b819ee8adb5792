#!/usr/bin/env bash
# The tuning-speed benchmark's runner: tunes one T1 spec with vkocc and keeps what bench_tune_report.py reads.
#   bench/bench_tune.sh VKOCC OUT_DIR NAME SPEC COUNT SEED [more vkocc tune options...]
# writes OUT_DIR/NAME.json (the results document), NAME.log (vkocc's stderr and stdout) and NAME.wall (the
# process's wall time in ms, process start included, its start and end in ms since the epoch, and the exact command). Needs bash and date only, so it
# runs as it is on the GPU machine.
set -u
if [ $# -lt 6 ]; then
  echo "usage: $0 VKOCC OUT_DIR NAME SPEC COUNT SEED [vkocc tune options...]" >&2
  exit 2
fi
V=$1; O=$2; N=$3; S=$4; C=$5; SEED=$6; shift 6
mkdir -p "$O"
cmd=("$V" tune "$S" -o "$O/$N.json" --budget "$C" --seed "$SEED" --strategy random_sample "$@")
t0=$(date +%s%N)
timeout "${BENCH_TIMEOUT:-0}" "${cmd[@]}" > "$O/$N.log" 2>&1 # BENCH_TIMEOUT seconds, 0: none
rc=$?
t1=$(date +%s%N)
{
  echo "wall_ms $(( (t1 - t0) / 1000000 ))"
  echo "start_epoch_ms $(( t0 / 1000000 ))"
  echo "end_epoch_ms $(( t1 / 1000000 ))"
  echo "rc $rc"
  echo "command ${cmd[*]}"
} > "$O/$N.wall"
echo "$N: rc $rc, $(( (t1 - t0) / 1000000 )) ms" >&2
exit 0
