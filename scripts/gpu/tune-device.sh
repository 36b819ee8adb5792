#!/usr/bin/env bash
# Every tuning a device needs for the policy database (issue 10, docs/tune.md):
#   scripts/gpu/tune-device.sh OUTDIR VKOCC [SIZE]
# OUTDIR: where the results go (created); VKOCC: the vkocc binary; SIZE: elements (default 33554432 =
# 128 MiB of u32). Writes OUTDIR/histogram-u32.json, reduce-u32.json, reduce-f32.json (vkocc.tune-results/1),
# OUTDIR/fingerprint.json and OUTDIR/tune.log (each command, its exit code and wall time). Uses the device
# named by $VKOCC_DEVICE (else vkocc's default). A result file already in OUTDIR is resumed, not redone.
set -u
out=${1:?usage: tune-device.sh OUTDIR VKOCC [SIZE]}
vkocc=${2:?usage: tune-device.sh OUTDIR VKOCC [SIZE]}
size=${3:-33554432}
mkdir -p "$out"
log="$out/tune.log"
run() {
  local t0=$(date +%s%N)
  echo "+ $*" >>"$log"
  "$@" >>"$log" 2>&1
  local rc=$?
  echo "  exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms" >>"$log"
  return $rc
}
date -u +"start %Y-%m-%dT%H:%M:%SZ" >>"$log"
# the fingerprint (cached by vkocc; measured here when absent) gives the cluster ID every result carries
run "$vkocc" fingerprint -o "$out/fingerprint.json"
run "$vkocc" tune histogram --size "$size" -o "$out/histogram-u32.json" --resume
run "$vkocc" tune reduce --size "$size" --type u32 -o "$out/reduce-u32.json" --resume
run "$vkocc" tune reduce --size "$size" --type f32 -o "$out/reduce-f32.json" --resume
date -u +"end %Y-%m-%dT%H:%M:%SZ" >>"$log"
