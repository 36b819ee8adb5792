#!/usr/bin/env bash
# lead's batch 7: is the transpose drift the GPU's clocks? The same subset (ELEMS 8, shared) swept with
# warm-ups of 0, 50, 500 ms per configuration, in one process each, clocks logged.
set -u
O=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s: $*" | tee -a $R/lead.log; }
V=.gpurun/build-gpu/vkocc
export XDG_CACHE_HOME=$R/cache
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,utilization.gpu --format=csv -lms 100 > $R/clocks.csv 2>&1 &
NS=$!
$V fingerprint -o $R/fingerprint.json > /dev/null 2>&1
for w in 0 50 500 1000; do
  timeout 150 $V tune examples/tune/transpose/transpose.json -o $R/w$w.json --warmup-ms $w --only ELEMS=8 --only USE_SHARED=1 --fingerprint $R/fingerprint.json > $R/w$w.txt 2>&1; el "warmup $w rc=$?"
done
kill $NS
rm -rf $R/cache
tar czf $O/res.tgz -C /tmp res
el done
