#!/usr/bin/env bash
# lead's batch 6 (this session), H100: the final main after the merges. The seam check (surface, probe --shader,
# barrier-test, tune histogram) against the previous session's, the sealed caches (scripts/gpu/cache-seal.sh),
# vkocc fingerprint measuring the register axis and reusing it, the register case, a short T1 tuning.
set -u
O=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R
B=.gpurun/build-gpu; V=$B/vkocc
T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s: $*" | tee -a $R/lead.log; }
timeout 200 bash scripts/gpu/seam-check.sh $B $R/seam-check > $R/seam-check.stdout 2>&1; el "seam-check rc=$?"
timeout 150 bash scripts/gpu/cache-seal.sh $B $R/cache-seal > $R/cache-seal.stdout 2>&1; el "cache-seal rc=$?"
export XDG_CACHE_HOME=$R/cache
x() { echo "+ $*" >> $R/log.txt; timeout 120 "$@" >> $R/log.txt 2>&1; echo "  exit $?" >> $R/log.txt; }
x $V fingerprint -o $R/fp1.json
x $V fingerprint -o $R/fp2.json
x $V probe --shader tests/shaders/regpressure.comp --spec 0=256 --spec 1=80 --no-cache --from $R/fp1.json
x $V tune examples/tune/transpose/transpose.json -o $R/transpose30.json --budget 30 --seed 1 --fingerprint $R/fp1.json
el "checks done"
rm -rf $R/cache $R/seam-check/cache $R/cache-seal/cache
tar czf $O/res.tgz -C /tmp res
