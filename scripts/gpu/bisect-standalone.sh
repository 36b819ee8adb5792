#!/usr/bin/env bash
# `probe --method bisect` alone at wg 64 / 4096 shared bytes, RUNS times, against the comb; with OLD_VKOCC
# (another build's binary) the same for it first, to compare two versions. One line per run: binary,
# method, exit code, P, the bisection's wave (ns). Record: docs/results/h100/bisect-standalone/.
#   scripts/gpu/bisect-standalone.sh BUILD_DIR OUT_DIR [RUNS] [OLD_VKOCC]      (RUNS default 5)
source "$(dirname "$0")/lib.sh"
gpu_init "$@" || gpu_usage "[RUNS] [OLD_VKOCC]"
runs=${3:-5} old=${4:-}
for b in ${old:+"$old"} "$bin"; do
  label=new; [ "$b" = "$bin" ] || label=old
  for m in comb bisect; do
    for i in $(seq 1 "$runs"); do
      f="$out/$label-$m-$i.json"
      "$b" probe --wg 64 --shmem 4096 --method "$m" --json > "$f" 2> "$f.err"
      rc=$?
      P=$(grep -m1 -o '"P": [0-9]*' "$f" | grep -o '[0-9]*$')
      w=$(grep -m1 -o '"bisect_wave_ns": [0-9.e+]*' "$f" | sed 's/.*: //')
      echo "$label $m run $i: exit $rc P ${P:--} bisect_wave_ns ${w:--} $(head -c 200 "$f.err")"
    done
  done
done | tee "$out/summary.txt"
