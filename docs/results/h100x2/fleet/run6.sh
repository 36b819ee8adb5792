#!/bin/bash
# The speed-up of --device all once a process's fixed costs are made once and side by side (contexts in parallel,
# the arguments' data and the SPIR-V made once per process, each device's pool building what it holds), on spaces
# whose search is short (transpose, 458 configurations; Kernel Tuner's matmul at 2048, 44) and long (the same
# matmul at 4096). Per space: a throwaway process on each GPU first (the driver's and vkocc's pipeline caches warm
# for every timed run), then GPU 0 alone, both, GPU 1 alone, both again; the binary before these changes on GPU 0
# alone beside them on the two short spaces (one device no slower). nvidia-smi samples both boards every 200 ms throughout.
# Usage: run6.sh OUTDIR   (beside it: vkocc, vkocc-base, fp.json, transpose/, matmul/, matmul4096/)
set -u
cd "$(dirname "$0")"
O=$1; mkdir -p "$O"
B=./vkocc
F="--fingerprint fp.json --allow-other-device --seed 1 --strategy brute_force"
now() { date +%s%N; }
T0=$(now)
nvidia-smi --query-gpu=index,name,uuid,serial,vbios_version,driver_version,pci.bus_id,clocks.max.sm,clocks.max.mem,power.limit,power.default_limit,enforced.power.limit,pcie.link.gen.current,pcie.link.width.current,ecc.mode.current --format=csv > "$O/boards.csv" 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE > "$O/smi-q-before.txt" 2>&1
nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 200 > "$O/smi.csv" 2>&1 &
SMI=$!
$B --version > "$O/version.txt" 2>&1
$B devices > "$O/devices.txt" 2>&1
run() {
  local n=$1 bin=$2; shift 2
  local s=$(now)
  # the call's 600 s: nothing starts after 500 s
  if [ $(( (s - T0) / 1000000000 )) -gt 500 ]; then echo "$n skipped: out of time" | tee -a "$O/walls.txt"; return; fi
  timeout 150 $bin tune "$@" > "$O/$n.txt" 2>&1
  local rc=$? e=$(now)
  echo "$n rc=$rc start_ms=$(( (s - T0) / 1000000 )) wall_s=$(( (e - s) / 1000000 ))e-3 bin=$bin args: $*" | tee -a "$O/walls.txt"
}
space() { # NAME SPEC [ARGS...]
  local n=$1 spec=$2; shift 2
  run $n-warm0 $B $spec $F "$@" --device 0 --max-runs 5 -o "$O/$n-warm0.json"
  run $n-warm1 $B $spec $F "$@" --device 1 --max-runs 5 -o "$O/$n-warm1.json"
  run $n-d0 $B $spec $F "$@" --device 0 -o "$O/$n-d0.json"
  run $n-two $B $spec $F "$@" --device all -o "$O/$n-two.json"
  run $n-d1 $B $spec $F "$@" --device 1 -o "$O/$n-d1.json"
  run $n-twoB $B $spec $F "$@" --device all -o "$O/$n-twoB.json"
  [ $n = matmul4096 ] || run $n-base0 ./vkocc-base $spec $F "$@" --device 0 -o "$O/$n-base0.json"
}
space transpose transpose/transpose.json
space matmul matmul/matmul.json
space matmul4096 matmul4096/matmul.json
kill $SMI
nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE > "$O/smi-q-after.txt" 2>&1
echo "total_s $(( ($(now) - T0) / 1000000000 ))" >> "$O/walls.txt"
