#!/usr/bin/env bash
# One GPU call for two validations, as run for docs/results/h100/fingerprint-speed2 and docs/results/h100/race:
#   bash speed-race.sh KIT OUT TAR [PARTS]
# KIT holds before/ and after/ (vkocc, bench_fingerprint), spv/ (the --shader checks' SPIR-V) and matmul/ (the
# tuned kernel: bench/tune/matmul_spec, SPIR-V). PARTS (default "fingerprint shader race"): which parts run. TAR is rewritten after every step, so a
# call cut off at its limit still returns what ran. Every process starts in an empty cache (a fresh XDG_CACHE_HOME:
# vkocc's and the driver's pipeline caches cold) unless the step says otherwise; before and after alternate, so the
# board's drift falls on both.
#  fingerprint: fingerprint with registers (5 compute, 3 graphics), the cluster ID alone (--id-only, 5 a family),
#               the cached fingerprint and ID (5 each), vkocc surface cold then 5 warm (each family), bench_fingerprint
#  shader:      probe --shader and surface --shader in an empty cache, then again with what the first cached (after,
#               then before), on both queue families
#  race:        matmul 2048 tuned raced and with --full-rule: brute force (2 pairs, the raced one re-timing every
#               configuration at its end) and 10 seeds of a random search of 12 (the raced one re-timing its 12)
# For a dry run on lavapipe: REPS (5), GREPS (3), PAIRS (2), SEEDS ("1 .. 10"), TUNE_EXTRA (more tune options).
set -u
K=$1; O=$2; TAR=$3; PARTS=${4:-fingerprint shader race}
REPS=$(seq 1 "${REPS:-5}"); GREPS=$(seq 1 "${GREPS:-3}"); PAIRS=$(seq 1 "${PAIRS:-2}"); SEEDS=${SEEDS:-$(seq 1 10)}
read -r -a EXTRA <<< "${TUNE_EXTRA:-}"
mkdir -p "$O"
T0=$(date +%s)
pack() { echo "$(( $(date +%s) - T0 )) s: $*" | tee -a "$O/run.log"; tar czf "$TAR" -C "$O" . 2>/dev/null; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,pstate --format=csv > "$O/nvidia-smi.csv" 2>&1
nproc > "$O/host.txt"; uptime >> "$O/host.txt"
fresh() { mktemp -d /tmp/xdg.XXXXXX; }
# t LABEL CMD...: runs CMD; "LABEL ms rc" to times.txt, stdout to LABEL.out, stderr to LABEL.err
t() { local l=$1; shift; local a=$EPOCHREALTIME; "$@" > "$O/$l.out" 2> "$O/$l.err"; local rc=$?; local b=$EPOCHREALTIME;
      echo "$l $(awk "BEGIN{printf \"%.1f\", ($b - $a) * 1000}") $rc" >> "$O/times.txt"; }
declare -A FPDIR
for part in $PARTS; do case $part in
fingerprint)
  for i in $REPS; do for v in before after; do
    c=$(fresh); [ $i = 1 ] && FPDIR[$v]=$c
    XDG_CACHE_HOME=$c t $v-fp-compute-$i "$K/$v/vkocc" fingerprint --queue compute --json; done; done
  for i in $GREPS; do for v in before after; do
    XDG_CACHE_HOME=$(fresh) t $v-fp-graphics-$i "$K/$v/vkocc" fingerprint --queue graphics --json; done; done
  pack "fingerprints"
  for q in compute graphics; do for i in $REPS; do for v in before after; do
    XDG_CACHE_HOME=$(fresh) t $v-id-$q-$i "$K/$v/vkocc" fingerprint --id-only --queue $q --json; done; done; done
  pack "cluster ID alone"
  for i in $REPS; do for v in before after; do
    XDG_CACHE_HOME=${FPDIR[$v]} t $v-cached-$i "$K/$v/vkocc" fingerprint --queue compute --json
    XDG_CACHE_HOME=${FPDIR[$v]} t $v-idcached-$i "$K/$v/vkocc" fingerprint --id-only --queue compute --json; done; done
  pack "cached"
  for q in compute graphics; do
    declare -A SD
    for v in before after; do SD[$v]=$(fresh); XDG_CACHE_HOME=${SD[$v]} t $v-surface-$q-cold "$K/$v/vkocc" surface --queue $q --json; done
    for i in $REPS; do for v in before after; do
      XDG_CACHE_HOME=${SD[$v]} t $v-surface-$q-warm-$i "$K/$v/vkocc" surface --queue $q --json; done; done
  done
  pack "surface"
  for v in before after; do
    XDG_CACHE_HOME=$(fresh) t $v-bench "$K/$v/bench_fingerprint" --runs 3 --queue compute --json "$O/$v-bench.json"; done
  pack "bench_fingerprint" ;;
shader)
  S=$K/spv
  for v in after before; do for q in compute graphics; do
    c=$(fresh)
    for w in nocache cached; do
      XDG_CACHE_HOME=$c t $v-stencil4096-$q-$w "$K/$v/vkocc" probe --shader $S/stencil_tile.spv --spec 0=256 --spec 1=4096 --queue $q --no-cache --json; done
    c=$(fresh)
    for w in nocache cached; do
      XDG_CACHE_HOME=$c t $v-stencilsurf-$q-$w "$K/$v/vkocc" surface --shader $S/stencil_tile.spv --vary 0=64,256,1024 --vary 1=1024,4096,8192 --queue $q --json; done
    c=$(fresh)
    for w in nocache cached; do
      XDG_CACHE_HOME=$c t $v-regp80-$q-$w "$K/$v/vkocc" probe --shader $S/regpressure.spv --spec 0=256 --spec 1=80 --queue $q --no-cache --json; done
    c=$(fresh)
    for w in nocache cached; do
      XDG_CACHE_HOME=$c t $v-histo-$q-$w "$K/$v/vkocc" surface --shader $S/histogram.spv --vary 0=64,256,1024 --vary 1=256,4096 --queue $q --json; done
  done; pack "shader $v"; done ;;
race)
  R=$O/race; mkdir -p "$R"
  export XDG_CACHE_HOME=$(fresh)
  t race-fingerprint "$K/after/vkocc" fingerprint -o "$R/fingerprint.json"
  M=$K/matmul/matmul_spec.json
  TUNE=("$K/after/vkocc" tune "$M" --fingerprint "$R/fingerprint.json" "${EXTRA[@]}")
  nvidia-smi --query-gpu=timestamp,clocks.sm,pstate,power.draw,utilization.gpu --format=csv -lms 200 > "$R/clocks.csv" 2>&1 &
  NS=$!
  for p in $PAIRS; do
    XDG_CACHE_HOME=$(fresh) t race-brute-p$p "${TUNE[@]}" -o "$R/race-brute-p$p.json" --strategy brute_force --confirm 44
    XDG_CACHE_HOME=$(fresh) t full-brute-p$p "${TUNE[@]}" -o "$R/full-brute-p$p.json" --strategy brute_force --full-rule
    pack "brute force pair $p"
  done
  for s in $SEEDS; do
    XDG_CACHE_HOME=$(fresh) t race-s$s "${TUNE[@]}" -o "$R/race-s$s-matmul.json" --strategy random_sample --budget 12 --seed $s --confirm 12
    XDG_CACHE_HOME=$(fresh) t full-s$s "${TUNE[@]}" -o "$R/full-s$s-matmul.json" --strategy random_sample --budget 12 --seed $s --full-rule
    pack "seed $s"
  done
  kill $NS 2>/dev/null ;;
esac; done
pack "done"
