#!/usr/bin/env bash
# lead's batch 7 (this session), H100: policy selection by the kind of queue family end to end. The shipped
# histogram tuned on each queue family, one policy database from both, selected with each family's fingerprint.
set -u
O=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R
V=.gpurun/build-gpu/vkocc
export XDG_CACHE_HOME=$R/cache
x() { echo "+ $*" >> $R/log.txt; timeout 120 "$@" >> $R/log.txt 2>&1; echo "  exit $?" >> $R/log.txt; }
for q in compute graphics; do
  x $V fingerprint --queue $q -o $R/fp-$q.json
  x $V tune histogram --size 33554432 --queue $q -o $R/histogram-$q.json --fingerprint $R/fp-$q.json
done
x $V policy build $R/histogram-compute.json $R/histogram-graphics.json -o $R/db.json
for q in compute graphics; do
  x $V policy select --db $R/db.json --kernel histogram --size 33554432 --fingerprint $R/fp-$q.json
  x $V policy select --db $R/db.json --kernel histogram --size 33554432 --fingerprint $R/fp-$q.json --json
done
x $V policy transfer $R/histogram-compute.json $R/histogram-graphics.json
rm -rf $R/cache
tar czf $O/res.tgz -C /tmp res
