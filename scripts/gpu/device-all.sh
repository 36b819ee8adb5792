#!/usr/bin/env bash
# A host with several GPUs (nvidia-h200-x2): `--device all` on devices, surface and fingerprint. Checks that
# every GPU was measured and that all share one cluster ID, and compares the wall time of `--device all` with
# one device alone (medians of RUNS, min..max), warm pipeline cache. Exit 0 when every check passed; the
# lines to report are in OUT_DIR/summary.txt. Record: docs/results/h200/device-all/.
#   scripts/gpu/device-all.sh BUILD_DIR OUT_DIR [RUNS]      (RUNS default 3)
source "$(dirname "$0")/lib.sh"
gpu_init "$@" || gpu_usage "[RUNS]"
runs=${3:-3}
ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {m = NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%s (%s..%s)", m, a[1], a[NR]}'; }
fail=0
ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {m = NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%s (%s..%s)", m, a[1], a[NR]}'; }
{
  echo "== devices --device all"
  "$bin" devices | tee "$out/devices.txt"
  "$bin" devices --json > "$out/devices.json"
  ngpu=$(grep -c '"default"' "$out/devices.json")
  echo "devices: $ngpu"
  for cmd in surface fingerprint; do
    extra=""; [ "$cmd" = fingerprint ] && extra="--fresh"
    echo "== $cmd: warm-up of the pipeline caches (--device all once, not timed)"
    "$bin" $cmd --device all $extra -o "$out/$cmd-warmup" > "$out/$cmd-warmup.txt" 2>&1 || { echo "warm-up failed"; cat "$out/$cmd-warmup.txt"; fail=1; }
    one=() all=()
    for i in $(seq 1 "$runs"); do
      t0=$(ms); "$bin" $cmd --device 0 $extra -o "$out/$cmd-one-$i.json" > "$out/$cmd-one-$i.txt" 2>&1 || fail=1; t1=$(ms)
      "$bin" $cmd --device all $extra -o "$out/$cmd-all-$i" > "$out/$cmd-all-$i.txt" 2>&1 || fail=1; t2=$(ms)
      one+=($((t1 - t0))); all+=($((t2 - t1)))
      echo "$cmd run $i: one device $((t1 - t0)) ms, --device all $((t2 - t1)) ms"
    done
    s="$out/$cmd-all-$runs-summary.json"
    measured=$(grep -o '"devices_measured": [0-9]*' "$s" | grep -o '[0-9]*$')
    same=$(grep -o '"same_cluster": [a-z]*' "$s" | grep -o '[a-z]*$')
    ids=$(grep -o '"cluster_id": "[^"]*"' "$s" | sort -u | tr '\n' ' ')
    echo "$cmd --device all: $measured of $ngpu devices measured; same cluster: $same; IDs: $ids"
    [ "$measured" = "$ngpu" ] && [ "$same" = true ] || fail=1
    echo "$cmd wall ms, median (min..max) of $runs: one device $(printf '%s\n' "${one[@]}" | median), --device all $(printf '%s\n' "${all[@]}" | median)"
  done
  echo "== nvidia-smi"
  nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv 2>&1 || true
  echo "result: $([ $fail = 0 ] && echo PASS || echo FAIL)"
} 2>&1 | tee "$out/summary.txt"
grep -q "result: PASS" "$out/summary.txt"
