#!/usr/bin/env bash
# lead's batch 2 (this session): on the H200, the register model measured first (so P of every pipeline as written can be
# established), then the same as the H100 batch 1: the reduce and its explicit counterpart with the adaptive warm-up
# (ratio 2, cap 500 ms), the sentinel every 64 configurations, and the transpose; SM clocks logged.
set -u
O=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R/tune
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s: $*" | tee -a $R/lead.log; }
V=.gpurun/build-gpu/vkocc; ex=examples/tune
export XDG_CACHE_HOME=$R/cache
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,utilization.gpu --format=csv -lms 100 > $R/clocks.csv 2>&1 &
NS=$!
$V devices > $R/devices.txt 2>&1
timeout 100 $V surface --registers --wg 64,128,256,512,768,1024 --live 0-256:16 -o $R/registers.json > $R/registers.txt 2>&1; el "registers rc=$?"
$V fingerprint -o $R/tune/fingerprint.json > $R/fingerprint.txt 2>&1; el "fingerprint rc=$?"
fp=(--fingerprint $R/tune/fingerprint.json)
timeout -s INT 300 $V tune $ex/persistent_reduce/reduce.json -o $R/tune/reduce.json --t4 $R/tune/reduce-t4.json "${fp[@]}" --resume > $R/tune/reduce.txt 2>&1; el "reduce rc=$?"
only=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["best"]["config"]; print(" ".join("--only %s=%s"%(k,v) for k,v in b.items() if k!="BLOCKS_PER_P"))' $R/tune/reduce.json)
el "only: $only"
timeout -s INT 60 $V tune $ex/persistent_reduce/reduce_explicit.json -o $R/tune/reduce-explicit.json --t4 $R/tune/reduce-explicit-t4.json "${fp[@]}" $only > $R/tune/reduce-explicit.txt 2>&1; el "explicit rc=$?"
left=$(( 545 - ($(date +%s) - T0) ))
timeout -s INT $left $V tune $ex/transpose/transpose.json -o $R/tune/transpose.json --t4 $R/tune/transpose-t4.json "${fp[@]}" > $R/tune/transpose.txt 2>&1; el "transpose rc=$? (bound $left s)"
kill $NS
rm -rf $R/cache
gzip $R/clocks.csv
tar czf $O/res.tgz -C /tmp res
el done
