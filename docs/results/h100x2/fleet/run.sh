#!/bin/bash
# vkocc tune --device all on a host with two GPUs against one GPU: brute force over the transpose example's
# 458 configurations (warm-up at most 50 ms each), the same command but for --device. Usage: run.sh OUTDIR
set -u
cd "$(dirname "$0")"
O=$1; mkdir -p "$O"
B=./vkocc
C="transpose/transpose.json --strategy brute_force --warmup-ms 50 --fingerprint fp.json --allow-other-device --seed 1"
now() { date +%s%N; }
T0=$(now)
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$O/nvidia-smi.csv" 2>&1
$B --version > "$O/version.txt" 2>&1
$B devices > "$O/devices.txt" 2>&1
run() { # name, then the command's arguments
  local n=$1; shift
  local s=$(now)
  timeout 120 $B tune $C "$@" > "$O/$n.txt" 2>&1
  local rc=$? e=$(now)
  echo "$n rc=$rc wall_s=$(( (e - s) / 1000000 ))e-3 args: $*" | tee -a "$O/walls.txt"
}
run one0 --device 0 -o "$O/one0.json"
run two --device all -o "$O/two.json"
# the second GPU alone on half of them, where time allows: its medians beside the first GPU's
if [ $(( ($(now) - T0) / 1000000000 )) -lt 200 ]; then run one1 --device 1 -o "$O/one1.json" --only ELEMS=4; fi
nvidia-smi --query-gpu=index,clocks.sm,temperature.gpu --format=csv >> "$O/nvidia-smi.csv" 2>&1
echo "total_s $(( ($(now) - T0) / 1000000000 ))" >> "$O/walls.txt"
