#!/bin/sh
# Runs `vkocc probe` N times per method x lavapipe thread count and prints, per cell, how many runs gave
# the right P (= LP_NUM_THREADS) with exit 0, a wrong P with exit 0 (must stay 0), exit 1 (could not
# establish P, or another runtime failure), any other exit, and the median and max wall time.
# usage: scripts/reliability/probe-runs.sh [-n RUNS] [-t "1 2 3"] [-m "comb bisect both"] [-b BINARY]
#        [-a "probe args"] [-l LOGDIR]
# Example: VKOCC_DEVICE is set to llvmpipe; run from the repository root after a Release build.
set -u
runs=100 threads="1 2" methods="comb bisect both" bin=build-rel/vkocc args="--wg 128 --shmem 4096" logdir=""
while getopts n:t:m:b:a:l: o; do
  case $o in
  n) runs=$OPTARG ;; t) threads=$OPTARG ;; m) methods=$OPTARG ;; b) bin=$OPTARG ;; a) args=$OPTARG ;;
  l) logdir=$OPTARG ;; *) echo "usage: $0 [-n RUNS] [-t THREADS] [-m METHODS] [-b BIN] [-a ARGS] [-l LOGDIR]" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "$0: $bin is not an executable (build it first)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "$0: needs python3 to read the JSON" >&2; exit 2; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -n "$logdir" ] && mkdir -p "$logdir"
export VKOCC_DEVICE=llvmpipe
printf '%-7s %-7s %5s %8s %13s %7s %6s %10s %8s\n' threads method runs correct "wrong,exit0" exit1 other "median s" "max s"
for t in $threads; do
  for m in $methods; do
    : > "$tmp/rows"
    i=0
    while [ $i -lt "$runs" ]; do
      i=$((i + 1))
      s=$(date +%s.%N)
      # shellcheck disable=SC2086
      LP_NUM_THREADS=$t "$bin" probe $args --method "$m" --json > "$tmp/out.json" 2> "$tmp/err"
      rc=$?
      e=$(date +%s.%N)
      P=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"]["P"])' "$tmp/out.json" 2>/dev/null || echo -)
      echo "$rc $P $(echo "$e - $s" | bc)" >> "$tmp/rows"
      if [ -n "$logdir" ] && [ "$rc" -ne 0 -o "$P" != "$t" ]; then
        echo "threads $t method $m run $i: exit $rc P $P: $(cat "$tmp/err")" >> "$logdir/failures.txt"
      fi
    done
    python3 - "$tmp/rows" "$t" "$m" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
t, m = sys.argv[2], sys.argv[3]
ok = sum(1 for rc, P, _ in rows if rc == "0" and P == t)
wrong = sum(1 for rc, P, _ in rows if rc == "0" and P != t)
e1 = sum(1 for rc, _, _ in rows if rc == "1")
other = len(rows) - ok - wrong - e1
ts = [float(x) for _, _, x in rows]
print(f"{t:<7} {m:<7} {len(rows):5d} {ok:8d} {wrong:13d} {e1:7d} {other:6d} {statistics.median(ts):10.2f} {max(ts):8.2f}")
PY
  done
done
