#!/usr/bin/env bash
# Issue 9 cross-check on a lent GPU: P of an UNMODIFIED pipeline by dispatch bisection on its own runtime
# (probe --shader --unmodified) against the augmented pipeline's comb, for a latency-bound shader
# (tests/shaders/chase_unmod.comp: constant 0 workgroup size, 1 shared words, 2 dependent loads).
# Run from the repository root on the GPU machine with the vkocc binary at $1:
#   source .gpu/enter.sh && scripts/gpu/unmodified-chase.sh gpurun/vkocc OUTDIR
set -uo pipefail
bin=${1:?vkocc binary} out=${2:?output directory}
mkdir -p "$out"
export XDG_CACHE_HOME=$(mktemp -d)
echo "wg words shared rounds augmented_comb_P unmodified_P (or why not)" | tee "$out/summary.txt"
for p in "64 256" "64 1024" "64 2048" "64 8192" "256 4096" "1024 1024"; do
  set -- $p
  for r in 16384 65536; do
    f="$out/wg$1-words$2-rounds$r"
    $bin probe --shader tests/shaders/chase_unmod.comp --spec 0=$1 --spec 1=$2 --spec 2=$r --no-cache \
      --method comb --json > "$f-aug.json" 2> "$f-aug.err"
    $bin probe --shader tests/shaders/chase_unmod.comp --spec 0=$1 --spec 1=$2 --spec 2=$r --no-cache \
      --unmodified --json > "$f.json" 2> "$f.err"
    rc=$?
    aug=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"]["P"])' "$f-aug.json" 2>/dev/null)
    if [ $rc = 0 ]; then un=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"]["P"])' "$f.json"); else un="rc=$rc $(tail -1 "$f.err")"; fi
    echo "$1 $2 $(( $2 * 4 )) $r ${aug:-?} | ${un}" | tee -a "$out/summary.txt"
  done
done
