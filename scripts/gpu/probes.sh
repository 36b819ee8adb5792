#!/usr/bin/env bash
# Devices, calibration (3 runs), CUDA's figures, occupancy at 70 points (10 workgroup sizes x 7 shared sizes,
# both methods, 5 repetitions) with wall times, a raw comb, a probe without the shader clock, and the probe
# benchmark (BUILD_DIR/bench/bench_probe). Record: docs/results/h100/ (probes/, probe-grid.csv).
#   scripts/gpu/probes.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
gpu_init "$@" || gpu_usage
gpu_smi
gpu_cuda_props
"$bin" devices --json >"$out/devices.json"
"$bin" devices
for i in 1 2 3; do "$bin" calibrate --json >"$out/calibrate-$i.json"; done
"$bin" calibrate
gpu_smi
mkdir -p "$out/probes"
echo "wg,shmem,comb_median,comb_min,comb_max,bisect_median,bisect_min,bisect_max,agree,wall_s" >"$out/probe-grid.csv"
for wg in 32 64 96 128 192 256 384 512 768 1024; do
  for shm in 0 1024 4096 8192 16384 32768 49152; do
    t0=$(date +%s.%N)
    "$bin" probe --wg $wg --shmem $shm --method both --repeat 5 --json >"$out/probes/probe-$wg-$shm.json" 2>"$out/probes/probe-$wg-$shm.err"
    t1=$(date +%s.%N)
    python3 - "$out/probes/probe-$wg-$shm.json" $wg $shm "$(python3 -c "print(round($t1 - $t0, 3))")" >>"$out/probe-grid.csv" <<'PY'
import json, sys
try:
    p = json.load(open(sys.argv[1]))["probe"]
    c, b = p["comb"], p["bisect"]
    print(f'{sys.argv[2]},{sys.argv[3]},{c["median"]},{c["min"]},{c["max"]},{b["median"]},{b["min"]},{b["max"]},{p["agree"]},{sys.argv[4]}')
except Exception:
    print(f'{sys.argv[2]},{sys.argv[3]},ERROR,,,,,,,{sys.argv[4]}')
PY
  done
done
"$bin" probe --wg 256 --shmem 16K --method comb --raw "$out/raw-comb-256-16384.json" >/dev/null
"$bin" probe --wg 128 --shmem 0 --no-shader-clock --repeat 3 --json >"$out/probe-noclock-128-0.json"
if [ -x "$build/bench/bench_probe" ]; then
  "$build/bench/bench_probe" --repeat 5 --json "$out/bench-probe.json" | tee "$out/bench-probe.txt"
fi
cat "$out/probe-grid.csv"
