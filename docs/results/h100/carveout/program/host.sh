#!/usr/bin/env bash
# Second carveout batch: the same SPIR-V under host-side switches, one at a time, next to
# `vkocc probe`. Run on the GPU machine from the repository root, after docs/results/h100/carveout/program/build.sh DIR:
#   source .gpu/enter.sh && DIR=build-gpu-vendor/carveout docs/results/h100/carveout/program/host.sh OUTDIR VKOCC
set -u
dir=${DIR:?set DIR to the build.sh folder}
out=${1:?usage: host.sh OUTDIR VKOCC}
vkocc=${2:?usage: host.sh OUTDIR VKOCC}
mkdir -p "$out"
grep -E '^(probe|plain\+CLK2x32) ' "$dir/manifest.txt" > "$out/manifest-host.txt"
common="--sizes 4096,8192,32768 --reps 3"
run() { # NAME switches...
  local name=$1; shift
  echo "== $name: $*"
  timeout 120 "$dir/carveout" "$out/manifest-host.txt" "$out/host-$name.json" $common "$@" 2>&1 | grep -v '^device '
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
run default
run bindings2 --bindings 2
run no-int64 --no-int64
run no-execprops --no-execprops
run cache --cache
run rec-cached --rec-cached
run warm-short --warm-short
run ramp --ramp
run sleep80us --sleep-ticks 80000
run pre-noshared --pre "$dir/spv/base-NO_READ.spv:0"
run pre-48k --pre "$dir/spv/probe.spv:49152"
run vkocc-like --bindings 2 --no-int64 --no-execprops --cache --rec-cached --warm-short --ramp --sleep-ticks 80000
run reps7 --reps 7
for a in "4096" "4096 --method comb --sleep-us 1000" "4096 --method comb" "32768"; do
  set -- $a
  f="$out/vkocc-probe-$(echo "$a" | tr ' ' '_' | tr -d '-').json"
  "$vkocc" probe --wg 64 --shmem $a --json > "$f"
  echo "== vkocc probe --wg 64 --shmem $a: P $(grep -m1 '"P"' "$f")"
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
