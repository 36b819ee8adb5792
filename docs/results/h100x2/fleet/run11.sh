#!/bin/bash
# Run 11: main's final code of the fifth wave (uploads through a kept staging buffer, read-back buffers on demand, faster Generators) on run 10's two spaces, shortened to fit the session's device time: per space a throwaway process on each GPU, then GPU 0 alone, both, both again (no GPU 1 alone, no older binary). nvidia-smi samples both boards every 200 ms.
# Usage: run11.sh OUTDIR   (beside it: vkocc, fp.json, matmul8192/, transpose16384/)
set -u
cd "$(dirname "$0")"
O=$1; mkdir -p "$O"
B=./vkocc
F="--fingerprint fp.json --allow-other-device --seed 1 --strategy brute_force"
now() { date +%s%N; }
T0=$(now)
nvidia-smi --query-gpu=index,name,uuid,serial,vbios_version,driver_version,pci.bus_id,clocks.max.sm,clocks.max.mem,power.limit,power.default_limit,enforced.power.limit,pcie.link.gen.current,pcie.link.width.current,ecc.mode.current --format=csv > "$O/boards.csv" 2>&1
nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 200 > "$O/smi.csv" 2>&1 &
SMI=$!
$B --version > "$O/version.txt" 2>&1
$B devices > "$O/devices.txt" 2>&1
LIMIT=${LIMIT:-220}
run() {
  local n=$1 bin=$2; shift 2
  local s=$(now)
  # this call's share of device time: nothing starts after LIMIT s
  if [ $(( (s - T0) / 1000000000 )) -gt $LIMIT ]; then echo "$n skipped: out of time" | tee -a "$O/walls.txt"; return; fi
  timeout 75 $bin tune "$@" > "$O/$n.txt" 2>&1
  local rc=$? e=$(now)
  echo "$n rc=$rc start_ms=$(( (s - T0) / 1000000 )) wall_s=$(( (e - s) / 1000000 ))e-3 bin=$bin args: $*" | tee -a "$O/walls.txt"
}
space() { # NAME SPEC BASE(0/1) [ARGS...]
  local n=$1 spec=$2 base=$3; shift 3
  run $n-warm0 $B $spec $F "$@" --device 0 --max-runs 3 -o "$O/$n-warm0.json"
  run $n-warm1 $B $spec $F "$@" --device 1 --max-runs 3 -o "$O/$n-warm1.json"
  run $n-d0 $B $spec $F "$@" --device 0 -o "$O/$n-d0.json"
  run $n-two $B $spec $F "$@" --device all -o "$O/$n-two.json"
  run $n-twoB $B $spec $F "$@" --device all -o "$O/$n-twoB.json"
}
space matmul8192 matmul8192/matmul.json 1
space transpose16384 transpose16384/transpose.json 1
kill $SMI
echo "total_s $(( ($(now) - T0) / 1000000000 ))" >> "$O/walls.txt"
