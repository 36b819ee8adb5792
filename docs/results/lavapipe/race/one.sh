#!/bin/sh
# one vkocc tune process from empty caches: one.sh VKOCC SPEC OUTDIR TAG [args...]
v=$1; spec=$2; out=$3; tag=$4; shift 4
d=$(mktemp -d /tmp/h44m/cache.XXXXXX)
mkdir -p "$out"
n=$(date +%s%N)
XDG_CACHE_HOME=$d VKOCC_DEVICE=llvmpipe LP_NUM_THREADS=2 "$v" tune "$spec" -o "$out/$tag-$n.json" --fingerprint /work/h44/tests/data/fp-hopper-132.json --allow-other-device "$@" > "$out/$tag-$n.log" 2>&1
rc=$?
rm -rf "$d"
exit $rc
