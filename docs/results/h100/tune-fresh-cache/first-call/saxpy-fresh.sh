#!/bin/bash
# SAXPY (bench/tune/saxpy) on one H100 with an empty XDG cache and only --fingerprint: no register model is known, so
# P of the pipeline as written cannot be established where the augmentation changes the register count. Two
# configurations; the output says why each is invalid. Usage: saxpy-fresh.sh OUTDIR
set -u
cd "$(dirname "$0")"
O=$1; mkdir -p "$O"
export XDG_CACHE_HOME=$(mktemp -d)
./vkocc --version > "$O/version.txt" 2>&1
nvidia-smi --query-gpu=index,name,driver_version --format=csv > "$O/boards.csv" 2>&1
timeout 120 ./vkocc tune saxpy/saxpy.json --fingerprint saxpy/fp-h100.json --allow-other-device --seed 1 \
  --only WG=256 --only EPT=1 --only C=1,4 -o "$O/saxpy.json" > "$O/saxpy.txt" 2>&1
echo "rc=$?" >> "$O/saxpy.txt"
