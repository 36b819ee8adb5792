#!/usr/bin/env bash
# Issue 9 item 7 on a lent NVIDIA GPU: `probe --method bisect` alone at wg 64 / 4096 shared bytes, before
# (OLD binary) and after the launch-ramp sizing, against the comb. Prints one line per run: binary,
# method, exit code, P, the bisection's wave (ns).
# Run from the repository root on the GPU machine:
#   source .gpu/enter.sh && scripts/gpu/bisect-standalone.sh NEW_BIN OLD_BIN RUNS OUTDIR
set -uo pipefail
new=${1:?new binary} old=${2:?old binary} runs=${3:-5} out=${4:?output directory}
mkdir -p "$out"
for bin in "$old" "$new"; do
  for m in comb bisect; do
    for i in $(seq 1 "$runs"); do
      f="$out/$(basename "$bin")-$m-$i.json"
      "$bin" probe --wg 64 --shmem 4096 --method "$m" --json > "$f" 2> "$f.err"
      rc=$?
      P=$(grep -m1 -o '"P": [0-9]*' "$f" | grep -o '[0-9]*$')
      w=$(grep -m1 -o '"bisect_wave_ns": [0-9.e+]*' "$f" | sed 's/.*: //')
      echo "$(basename "$bin") $m run $i: exit $rc P ${P:--} bisect_wave_ns ${w:--} $(head -c 200 "$f.err")"
    done
  done
done | tee "$out/summary.txt"
