#!/usr/bin/env bash
# Every tuning a device needs for the policy database (docs/tune.md): writes OUT_DIR/histogram-u32.json,
# reduce-u32.json, reduce-f32.json (vkocc.tune-results/1), OUT_DIR/fingerprint.json and OUT_DIR/tune.log
# (each command, its exit code and wall time). SIZE: elements (default 33554432 = 128 MiB of u32). Uses the
# device named by $VKOCC_DEVICE (else vkocc's default). A result file already in OUT_DIR is resumed, not
# redone. Record: docs/results/h100/tune/, docs/results/h200/tune/, docs/results/lavapipe/tune/.
#   scripts/gpu/tune-device.sh BUILD_DIR OUT_DIR [SIZE]
source "$(dirname "$0")/lib.sh"
KEEP_CACHE=${KEEP_CACHE:-1} # the device's cached fingerprint is reused
gpu_init "$@" || gpu_usage "[SIZE]"
size=${3:-33554432}
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
run "$bin" fingerprint -o "$out/fingerprint.json"
run "$bin" tune histogram --size "$size" -o "$out/histogram-u32.json" --resume
run "$bin" tune reduce --size "$size" --type u32 -o "$out/reduce-u32.json" --resume
run "$bin" tune reduce --size "$size" --type f32 -o "$out/reduce-f32.json" --resume
date -u +"end %Y-%m-%dT%H:%M:%SZ" >>"$log"
