#!/bin/bash
# Boards that differ, with the normalization (several references, a final round where the factors' spread could
# change the ranking). Part D, the default settings on the 117 configurations with ELEMS=4: each GPU alone twice
# (does a configuration's ratio between the boards reproduce?) and --device all. Part W, the speed-up where the
# GPU's work dominates: the whole space (458 configurations) with a fixed 100 ms warm-up per configuration
# (--warmup-ms 100 --warmup-ratio 0), GPU 0 alone, --device all, GPU 1 alone where time allows.
# Usage: run5.sh OUTDIR
set -u
cd "$(dirname "$0")"
O=$1; mkdir -p "$O"
B=./vkocc
C="transpose/transpose.json --strategy brute_force --fingerprint fp.json --allow-other-device --seed 1"
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
D="--only ELEMS=4"
run d0a --device 0 $D -o "$O/d0a.json"
run d1a --device 1 $D -o "$O/d1a.json"
run dtwo --device all $D -o "$O/dtwo.json"
run d0b --device 0 $D -o "$O/d0b.json"
run d1b --device 1 $D -o "$O/d1b.json"
W="--warmup-ms 100 --warmup-ratio 0"
run w0 --device 0 $W -o "$O/w0.json"
run wtwo --device all $W -o "$O/wtwo.json"
if [ $(( ($(now) - T0) / 1000000000 )) -lt 140 ]; then run w1 --device 1 $W -o "$O/w1.json"; fi
nvidia-smi --query-gpu=index,clocks.sm,temperature.gpu --format=csv >> "$O/nvidia-smi.csv" 2>&1
echo "total_s $(( ($(now) - T0) / 1000000000 ))" >> "$O/walls.txt"
