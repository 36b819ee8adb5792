#!/usr/bin/env bash
# The hostile corpus (tests/hostile/MANIFEST) on a GPU: every module through `calc --shader` with a 60 s
# limit; no crash (a signal, a sanitizer report, an exit above 3), no hang. The MANIFEST's expectations are
# lavapipe's limits: on a GPU with larger ones (32 descriptor sets, 256 push-constant bytes, more
# descriptors) some refusals become measurements; those are listed for review, each with the GPU's answer.
#   scripts/gpu/hostile.sh BUILD_DIR OUT_DIR      (BUILD_DIR holds the vkocc binary; run from the repo root)
# Writes OUT_DIR/outcomes.tsv (module, args, expected on lavapipe, exit, P or reason), OUT_DIR/devices.txt,
# OUT_DIR/summary.txt. Exit 0 when there was no crash and no hang.
set -uo pipefail
build=${1:?build directory (holds vkocc)}
out=${2:?output directory}
bin=$build/vkocc
dir=tests/hostile
mkdir -p "$out"
export XDG_CACHE_HOME=$(mktemp -d)
"$bin" devices > "$out/devices.txt" 2>&1
: > "$out/outcomes.tsv"
crash=0 hang=0 n=0 diff=0
while IFS=$'\t' read -r file want sub args; do
  case "$file" in '#'*|'') continue;; esac
  n=$((n + 1))
  # shellcheck disable=SC2086
  timeout -s KILL 60 "$bin" calc --shader "$dir/$file" $args --json > "$out/last.json" 2> "$out/last.err"
  rc=$?
  if [ $rc -eq 0 ]; then
    what="P = $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"]["P"])' "$out/last.json" 2>/dev/null)"
  else
    what=$(tail -n 1 "$out/last.err" | sed 's/^vkocc calc: //')
  fi
  if [ $rc -eq 137 ]; then hang=$((hang + 1)); what="HANG (killed after 60 s)"; fi
  if [ $rc -gt 3 ] && [ $rc -ne 137 ] || grep -q -e Sanitizer -e 'runtime error' "$out/last.err"; then
    crash=$((crash + 1)); what="CRASH (exit $rc): $(tail -n 3 "$out/last.err" | tr '\n' ' ')"; fi
  [ "$rc" != "$want" ] && diff=$((diff + 1))
  printf '%s\t%s\t%s\t%s\t%s\n' "$file" "$args" "$want" "$rc" "$what" >> "$out/outcomes.tsv"
done < "$dir/MANIFEST"
rm -f "$out/last.json" "$out/last.err"
{
  echo "$n cases: $crash crashes, $hang hangs, $diff with another exit code than on lavapipe (review those:"
  echo "a GPU's larger limits turn some refusals into measurements; an exit 0 must then hold a plausible P)"
  awk -F'\t' '$3 != $4' "$out/outcomes.tsv"
} > "$out/summary.txt"
cat "$out/summary.txt"
[ $crash -eq 0 ] && [ $hang -eq 0 ]
