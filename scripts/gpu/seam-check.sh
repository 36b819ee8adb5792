#!/usr/bin/env bash
# Same results before and after the executor (core/exec.h): runs `surface`, `probe --shader` on the
# histogram test shader (augmented, and --unmodified on the chase shader), `barrier-test` and
# `tune histogram --size 1M` with one build, writing each command's JSON and stderr to OUT_DIR, and a
# summary of the fields that must not change (P per point, derived limits, cluster ID, the shader's P and
# its statistics, the barrier's P and outcome, the tuning's valid configurations and the fastest one).
# Run it once with the old build and once with the new one, then diff the two summary.txt files.
#
#   scripts/gpu/seam-check.sh BUILD_DIR OUT_DIR [DEVICE]
#
# BUILD_DIR holds the vkocc binary; DEVICE goes to --device (default: vkocc's choice, the GPU). Each run
# uses a fresh cache in OUT_DIR/cache, so nothing is reused across builds. Needs python3 for the summary.
set -uo pipefail
build=${1:?build directory (holding vkocc)} out=${2:?output directory} dev=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "$build" && pwd)/vkocc
[ -x "$bin" ] || { echo "seam-check: no vkocc in $build" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
export XDG_CACHE_HOME="$out/cache"
rm -rf "$XDG_CACHE_HOME"
devopt=()
[ -n "$dev" ] && devopt=(--device "$dev")
run() { # NAME ARGS...: OUT/NAME.json, OUT/NAME.err, the exit code in OUT/rc.txt
  local name=$1; shift
  "$bin" "$@" "${devopt[@]}" > "$out/$name.json" 2> "$out/$name.err"
  echo "$name $?" >> "$out/rc.txt"
}
: > "$out/rc.txt"
"$bin" devices --json > "$out/devices.json" 2> "$out/devices.err"
run surface surface --json
run fingerprint fingerprint --fresh --json
run probe probe --wg 64 --shmem 4096 --json
run shader probe --shader "$root/tests/shaders/histogram.comp" --json
run shader-image probe --shader "$root/tests/shaders/uniform_image.comp" --json
run shader-unmod probe --shader "$root/tests/shaders/chase_unmod.comp" --unmodified --json
run barrier barrier-test --runs 5 --json
"$bin" tune histogram --size 1M -o "$out/tune.json" "${devopt[@]}" > "$out/tune.out" 2> "$out/tune.err"
echo "tune $?" >> "$out/rc.txt"
python3 - "$out" > "$out/summary.txt" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(n):
    try:
        with open(os.path.join(out, n + ".json")) as f: return json.load(f)
    except Exception as e: return {"unreadable": str(e)[:80]}
print("exit codes:", open(os.path.join(out, "rc.txt")).read().split())
s = load("surface")
pts = s.get("surface", s).get("points", [])
print("surface points:", len(pts))
for p in pts: print("  wg %s shared %s P %s" % (p.get("wg_size"), p.get("shared_bytes"), p.get("P")))
print("surface derived:", json.dumps(s.get("derived"), sort_keys=True))
f = load("fingerprint")
print("fingerprint cluster:", f.get("cluster_id"), "derived:", json.dumps(f.get("derived"), sort_keys=True))
pr = load("probe").get("probe", {})
print("probe P:", pr.get("P"), "agree:", pr.get("agree"))
for n in ("shader", "shader-image", "shader-unmod"):
    d = load(n)
    pr = d.get("probe", {})
    print(n, "P:", pr.get("P"), "shader:", json.dumps({k: v for k, v in d.get("shader", {}).items()
          if k in ("workgroup", "wg_size", "shared_bytes", "shared_exact", "augmentation_set", "descriptors", "push_bytes",
                    "entry")}, sort_keys=True))
    print(n, "statistics:", json.dumps(d.get("statistics"), sort_keys=True))
b = load("barrier")
print("barrier:", {k: b.get(k) for k in ("P", "groups", "completed", "correct", "timed_out", "wrong")})
t = load("tune")
res = t.get("results", [])
valid = sorted(json.dumps(r.get("config"), sort_keys=True) for r in res if r.get("valid"))
print("tune configurations:", len(res), "valid:", len(valid))
ranked = sorted((r for r in res if r.get("valid")), key=lambda r: r.get("median_ns") or 1e300)
print("tune fastest three (timing varies run to run: a different order among near-equal medians is no change):")
for r in ranked[:3]:
    print("   %.0f ns  %s" % (r.get("median_ns") or 0, json.dumps(r.get("config"), sort_keys=True)))
PY
cat "$out/summary.txt"
