#!/usr/bin/env bash
# lead's batch 5: the T1 examples with the warm-up (default 50 ms), SM/memory clocks logged every 100 ms, and a
# control sweep of transpose without the warm-up (--warmup-ms 0).
set -u
O=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s: $*" | tee -a $R/lead.log; }
B=.gpurun/build-gpu; V=$B/vkocc
export XDG_CACHE_HOME=$R/cache
nvidia-smi > $R/nvidia-smi.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,utilization.gpu --format=csv -lms 100 > $R/clocks.csv 2>&1 &
NS=$!
timeout 90 $V surface --registers --wg 64,128,256,512,768,1024 --live 0-256:16 -o $R/registers.json > $R/registers.txt 2>&1; el "registers rc=$?"
timeout ${TUNE_S:-330} scripts/gpu/tune-examples.sh $B $R/tune-examples > $R/tune-examples.stdout 2>&1; el "tune-examples rc=$?"
timeout 150 $V tune examples/tune/transpose/transpose.json -o $R/transpose-nowarmup.json --warmup-ms 0 --fingerprint $R/tune-examples/fingerprint.json > $R/transpose-nowarmup.txt 2>&1; el "transpose no warm-up rc=$?"
kill $NS
rm -rf $R/cache
tar czf $O/res.tgz -C /tmp res
el done
