#!/usr/bin/env bash
# The sealed caches on a GPU, where the driver keeps pipelines (lavapipe keeps none, so tests/test_cache_seal.c
# can check there only that a bad pipeline cache file is rewritten):
#   1. `surface` twice: the second says "with a warm cache" (the sealed file reached the driver);
#   2. one byte of the driver's data flipped by hand: "with a cold cache", exit 0, the file sealed again;
#   3. `fingerprint` twice (the second from the cache), then one derived figure edited by hand: measured again
#      (no "using the cached fingerprint"), the same cluster ID as the first measurement.
#   scripts/gpu/cache-seal.sh BUILD_DIR OUT_DIR      (BUILD_DIR holds the vkocc binary)
# Writes OUT_DIR/log.txt and OUT_DIR/summary.txt (one line per check, PASS or FAIL). Exit 0 when all pass.
set -uo pipefail
build=${1:?build directory (holds vkocc)}
out=${2:?output directory}
bin=$build/vkocc
mkdir -p "$out"
export XDG_CACHE_HOME=$(mktemp -d)
log=$out/log.txt
: > "$log"
: > "$out/summary.txt"
fail=0
check() { # NAME CONDITION-RESULT(0/1)
  if [ "$2" -eq 0 ]; then echo "PASS $1" >> "$out/summary.txt"; else echo "FAIL $1" >> "$out/summary.txt"; fail=1; fi
}
run() { echo "\$ $*" >> "$log"; timeout -s KILL 600 "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }

"$bin" devices >> "$log" 2>&1
run "$bin" surface --wg 64,128 --shmem 0 --no-refine > /dev/null
second=$(run "$bin" surface --wg 64,128 --shmem 0 --no-refine)
echo "$second" | grep -q "with a warm cache"; check "second surface uses the sealed pipeline cache (warm)" $?
pc=$(ls "$XDG_CACHE_HOME"/vkocc/pipelines-*.bin | head -1)
size=$(stat -c %s "$pc")
echo "pipeline cache $pc: $size bytes" >> "$log"
# flip one byte of the driver's data, halfway through it (past vkocc's 24-byte header)
python3 - "$pc" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
i = 24 + (len(b) - 24) // 2
b[i] ^= 0xff
open(p, 'wb').write(b)
EOF
third=$(run "$bin" surface --wg 64,128 --shmem 0 --no-refine); rc=$?
[ $rc -eq 0 ] && echo "$third" | grep -q "with a cold cache"; check "an edited pipeline cache is not given to the driver (cold, exit 0)" $?
head -c 8 "$pc" | grep -q vkoccPC1; check "the pipeline cache file is sealed again" $?

first=$(run "$bin" fingerprint --json 2> "$out/fp1.err"); rc=$?
check "fingerprint measured (exit $rc)" $rc
id1=$(echo "$first" | python3 -c 'import json,sys; print(json.load(sys.stdin)["cluster_id"])' 2>/dev/null)
fp=$(ls "$XDG_CACHE_HOME"/vkocc/fingerprint-*.json | head -1)
python3 - "$fp" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["derived"]["sm_count"] += 1
json.dump(d, open(p, "w"), indent=2)
EOF
again=$(run "$bin" fingerprint --json 2> "$out/fp2.err"); rc=$?
id2=$(echo "$again" | python3 -c 'import json,sys; print(json.load(sys.stdin)["cluster_id"])' 2>/dev/null)
sm1=$(echo "$first" | python3 -c 'import json,sys; print(json.load(sys.stdin)["derived"]["sm_count"])' 2>/dev/null)
sm2=$(echo "$again" | python3 -c 'import json,sys; print(json.load(sys.stdin)["derived"]["sm_count"])' 2>/dev/null)
echo "cluster IDs: $id1 then $id2; SM counts $sm1 then $sm2" >> "$log"
[ $rc -eq 0 ] && [ "$sm1" = "$sm2" ]; check "an edited fingerprint is measured again, not served (SM count $sm1 -> $sm2)" $?
rm -rf "$XDG_CACHE_HOME"
cat "$out/summary.txt"
exit $fail
