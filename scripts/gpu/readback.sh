#!/usr/bin/env bash
# Every document vkocc writes, read back, on a GPU: a surface, the user's shader surface (--vary over workgroup
# size and bins of tests/shaders/histogram.comp), a fingerprint, a raw comb, calc's CSV and table JSON; each
# through calc --from and plot surface / wg (PNG, PDF, SVG), the raw comb through plot comb, the fingerprint
# through plot compare against the committed H100 one, and policy select with no variables on a tiny tuning
# of this device. Usage (repository root): scripts/gpu/readback.sh BUILD_DIR OUT_DIR
# Look for: every line "ok"; calc.csv and calc2.csv identical; shader-surface.png with one column per bin count
# at its true shared size; the policy line "rule: device" with a "note:" naming problem_size.
set -uo pipefail
build=${1:?BUILD_DIR} out=${2:?OUT_DIR}
vkocc=$build/vkocc root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
fails=0
step() { # step NAME COMMAND...: runs it, output to OUT_DIR/NAME.log
  local name=$1; shift
  if "$@" > "$out/$name.log" 2>&1; then echo "ok    $name"; else echo "FAIL  $name (exit $?, $out/$name.log)"; fails=$((fails + 1)); fi
}
step surface "$vkocc" surface -o "$out/surface.json"
step shader-surface "$vkocc" surface --shader "$root/tests/shaders/histogram.comp" --vary 0=64,128,256,512,1024 \
  --vary 1=256,2048,4096,8192,12288 -o "$out/shader-surface.json"
step fingerprint "$vkocc" fingerprint -o "$out/fingerprint.json"
step raw-comb "$vkocc" probe --wg 256 --shmem 16384 --method comb --raw "$out/raw-comb.json"
step calc-csv sh -c "'$vkocc' calc --from '$out/surface.json' --table --csv -o '$out/calc-table.json' > '$out/calc.csv'"
step calc-csv-again sh -c "'$vkocc' calc --from '$out/calc.csv' --table --csv > '$out/calc2.csv' && cmp '$out/calc.csv' '$out/calc2.csv'"
for f in surface shader-surface fingerprint calc-table; do
  step "calc-from-$f" "$vkocc" calc --from "$out/$f.json" --table
  for ext in png pdf svg; do step "plot-surface-$f-$ext" "$vkocc" plot surface "$out/$f.json" -o "$out/$f.$ext"; done
  step "plot-wg-$f" "$vkocc" plot wg "$out/$f.json" -o "$out/$f-wg.png"
done
step plot-surface-csv "$vkocc" plot surface "$out/calc.csv" -o "$out/calc-csv.png"
step plot-comb "$vkocc" plot comb "$out/raw-comb.json" -o "$out/comb.png"
step plot-compare "$vkocc" plot compare "$out/fingerprint.json" "$root/docs/results/h100/fingerprint/fingerprint-1.json" \
  -o "$out/compare.png"
step tune "$vkocc" tune reduce --size 1048576 --only wg_size=256,1024 --only elements_per_thread=4 --max-runs 3 \
  --fingerprint "$out/fingerprint.json" -o "$out/tune.json"
step policy-build "$vkocc" policy build "$out/tune.json" -o "$out/db.json"
step policy-select "$vkocc" policy select --db "$out/db.json" --kernel reduce --fingerprint "$out/fingerprint.json"
cat "$out/policy-select.log"
echo "$fails failed"
exit $((fails > 0))
