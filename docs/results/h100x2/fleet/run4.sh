#!/bin/bash
# Boards that differ: --device all with the normalization beside both GPUs alone, on the 117 configurations with
# ELEMS=4, the default warm-up; then --device all again where time allows (does the factor reproduce?).
# Usage: run4.sh OUTDIR
set -u
cd "$(dirname "$0")"
O=$1; mkdir -p "$O"
B=./vkocc
C="transpose/transpose.json --strategy brute_force --only ELEMS=4 --fingerprint fp.json --allow-other-device --seed 1"
now() { date +%s%N; }
T0=$(now)
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$O/nvidia-smi.csv" 2>&1
$B --version > "$O/version.txt" 2>&1
$B devices > "$O/devices.txt" 2>&1
run() {
  local n=$1; shift
  local s=$(now)
  timeout 130 $B tune $C "$@" > "$O/$n.txt" 2>&1
  local rc=$? e=$(now)
  echo "$n rc=$rc wall_s=$(( (e - s) / 1000000 ))e-3 args: $*" | tee -a "$O/walls.txt"
}
run one0 --device 0 -o "$O/one0.json"
run two --device all -o "$O/two.json"
run one1 --device 1 -o "$O/one1.json"
if [ $(( ($(now) - T0) / 1000000000 )) -lt 230 ]; then run twoB --device all -o "$O/twoB.json"; fi
nvidia-smi --query-gpu=index,clocks.sm,temperature.gpu --format=csv >> "$O/nvidia-smi.csv" 2>&1
echo "total_s $(( ($(now) - T0) / 1000000000 ))" >> "$O/walls.txt"
