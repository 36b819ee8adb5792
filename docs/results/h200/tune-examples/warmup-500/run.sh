#!/usr/bin/env bash
# lead's batch 8: the transpose example's full sweep with the default 500 ms warm-up, clocks logged.
set -u
O=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R
T0=$(date +%s)
V=.gpurun/build-gpu/vkocc
export XDG_CACHE_HOME=$R/cache
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,utilization.gpu --format=csv -lms 100 > $R/clocks.csv 2>&1 &
NS=$!
$V fingerprint -o $R/fingerprint.json > /dev/null 2>&1
timeout 520 $V tune examples/tune/transpose/transpose.json -o $R/transpose.json --t4 $R/transpose-t4.json --fingerprint $R/fingerprint.json > $R/transpose.txt 2>&1
echo "transpose rc=$? $(( $(date +%s) - T0 )) s" | tee $R/lead.log
kill $NS
rm -rf $R/cache
tar czf $O/res.tgz -C /tmp res
