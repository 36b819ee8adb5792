#!/usr/bin/env bash
# Replays every search strategy, with and without the occupancy features (the ablation), over every complete
# recorded space under docs/results (the vkocc tune results of the H100, H200 and lavapipe), no device needed.
#   scripts/search-replay.sh BUILD_DIR OUT_ROOT [SEEDS]
# writes OUT_ROOT/<device>/search/<space>.{txt,json,png} and OUT_ROOT/<device>/search/summary.md
# (SEEDS default 50). Run from the source tree; OUT_ROOT=docs/results updates the committed results.
set -euo pipefail
build=${1:?usage: search-replay.sh BUILD_DIR OUT_ROOT [SEEDS]}
root=${2:?usage: search-replay.sh BUILD_DIR OUT_ROOT [SEEDS]}
seeds=${3:-50}
vkocc=$build/vkocc
[ -x "$vkocc" ] || { echo "search-replay.sh: $vkocc is not an executable" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
spaces=()
for dev in h100 h200; do
  for k in histogram-u32 reduce-u32 reduce-f32; do spaces+=("$dev:$dev-$k:docs/results/$dev/tune/$k.json"); done
done
for lp in lp1 lp2 lp4; do
  for k in histogram-u32 reduce-u32 reduce-f32; do spaces+=("lavapipe:$lp-$k:docs/results/lavapipe/tune/$lp/$k.json"); done
done
for s in "${spaces[@]}"; do
  IFS=: read -r dev name file <<<"$s"
  out=$root/$dev/search
  mkdir -p "$out"
  cmd=(vkocc tune --replay "$file" --strategy all --seeds "$seeds" --ablation -o "$out/$name.json" --plot "$out/$name.png")
  echo "\$ ${cmd[*]}" >"$out/$name.txt"
  (cd "$src" && "$vkocc" "${cmd[@]:1}") >>"$out/$name.txt" 2>&1 # with -o the table is on stderr
  echo "search-replay.sh: $name done" >&2
done
python3 "$src/scripts/search-summary.py" "$root"
