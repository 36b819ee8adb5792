#!/usr/bin/env bash
# The GPU validation of the fresh-fingerprint speed: main's code (before) and this branch's (after), each process in
# an empty cache. Usage (on the GPU machine, repository root): build-gpu-kit/run.sh OUTDIR TARDIR [before after]
# (OUTDIR: the raw files; TARDIR gets results-VERSION.tgz after each version and times.txt as it goes)
set -u
out=$1; tar_to=$2; shift 2
vers=${*:-before after}
mkdir -p "$out"
K=${KIT:-$PWD/build-gpu-kit}
S=$K/spv
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/nvidia-smi.csv" 2>&1
fresh() { mktemp -d /tmp/xdg.XXXXXX; }
# t LABEL CMD...: runs CMD, appends "LABEL ms rc" to times.txt, its stdout to LABEL.out, stderr to LABEL.err
t() { local l=$1; shift; local a=$EPOCHREALTIME; "$@" > "$out/$l.out" 2> "$out/$l.err"; local rc=$?; local b=$EPOCHREALTIME;
      echo "$l $(awk "BEGIN{printf \"%.1f\", ($b - $a) * 1000}") $rc" | tee -a "$out/times.txt" | tee -a "$tar_to/times.txt"; }
for v in $vers; do
  B=$K/$v
  # 1. vkocc fingerprint (with the register axis), 5 processes, each in an empty cache; compute family
  for i in 1 2 3 4 5; do c=$(fresh); echo "$c" > "$out/$v-fpdir-$i"; XDG_CACHE_HOME=$c t $v-fp-compute-$i $B/vkocc fingerprint --queue compute --json; done
  # the graphics family, 2 processes
  for i in 1 2; do c=$(fresh); XDG_CACHE_HOME=$c t $v-fp-graphics-$i $B/vkocc fingerprint --queue graphics --json; done
  # 2. the cluster ID alone (before: the fingerprint without registers, the nearest main has)
  for i in 1 2 3 4 5; do c=$(fresh)
    if [ $v = after ]; then XDG_CACHE_HOME=$c t $v-id-$i $B/vkocc fingerprint --id-only --json
    else XDG_CACHE_HOME=$c t $v-id-$i $B/vkocc fingerprint --no-registers --json; fi; done
  for i in 1 2 3; do c=$(fresh)
    if [ $v = after ]; then XDG_CACHE_HOME=$c t $v-id-graphics-$i $B/vkocc fingerprint --id-only --queue graphics --json
    else XDG_CACHE_HOME=$c t $v-id-graphics-$i $B/vkocc fingerprint --no-registers --queue graphics --json; fi; done
  # 3. the cached fingerprint (the cache of run 1), 5 processes; the ID alone from it
  c=$(cat "$out/$v-fpdir-1")
  for i in 1 2 3 4 5; do XDG_CACHE_HOME=$c t $v-cached-$i $B/vkocc fingerprint --queue compute --json; done
  if [ $v = after ]; then for i in 1 2 3 4 5; do XDG_CACHE_HOME=$c t $v-idcached-$i $B/vkocc fingerprint --id-only --queue compute --json; done; fi
  # 4. vkocc surface: cold once, then warm (the same cache) 5 processes
  c=$(fresh); XDG_CACHE_HOME=$c t $v-surface-cold $B/vkocc surface --json
  for i in 1 2 3 4 5; do XDG_CACHE_HOME=$c t $v-surface-warm-$i $B/vkocc surface --json; done
  # 5. phase shares of a fresh fingerprint
  t $v-bench $B/bench_fingerprint --runs 3 --queue compute --json "$out/$v-bench.json"
  # 6. probe/surface --shader without, then with a cached fingerprint (each sequence in an empty cache)
  c=$(fresh)
  XDG_CACHE_HOME=$c t $v-probe-n80-nocache $B/vkocc probe --shader $S/regpressure.spv --spec 0=256 --spec 1=80 --no-cache --json
  XDG_CACHE_HOME=$c t $v-probe-n80-cached $B/vkocc probe --shader $S/regpressure.spv --spec 0=256 --spec 1=80 --no-cache --json
  c=$(fresh)
  XDG_CACHE_HOME=$c t $v-probe-n0-nocache $B/vkocc probe --shader $S/regpressure.spv --spec 0=256 --spec 1=0 --no-cache --json
  XDG_CACHE_HOME=$c t $v-probe-n0-cached $B/vkocc probe --shader $S/regpressure.spv --spec 0=256 --spec 1=0 --no-cache --json
  c=$(fresh)
  XDG_CACHE_HOME=$c t $v-surfsh-nocache $B/vkocc surface --shader $S/regpressure.spv --vary 0=64,256,1024 --vary 1=0,80,128 --json
  XDG_CACHE_HOME=$c t $v-surfsh-cached $B/vkocc surface --shader $S/regpressure.spv --vary 0=64,256,1024 --vary 1=0,80,128 --json
  c=$(fresh)
  XDG_CACHE_HOME=$c t $v-histo-nocache $B/vkocc surface --shader $S/histogram.spv --vary 0=64,256,1024 --vary 1=256,4096 --json
  XDG_CACHE_HOME=$c t $v-histo-cached $B/vkocc surface --shader $S/histogram.spv --vary 0=64,256,1024 --vary 1=256,4096 --json
  # the graphics family with the register model of the compute family's fingerprint (run 2's cache)
  c=$(cat "$out/$v-fpdir-2")
  XDG_CACHE_HOME=$c t $v-probe-n80-graphics $B/vkocc probe --shader $S/regpressure.spv --spec 0=256 --spec 1=80 --queue graphics --no-cache --json
  (cd "$out" && tar czf "$tar_to/results-$v.tgz" .) && echo "packed $v"
done
