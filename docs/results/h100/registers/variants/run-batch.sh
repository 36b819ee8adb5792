#!/usr/bin/env bash
# lead's batch 4 (this session), H100: (1) scripts/gpu/registers-variants.sh (branch regs3): the register-pressure
# shader with the compact augmentation and its variants; (2) the >= 10,000 space's recording finished from batch 3's
# all.json (--resume) and the live run of iterated local search at a 5% budget.
set -u
O=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R
T0=$(date +%s)
G=$PWD/.gpurun/g3
cd $G
timeout 250 bash scripts/gpu/registers-variants.sh $G/vkocc $R/registers-variants > $R/registers-variants.stdout 2>&1
echo "registers-variants rc=$? $(( $(date +%s) - T0 )) s" >> $R/lead.log
SPEC=$G/examples/tune/histogram/histogram_explicit.json WARMUP_MS=default LIMIT_S=$(( 560 - ($(date +%s) - T0) )) LIVE_MIN_S=60 \
  bash scripts/gpu/search-10k.sh $G/vkocc $R/search-10k $PWD/../prev10k > $R/search-10k.stdout 2>&1
echo "search-10k rc=$? $(( $(date +%s) - T0 )) s" >> $R/lead.log
rm -rf $R/registers-variants/cache
tar czf $O/res.tgz -C /tmp res
