#!/bin/bash
# Run 13: a reference timed again stops at 3 runs where its spread allows (vkocc) against run 12's binary (vkocc-prev,
# 8134039), on matmul 8192 and 12288. Per space: a throwaway process on each GPU at once (the driver's and vkocc's
# caches warm), then GPU 0 alone, both, both with vkocc-prev, both again. nvidia-smi samples both boards every 200 ms.
# Usage: run13.sh OUTDIR   (beside it: vkocc, vkocc-prev, fp.json, matmul8192/, matmul12288/)
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
./vkocc-prev --version >> "$O/version.txt" 2>&1
$B devices > "$O/devices.txt" 2>&1
LIMIT=${LIMIT:-400}
run() {
  local n=$1 bin=$2; shift 2
  local s=$(now)
  # this call's share of device time: nothing starts after LIMIT s
  if [ $(( (s - T0) / 1000000000 )) -gt $LIMIT ]; then echo "$n skipped: out of time" | tee -a "$O/walls.txt"; return; fi
  timeout 150 $bin tune "$@" > "$O/$n.txt" 2>&1
  local rc=$? e=$(now)
  echo "$n rc=$rc start_ms=$(( (s - T0) / 1000000 )) wall_s=$(( (e - s) / 1000000 ))e-3 bin=$bin args: $*" | tee -a "$O/walls.txt"
}
space() { # NAME SPEC
  local n=$1 spec=$2; shift 2
  run $n-warm0 $B $spec $F --device 0 --max-runs 3 -o "$O/$n-warm0.json" &
  local w0=$!
  run $n-warm1 $B $spec $F --device 1 --max-runs 3 -o "$O/$n-warm1.json"
  wait $w0 # (not a bare wait: nvidia-smi runs in the background too)
  run $n-d0 $B $spec $F --device 0 -o "$O/$n-d0.json"
  run $n-two $B $spec $F --device all -o "$O/$n-two.json"
  run $n-twoprev ./vkocc-prev $spec $F --device all -o "$O/$n-twoprev.json"
  run $n-twoB $B $spec $F --device all -o "$O/$n-twoB.json"
}
space matmul8192 matmul8192/matmul.json
space matmul12288 matmul12288/matmul.json
kill $SMI
gzip -f "$O/smi.csv"
echo "total_s $(( ($(now) - T0) / 1000000000 ))" >> "$O/walls.txt"
