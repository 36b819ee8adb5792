#!/usr/bin/env bash
# The build-ahead pool on a GPU machine, as run for docs/results/h100/tune-speed/pool (one call):
#   bash bench/tune/pool-run.sh AFTER_DIR BEFORE_DIR BENCH_DIR OUT_TAR LABEL STEPS
# [POOL_ONLY=DIR] AFTER_DIR and BEFORE_DIR hold a vkocc (AFTER_DIR also bench_pipeline_build); BENCH_DIR holds bench_tune.sh and
# tune/{saxpy,matmul}. STEPS, in order:
#   pbuild            bench_pipeline_build on the matmul, 1, 2, 4, 8, 15 threads, with and without the pipeline cache
#   explore           cold matmul searches: after with 8 and 15 threads, pool-stage limits, the pool's pipelines
#                     without the shared pipeline cache; before with 8
#   record            before and after interleaved, 3 rounds: matmul cold, matmul warm (the cache the cold run left),
#                     SAXPY (that cache: its pipelines cold); every run with the binary's default pool size
# Cold: a fresh XDG_CACHE_HOME holding only the device's fingerprint and register model (vkocc's pipeline cache
# and the driver's GLCache absent) and __GL_SHADER_DISK_CACHE=0 (the driver's disk cache off) in every run. Warm:
# the cache the binary's cold run of the same round left (vkocc's pipeline cache file).
set -u
A=$1; BF=$2; BD=$3; TAR=$4; L=$5; STEPS=$6
R=/tmp/pool-$L; rm -rf "$R" /tmp/pool-c-*; mkdir -p "$R"
export __GL_SHADER_DISK_CACHE=0
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s: $*" | tee -a "$R/run.log"; tar czf "$TAR" -C "$R" . 2>/dev/null; }
nproc > "$R/nproc.txt"; nvidia-smi -L > "$R/gpu.txt" 2>&1; nvidia-smi > "$R/nvidia-smi.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,utilization.gpu --format=csv -lms 100 > "$R/clocks.csv" 2>&1 &
NS=$!
BASE=/tmp/pool-c-base
XDG_CACHE_HOME=$BASE timeout 120 "$A/vkocc" fingerprint -o "$R/fingerprint.json" > "$R/fingerprint.log" 2>&1
el "fingerprint rc=$?"
find $BASE -maxdepth 3 > "$R/base-cache.txt"
cold() { rm -rf "$1"; cp -r $BASE "$1"; find "$1" -name 'pipelines-*.bin' -delete; rm -rf "$1/nvidia"; }
B="$BD/bench_tune.sh"
MM="$BD/tune/matmul/matmul.json"; SX="$BD/tune/saxpy/saxpy.json"
F=(--fingerprint "$R/fingerprint.json")
for s in $STEPS; do
  case $s in
  pbuild)
    cold /tmp/pool-c-pb
    XDG_CACHE_HOME=/tmp/pool-c-pb timeout 200 "$A/bench_pipeline_build" --shader "$BD/tune/matmul/matmul.comp" --k 32 \
      --threads 1,2,4,8,15 --cache both --repeat 2 > "$R/pipeline-build.txt" 2>&1
    el "pbuild rc=$?" ;;
  explore)
    i=0
    for v in "after 8 -" "after 15 -" "before 8 -" "after 15 2,15" "after 15 u" "after 8 -"; do
      set -- $v; i=$((i+1)); C=/tmp/pool-c-x$i; cold $C
      D=$A; [ "$1" = before ] && D=$BF
      if [ "$3" = u ]; then env XDG_CACHE_HOME=$C VKOCC_TEST_POOL_UNCACHED=1 BENCH_TIMEOUT=120 $B "$D/vkocc" "$R" x$i-$1-t$2-uncached "$MM" 32 1 --confirm 30 "${F[@]}" --threads $2
      elif [ "$3" = - ]; then env XDG_CACHE_HOME=$C BENCH_TIMEOUT=120 $B "$D/vkocc" "$R" x$i-$1-t$2 "$MM" 32 1 --confirm 30 "${F[@]}" --threads $2
      else env XDG_CACHE_HOME=$C VKOCC_TEST_POOL_STAGES=$3 BENCH_TIMEOUT=120 $B "$D/vkocc" "$R" x$i-$1-t$2-s${3/,/-} "$MM" 32 1 --confirm 30 "${F[@]}" --threads $2; fi
      el "explore $v"
    done ;;
  record) # rounds alternate which binary goes first; POOL_ONLY (a third vkocc, optional): its matmul cold after them
    for r in 1 2 3; do
      order="before after"; [ $r = 2 ] && order="after before"
      for b in $order; do
        D=$A; [ $b = before ] && D=$BF
        C=/tmp/pool-c-$b$r; cold $C
        XDG_CACHE_HOME=$C BENCH_TIMEOUT=120 $B "$D/vkocc" "$R" $b-matmul-cold-r$r "$MM" 32 1 --confirm 30 "${F[@]}"; el "$b matmul cold $r"
        XDG_CACHE_HOME=$C BENCH_TIMEOUT=120 $B "$D/vkocc" "$R" $b-matmul-warm-r$r "$MM" 32 1 --confirm 30 "${F[@]}"; el "$b matmul warm $r"
        XDG_CACHE_HOME=$C BENCH_TIMEOUT=180 $B "$D/vkocc" "$R" $b-saxpy-r$r "$SX" 32 1 --confirm 30 "${F[@]}"; el "$b saxpy $r"
      done
      if [ -n "${POOL_ONLY:-}" ]; then
        C=/tmp/pool-c-pool$r; cold $C
        XDG_CACHE_HOME=$C BENCH_TIMEOUT=120 $B "$POOL_ONLY/vkocc" "$R" poolonly-matmul-cold-r$r "$MM" 32 1 --confirm 30 "${F[@]}"
        el "pool-only matmul cold $r"
      fi
    done ;;
  esac
done
kill $NS 2>/dev/null
python3 "$BD/bench_tune_report.py" "$R" --json "$R/summary.json" > "$R/summary.txt" 2>&1
el done
