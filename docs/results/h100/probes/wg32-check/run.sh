#!/usr/bin/env bash
# lead's batch 5 (this session), H100: the comb's count at workgroup size 32 against bisection and the model (the
# persistent reduce at wg 32 was measured at P 2112-2117 where the model says 4224), plain probes and the reduce's
# own pipeline, both queue families.
set -u
O=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $R
V=.gpurun/build-gpu/vkocc; K=examples/tune/persistent_reduce/reduce.comp
export XDG_CACHE_HOME=$R/cache
x() { echo "+ $*" >> $R/log.txt; timeout 120 "$@" >> $R/log.txt 2>&1; echo "  exit $?" >> $R/log.txt; }
x $V fingerprint -o $R/fingerprint.json
for q in compute graphics; do
  for wg in 32 64; do x $V probe --wg $wg --shmem 0 --method both --queue $q; done
  x $V probe --wg 32 --shmem 256 --method both --queue $q
  for tree in 0 1; do
    x $V probe --shader $K --spec 0=32 --spec 1=4 --spec 2=1 --define VEC=2 --define TREE=$tree --method both --no-cache --queue $q --from $R/fingerprint.json
    x $V probe --shader $K --spec 0=32 --spec 1=4 --spec 2=1 --define VEC=2 --define TREE=$tree --method both --no-cache --queue $q --augmentation unrolled --from $R/fingerprint.json
  done
  x $V probe --shader $K --spec 0=32 --spec 1=4 --spec 2=1 --define VEC=2 --define TREE=1 --unmodified --no-cache --queue $q
done
rm -rf $R/cache
tar czf $O/res.tgz -C /tmp res
