#!/usr/bin/env bash
# Runs the README's test command N times in a row with one CPU hog (`yes > /dev/null`) per core beside it,
# and prints one line per run (exit status, wall seconds, failed tests) and a summary.
#   scripts/reliability/suite-under-load.sh [RUNS=20] [HOGS=nproc]
set -uo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-20}
hogs=${2:-$(nproc)}
scripts/test.sh -N >/dev/null || exit 1           # build once, quietly (ctest -N lists only)
pids=()
for ((i = 0; i < hogs; i++)); do yes >/dev/null & pids+=($!); done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
log=$(mktemp -d)
fails=0
times=()
printf '%-4s %-6s %-8s %-40s %s\n' run exit seconds failed skipped
for ((r = 1; r <= runs; r++)); do
  t0=$(date +%s.%N)
  scripts/test.sh >"$log/run$r.log" 2>&1
  rc=$?
  t=$(echo "$(date +%s.%N) - $t0" | bc)
  times+=("$t")
  # ctest lists skipped tests under "did not run" and failures under "FAILED": keep them apart
  failed=$(sed -n '/tests FAILED:/,$p' "$log/run$r.log" | grep -E '^\s+[0-9]+ - ' | awk '{print $3}' | paste -sd, -)
  skipped=$(sed -n '/did not run:/,/tests FAILED:/p' "$log/run$r.log" | grep -E '^\s+[0-9]+ - ' | awk '{print $3}' | paste -sd, -)
  [ "$rc" -ne 0 ] && fails=$((fails + 1))
  printf '%-4s %-6s %-8.1f %-40s %s\n' "$r" "$rc" "$t" "${failed:--}" "${skipped:--}"
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
med=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
printf 'runs %d, failed %d, hogs %d, seconds: median %.1f, min %.1f, max %.1f (logs in %s)\n' "$runs" "$fails" \
  "$hogs" "$med" "$(echo "$sorted" | head -1)" "$(echo "$sorted" | tail -1)" "$log"
[ "$fails" -eq 0 ]
