#!/bin/sh
# The policy store at scale (docs/policy-store.md): FILES x PER results (default 1000 x 1000 = 10^6) added by one
# `vkocc policy add` (one transaction), added again (every result there already), the store's size against the same
# results files compressed (gzip -9 and xz -9), `policy select` in one process (bench_policy_store) and as a cold
# process (the median of 21 runs of `vkocc policy select`, its start-up included), and `policy check`.
#   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel -j2 --target vkocc-cli bench_policy_store
#   bench/bench_policy_store.sh build-rel [FILES PER]
set -eu
B=${1:-build-rel}; F=${2:-1000}; P=${3:-1000}
D=${TMPDIR:-/tmp}/vkocc-store-bench.$$
FP=$(dirname "$0")/../tests/data/fp-hopper-132.json
mkdir -p "$D"
trap 'rm -rf "$D"' EXIT
python3 "$(dirname "$0")/gen_store_results.py" "$F" "$P" "$D/in"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before adding"
/usr/bin/time -f "add:      %e s wall, %U s user, %S s sys, %M KiB max RSS" "$B/vkocc" policy add --db "$D/s.sqlite" "$D"/in/r*.json
/usr/bin/time -f "add again (all present): %e s wall, %U s user, %S s sys" "$B/vkocc" policy add --db "$D/s.sqlite" "$D"/in/r*.json >/dev/null
echo "load average after adding: $(cut -d' ' -f1-3 /proc/loadavg)"
"$B/vkocc" policy check --db "$D/s.sqlite" | tr '\n' ' '; echo
store=$(cat "$D/s.sqlite" "$D/s.sqlite-wal" 2>/dev/null | wc -c)
json=$(cat "$D"/in/r*.json | wc -c)
gz=$(cat "$D"/in/r*.json | gzip -9 | wc -c)
xz=$(cat "$D"/in/r*.json | xz -9 -T1 | wc -c)
echo "size:     store $store bytes; the results as JSON $json, gzip -9 $gz ($(echo "scale=2; $store / $gz" | bc)x), xz -9 $xz ($(echo "scale=2; $store / $xz" | bc)x)"
"$B/bench/bench_policy_store" "$D/s.sqlite" "$FP" histogram 200
for i in $(seq 21); do
  s=$(date +%s%N)
  "$B/vkocc" policy select --db "$D/s.sqlite" --kernel histogram --fingerprint "$FP" --var problem_size=1048576 >/dev/null
  echo $(( ($(date +%s%N) - s) / 1000 ))
done | sort -n | awk '{a[NR]=$1} END {printf "cold process select (vkocc policy select, 21 runs): median %.1f ms, min %.1f ms, max %.1f ms\n", a[11]/1000, a[1]/1000, a[21]/1000}'
for i in $(seq 21); do
  s=$(date +%s%N)
  "$B/vkocc" -V >/dev/null
  echo $(( ($(date +%s%N) - s) / 1000 ))
done | sort -n | awk '{a[NR]=$1} END {printf "the same process doing nothing (vkocc -V, 21 runs): median %.1f ms\n", a[11]/1000}'
