#!/usr/bin/env bash
# lead's batch 3 (this session): the >= 10,000-configuration space recorded whole on the H100: the histogram with
# explicit workgroup counts (examples/tune/histogram/histogram_explicit.json, 10,800 allowed), brute force, the
# adaptive warm-up (vkocc's default) and the sentinel; scripts/gpu/search-10k.sh from branch search2.
set -u
O=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R
G=$PWD/.gpurun/g3
cd $G
SPEC=$G/examples/tune/histogram/histogram_explicit.json WARMUP_MS=default LIMIT_S=555 \
  bash scripts/gpu/search-10k.sh $G/vkocc $R/search-10k > $R/search-10k.stdout 2>&1
echo "search-10k rc=$?" >> $R/lead.log
tar czf $O/res.tgz -C /tmp res
