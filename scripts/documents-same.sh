#!/bin/sh
# Every document and text two vkocc binaries write from the same stored inputs, compared byte for byte:
#   scripts/documents-same.sh BEFORE_BINARY AFTER_BINARY [WORKDIR]
# For a change that should change no answer (a restructure). The commands are deterministic: the calculator's
# points, tables, suggestions and register limits from stored surfaces, grids, fingerprints and register documents
# (text, CSV, JSON, -o), clustering, policy build / select / transfer / header, tune --replay (fixed seeds; text,
# JSON, -o), plots as SVG, the devices list, every command's --help and usage errors with their exit codes; and on
# the device the environment names (VKOCC_DEVICE, e.g. llvmpipe) what reads the cache: the fingerprint measured
# once by BEFORE, then read back by both (--json, its summary, calc from it). A replay's "wall_s" (the time each
# strategy took) is masked. Prints one line per command and the number that differ; exit 1 when any does.
set -u
BEFORE=$(realpath "$1") AFTER=$(realpath "$2")
WORK=${3:-$(mktemp -d /tmp/vkocc-same.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$ROOT/tests/data R=$ROOT/docs/results/h100
mkdir -p "$WORK/before" "$WORK/after" "$WORK/cache"
export XDG_CACHE_HOME=$WORK/cache ASAN_OPTIONS=detect_leaks=0
n=0 bad=0
# run NAME ARGS...: both binaries in their own folder (files written with -o land there), stdout, stderr, exit code
run() {
  name=$1; shift
  for side in before after; do
    if [ $side = before ]; then bin=$BEFORE; else bin=$AFTER; fi
    (cd "$WORK/$side" && "$bin" "$@" > "$name.out" 2> "$name.err"; echo $? > "$name.rc")
    # the binary's own path appears in getopt's messages: the same name on both sides
    sed -i "s|$bin|vkocc|g" "$WORK/$side/$name.err"
    # the one clock reading among these documents: a replay's wall time per strategy
    find "$WORK/$side" -maxdepth 1 -type f -exec sed -i -E 's/("wall_s": )[-+0-9.eE]+/\1T/' {} +
  done
  n=$((n + 1))
  if diff -r -q "$WORK/before" "$WORK/after" > /dev/null; then
    echo "same  $name: vkocc $*"
  else
    echo "DIFF  $name: vkocc $*"; diff -r "$WORK/before" "$WORK/after" | head -20
    bad=$((bad + 1))
    # keep comparing the next commands from equal folders
    rm -rf "$WORK/after" && cp -r "$WORK/before" "$WORK/after"
  fi
}

# help and usage
run help --help
for c in devices calibrate probe surface calc fingerprint cluster policy tune plot view barrier-test; do
  run "help-$c" $c --help
done
run help-surface-registers surface --registers --help
run help-tune-spec tune x.json --help
run help-tune-replay tune --replay x --help
run help-calc-regs calc --regs 1 --help
run usage-none
run usage-unknown frobnicate
run usage-calc calc --wg
run usage-surface surface --bogus
run usage-tune tune --size 5
run usage-tune-operand tune --fingerprint x.json reduce
run usage-tune-spec-missing tune --budget 3 missing.json -o r.json
run usage-replay-missing tune --replay missing.json
run usage-policy policy frobnicate

# the calculator from stored data
run calc-point calc --wg 128 --shmem 0 --from "$D/surface-h100.json"
run calc-point-json calc --wg 128 --shmem 0 --from "$D/surface-h100.json" --json
run calc-point-csv calc --wg 96 --shmem 8K --from "$D/h100-grid.csv" --csv
run calc-point-o calc --wg 128 --shmem 0 --from "$D/surface-h100.json" -o c.json
run calc-table calc --table --from "$D/h100-grid.csv"
run calc-table-shmem calc --table --from "$D/h100-grid.csv" --shmem 40K
run calc-table-csv calc --table --from "$D/h100-grid.csv" --csv
run calc-table-json calc --table --shmem 16K --from "$D/h100-grid.csv" --json
run calc-table-rdna calc --table --shmem 16K --json --from "$D/fp-rdna-40.json"
run calc-table-adaptive calc --table --from "$D/lvp-adaptive.json"
run calc-table-fp calc --table --from "$R/fingerprint/fingerprint-1.json"
run calc-mixed calc --from "$D/surface-h100.json" --table --shmem 20000 --csv
run calc-suggest calc --suggest-wg --shared-per-thread 16 --from "$D/h100-grid.csv" --json
run calc-suggest-text calc --suggest-wg --shared-base 20000 --max-wg 512 --from "$D/h100-grid.csv"
run calc-regs-point calc --regs 80 --wg 256 --shmem 15616 --from "$D/registers-synthetic-h100.json" --json
run calc-regs-text calc --regs 89 --wg 256 --shmem 256 --from "$D/registers-synthetic-h100.json"
run calc-regs-table calc --regs 64 --table --from "$D/registers-synthetic-h100.json"
run calc-regs-table-json calc --regs 64 --table --shmem 8K --from "$D/registers-synthetic-h100.json" --json
run calc-regs-suggest calc --regs 32 --suggest-wg --shared-per-thread 64 --from "$D/registers-synthetic-h100.json"
run calc-regs-v2 calc --regs 89 --wg 256 --shmem 256 --from "$D/fp-h100-v2-registers.json"
run calc-regs-conflict calc --regs 40 --wg 64 --from "$D/registers-conflict.json"
run calc-overfull calc --table --from "$D/overfull.csv"
run calc-bad calc --wg 64 --shmem 4194304k --from "$D/h100-grid.csv"

# clusters and policies
run cluster cluster "$D/fp-hopper-132.json" "$D/fp-hopper-114.json" "$D/fp-hopper-noisy.json" "$D/fp-ampere-82.json" "$D/fp-rdna-40.json"
run cluster-json cluster --json "$D/fp-hopper-132.json" "$D/fp-hopper-114.json" "$D/fp-hopper-noisy.json"
run cluster-o cluster "$D/fp-hopper-132.json" "$D/fp-rdna-40.json" -o cl.json
run policy-select policy select --db "$D/policy-db.json" --kernel radix_sort --fingerprint "$D/fp-hopper-114.json"
run policy-select-json policy select --db "$D/policy-db.json" --kernel radix_sort --fingerprint "$D/fp-rdna-40.json" --json
run policy-build policy build "$R/tune/histogram-u32.json" "$R/tune/reduce-u32.json" "$R/tune/reduce-f32.json" -o db.json
run policy-header policy header db.json -o tuned.h
run policy-transfer policy transfer "$R/tune/histogram-u32.json" "$R/tune/reduce-u32.json" --json
run policy-transfer-text policy transfer "$R/tune/reduce-u32.json" "$R/tune/reduce-f32.json"

# tuning replays (fixed seeds)
run replay tune --replay "$R/tune/reduce-u32.json" --seeds 3 --budget 40
run replay-json tune --replay "$R/tune/histogram-u32.json" --seeds 2 --budget 30 --json
run replay-o tune --replay "$R/tune/reduce-f32.json" --strategy random_sample,annealing --seeds 2 -o rp.json
run replay-ablation tune --replay "$R/tune/reduce-u32.json" --seeds 2 --budget 20 --ablation
run strategies tune --list-strategies --verbose

# plots (SVG: text)
run plot-surface plot surface "$D/surface-h100.json" -o s.svg
run plot-wg plot wg "$D/surface-h100.json" -o w.svg
run plot-comb plot comb "$D/raw-comb-h100.json" -o comb.svg
run plot-compare plot compare "$D/fp-hopper-132.json" "$D/fp-rdna-40.json" -o cmp.svg

# the device: its list, and the cache BEFORE fills, read by both
run devices devices
run devices-json devices --json
if [ -n "${VKOCC_DEVICE:-}" ]; then
  (cd "$WORK" && "$BEFORE" fingerprint > /dev/null 2>&1) # measured once, sealed in the cache
  run fingerprint-cached fingerprint --json
  run fingerprint-summary fingerprint
  run surface-registers surface --registers -o r.json
fi
echo "$n commands, $bad differ (outputs in $WORK)"
[ $bad -eq 0 ]
