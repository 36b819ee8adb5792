#!/usr/bin/env bash
# The tuning-speed benchmark on a GPU machine, as run for docs/results/h100/tune-speed (one call):
#   [BASELINE=OTHER_VKOCC] bash bench/tune/gpu-run.sh VKOCC BENCH_DIR OUT_TAR LABEL [STEPS]
# BENCH_DIR holds bench_tune.sh and tune/{saxpy,matmul,vadd}. STEPS (default "saxpy matmul stability vadd"):
# which parts run. The device's fingerprint is measured first, as a user's first `vkocc fingerprint` would (it
# fills the cache P's model reads, and gives the cluster ID). Leaves OUT_TAR with every results document, log and
# wall time.
set -u
V=$1; BD=$2; TAR=$3; L=$4; STEPS=${5:-saxpy matmul stability vadd}
R=/tmp/tune-speed-$L; rm -rf "$R"; mkdir -p "$R"
export XDG_CACHE_HOME=$R/cache
T0=$(date +%s)
# each step ends with the tar brought up to date: a call cut off at its limit still returns what ran
el() { echo "$(( $(date +%s) - T0 )) s: $*" | tee -a "$R/run.log"; tar czf "$TAR" -C "$R" --exclude cache . 2>/dev/null; }
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,utilization.gpu --format=csv -lms 100 > "$R/clocks.csv" 2>&1 &
NS=$!
timeout 120 "$V" fingerprint -o "$R/fingerprint.json" > "$R/fingerprint.log" 2>&1; el "fingerprint rc=$?"
B="$BD/bench_tune.sh"
F=(--fingerprint "$R/fingerprint.json")
for s in $STEPS; do
  case $s in
  saxpy) # SAXPY-P over 64 Mi floats: 16 random configurations, all re-timed at the end (the accuracy check)
    BENCH_TIMEOUT=180 $B "$V" "$R" saxpy "$BD/tune/saxpy/saxpy.json" 16 1 --confirm 16 "${F[@]}"; el saxpy ;;
  saxpy30) # the accuracy check: 32 random configurations, 30 of them re-timed at the end, interleaved
    BENCH_TIMEOUT=180 $B "$V" "$R" saxpy30 "$BD/tune/saxpy/saxpy.json" 32 1 --confirm 30 "${F[@]}"; el saxpy30 ;;
  saxpy30-transfer) # the same with the inputs restored by vkCmdCopyBuffer (the default since after3)
    VKOCC_TEST_COMPUTE_RESTORE=0 BENCH_TIMEOUT=180 $B "$V" "$R" saxpy30-transfer "$BD/tune/saxpy/saxpy.json" 32 1 --confirm 30 "${F[@]}"
    el saxpy30-transfer ;;
  saxpy30-compute) # ... and by a compute copy (core_copy)
    VKOCC_TEST_COMPUTE_RESTORE=1 BENCH_TIMEOUT=180 $B "$V" "$R" saxpy30-compute "$BD/tune/saxpy/saxpy.json" 32 1 --confirm 30 "${F[@]}"
    el saxpy30-compute ;;
  baseline-saxpy30) # the same with another binary (BASELINE), on the same board in the same call
    BENCH_TIMEOUT=180 $B "$BASELINE" "$R" baseline-saxpy30 "$BD/tune/saxpy/saxpy.json" 32 1 --confirm 30 "${F[@]}"
    el baseline-saxpy30 ;;
  baseline-matmul30)
    BENCH_TIMEOUT=120 $B "$BASELINE" "$R" baseline-matmul30 "$BD/tune/matmul/matmul.json" 32 1 --confirm 30 "${F[@]}"
    el baseline-matmul30 ;;
  matmul30)
    BENCH_TIMEOUT=120 $B "$V" "$R" matmul30 "$BD/tune/matmul/matmul.json" 32 1 --confirm 30 "${F[@]}"; el matmul30 ;;
  gpucheck) # the device side's own costs and the clock after idle gaps (bench/bench_gpucheck.c)
    timeout 120 "$(dirname "$V")/bench_gpucheck" > "$R/gpucheck.txt" 2>&1; el "gpucheck rc=$?" ;;
  matmul) # the 2048 x 2048 matmul: 16 random configurations, all re-timed
    BENCH_TIMEOUT=90 $B "$V" "$R" matmul "$BD/tune/matmul/matmul.json" 16 1 --confirm 16 "${F[@]}"; el matmul ;;
  stability) # 3 processes on one subspace of each
    for p in 1 2 3; do
      BENCH_TIMEOUT=45 $B "$V" "$R" matmul-p$p "$BD/tune/matmul/matmul.json" 8 7 --only block_size_x=32 "${F[@]}"; el matmul-p$p
    done ;;
  baseline-stability) # the matmul's 3 processes with BASELINE
    for p in 1 2 3; do
      BENCH_TIMEOUT=45 $B "$BASELINE" "$R" baseline-matmul-p$p "$BD/tune/matmul/matmul.json" 8 7 --only block_size_x=32 "${F[@]}"
      el baseline-matmul-p$p
    done ;;
  saxpy-stability)
    for p in 1 2 3; do
      BENCH_TIMEOUT=60 $B "$V" "$R" saxpy-p$p "$BD/tune/saxpy/saxpy.json" 8 7 --only WG=256,512 --only EPT=1,2 "${F[@]}"; el saxpy-p$p
    done ;;
  vadd) # KTT's vadd as KTT ships it (4 configurations)
    BENCH_TIMEOUT=40 $B "$V" "$R" vadd "$BD/tune/vadd/vadd.json" 4 1 "${F[@]}"; el vadd ;;
  esac
done
kill $NS 2>/dev/null
tar czf "$TAR" -C "$R" --exclude cache .
