#!/usr/bin/env bash
# Issues 2 and 3 on a lent NVIDIA GPU: devices, calibration, CUDA ground truth, the probe grid
# (10 workgroup sizes x 7 shared-memory sizes, both methods, 5 repetitions) and the probe benchmark.
# Run from the repository root on the GPU machine:  source .gpu/enter.sh && scripts/gpu/validate-probes.sh OUTDIR
set -uo pipefail
out=${1:?output directory}
bin=build-gpu/vkocc
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv > "$out/nvidia-smi.csv" 2>&1
nvcc -O2 -arch=sm_90 -o /tmp/cuda_props scripts/gpu/cuda_props.cu && /tmp/cuda_props > "$out/cuda.json"
$bin devices --json > "$out/devices.json"
$bin devices
for i in 1 2 3; do $bin calibrate --json > "$out/calibrate-$i.json"; done
$bin calibrate
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv >> "$out/nvidia-smi.csv"
echo "wg,shmem,comb_median,comb_min,comb_max,bisect_median,bisect_min,bisect_max,agree,wall_s" > "$out/probe-grid.csv"
for wg in 32 64 96 128 192 256 384 512 768 1024; do
  for shm in 0 1024 4096 8192 16384 32768 49152; do
    t0=$(date +%s.%N)
    $bin probe --wg $wg --shmem $shm --method both --repeat 5 --json > "$out/probe-$wg-$shm.json" 2> "$out/probe-$wg-$shm.err"
    t1=$(date +%s.%N)
    python3 - "$out/probe-$wg-$shm.json" $wg $shm $(python3 -c "print(round($t1 - $t0, 3))") >> "$out/probe-grid.csv" <<'PY'
import json, sys
try:
    p = json.load(open(sys.argv[1]))["probe"]
    c, b = p["comb"], p["bisect"]
    print(f'{sys.argv[2]},{sys.argv[3]},{c["median"]},{c["min"]},{c["max"]},{b["median"]},{b["min"]},{b["max"]},{p["agree"]},{sys.argv[4]}')
except Exception as e:
    print(f'{sys.argv[2]},{sys.argv[3]},ERROR,,,,,,,{sys.argv[4]}')
PY
  done
done
$bin probe --wg 256 --shmem 16K --method comb --raw "$out/raw-comb-256-16384.json" > /dev/null
$bin probe --wg 128 --shmem 0 --no-shader-clock --repeat 3 --json > "$out/probe-noclock-128-0.json"
build-gpu/bench/bench_probe --repeat 5 --json "$out/bench-probe.json" | tee "$out/bench-probe.txt"
cat "$out/probe-grid.csv"
