#!/bin/bash
# SAXPY (bench/tune/saxpy, 2 configurations) on one H100 from an empty XDG cache, given this device's own fingerprint
# (measured first, without registers, into another cache) or another H100's (--allow-other-device), with the binary
# before tu_fingerprint_derived (vkocc-before) and after (vkocc). Usage: saxpy-own.sh OUTDIR
set -u
cd "$(dirname "$0")"
O=$1; mkdir -p "$O"
./vkocc --version > "$O/version.txt" 2>&1
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > "$O/boards.csv" 2>&1
XDG_CACHE_HOME=$(mktemp -d) timeout 60 ./vkocc fingerprint --fresh --no-registers --json > "$O/fp-own.json" 2> "$O/fp-own.err"
echo "fingerprint rc=$?" >> "$O/runs.txt"
for bin in vkocc-before vkocc; do
  for fp in own other; do
    f="$O/fp-own.json"; extra=""
    [ $fp = other ] && f=saxpy/fp-h100.json && extra=--allow-other-device
    XDG_CACHE_HOME=$(mktemp -d) timeout 120 ./$bin tune saxpy/saxpy.json --fingerprint $f $extra --seed 1 \
      --only WG=256 --only EPT=1 --only C=1,4 -o "$O/$bin-$fp.json" > "$O/$bin-$fp.txt" 2>&1
    echo "$bin $fp rc=$?" >> "$O/runs.txt"
  done
done
