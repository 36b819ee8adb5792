#!/usr/bin/env bash
# The same T1 problem tuned N times (docs/tune.md): how often the identical configuration wins, and whether each
# run's best lies within the measured spread of every other run's best, as each run measured it and side by side
# (the distinct bests re-timed in one process, interleaved).
#   scripts/reliability/tune-stability.sh BUILD_DIR OUT_DIR [N] [SPEC] [VKOCC TUNE OPTIONS...]
# Default: 5 runs of examples/tune/transpose/transpose.json at 256 x 256 floats, brute force over the tiles of
# the shared-memory variant (ELEMS 1, USE_SHARED 1, PAD 1). Writes OUT_DIR/run-K.json, OUT_DIR/stability.txt
# (with the host's load average before and after). Uses $VKOCC_DEVICE (lavapipe: VKOCC_DEVICE=llvmpipe).
set -u
build=${1:?usage: tune-stability.sh BUILD_DIR OUT_DIR [N] [SPEC] [OPTIONS...]}
out=${2:?usage: tune-stability.sh BUILD_DIR OUT_DIR [N] [SPEC] [OPTIONS...]}
n=${3:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
spec=${4:-}
shift $(( $# < 4 ? $# : 4 ))
if [ -z "$spec" ]; then
  # the transpose example at 256 x 256 (its kernel beside it)
  cp "$root/examples/tune/transpose/transpose.comp" "$out/"
  python3 - "$root/examples/tune/transpose/transpose.json" "$out/transpose.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ks = d["KernelSpecification"]
ks["ProblemSize"] = [256, 256]
for a in ks["Arguments"]:
    if a["Name"] in ("W", "H"): a["FillValue"] = 256
d["Search"] = {"Name": "brute_force"}
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
  spec="$out/transpose.json"
  set -- --only ELEMS=1 --only USE_SHARED=1 --only PAD=1 "$@"
fi
echo "load before: $(cat /proc/loadavg)" >"$out/stability.txt"
for k in $(seq 1 "$n"); do
  "$build/vkocc" tune "$spec" -o "$out/run-$k.json" "$@" >"$out/run-$k.log" 2>&1 || echo "run $k: exit $?" >>"$out/stability.txt"
done
echo "load after: $(cat /proc/loadavg)" >>"$out/stability.txt"
python3 - "$out" "$n" >>"$out/stability.txt" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
runs = []
for k in range(1, n + 1):
    d = json.load(open("%s/run-%d.json" % (out, k)))
    b = d["best"]
    r = next(r for r in d["results"] if r["config"] == b["config"])
    t = r  # the search's median ranks (a final round, --confirm, only reports)
    mad = t["spread"] * t["median_ns"]
    runs.append((k, json.dumps(b["config"], sort_keys=True), t["median_ns"], mad, t["runs"], len(d["results"])))
for k, cfg, m, mad, nr, nres in runs:
    print("run %d: best %s  %.2f us +- %.2f us (MAD, %d runs; %d configurations)" % (k, cfg, m / 1e3, mad / 1e3, nr, nres))
from collections import Counter
c = Counter(cfg for _, cfg, *_ in runs)
cfg, wins = c.most_common(1)[0]
print("identical best: %d of %d runs pick %s" % (wins, n, cfg))
ok = 0
for i, (_, _, mi, _, _, _) in enumerate(runs):
    within = all(abs(mi - mj) <= madj for j, (_, _, mj, madj, _, _) in enumerate(runs) if j != i)
    ok += within
    print("run %d's best (%.2f us) within every other run's best +- its MAD: %s" % (i + 1, mi / 1e3, "yes" if within else "no"))
print("%d of %d runs' bests lie within the spread of every other run's best" % (ok, n))
# the same check on the bests re-measured side by side in one process (below): what the host does between
# processes falls on all of them alike
picks = sorted({cfg for _, cfg, *_ in runs})
open("%s/picks.json" % out, "w").write(json.dumps([json.loads(c) for c in picks]))
PY
# Side by side: the distinct bests (and the other combinations of their values) tuned again in one process with
# a final round over all of them (3 interleaved rounds), so each run's pick is compared with the others under
# the same conditions of the host.
only=$(python3 - "$out/picks.json" <<'PY'
import json, sys
picks = json.load(open(sys.argv[1]))
vals = {}
for p in picks:
    for k, v in p.items(): vals.setdefault(k, set()).add(v)
n = 1
for k in vals: n *= len(vals[k])
print(" ".join("--only %s=%s" % (k, ",".join(str(x) for x in sorted(v))) for k, v in sorted(vals.items())), n)
PY
)
k=${only##* }
if [ "$k" -ge 2 ]; then
  # the picks' --only filters replace the default ones; the caller's other options stay
  rest=(); skip=0
  for a in "$@"; do
    if [ $skip = 1 ]; then skip=0; continue; fi
    if [ "$a" = --only ]; then skip=1; continue; fi
    rest+=("$a")
  done
  # shellcheck disable=SC2086
  "$build/vkocc" tune "$spec" -o "$out/side-by-side.json" ${only% *} --confirm "$k" "${rest[@]}" >"$out/side-by-side.log" 2>&1 ||
    echo "side by side: exit $?" >>"$out/stability.txt"
  python3 - "$out" "$n" >>"$out/stability.txt" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
d = json.load(open("%s/side-by-side.json" % out))
fr = {json.dumps(r["config"], sort_keys=True): r.get("final_round") for r in d["results"]}
print("side by side (one process, %d configurations, final round of 3 interleaved rounds):" % len(fr))
runs = []
for k in range(1, n + 1):
    b = json.load(open("%s/run-%d.json" % (out, k)))["best"]["config"]
    f = fr.get(json.dumps(b, sort_keys=True))
    if not f: print("run %d: its best has no final round" % k); continue
    runs.append((k, f["median_ns"], f["spread"] * f["median_ns"]))
    print("run %d's best %s: %.2f us +- %.2f us (MAD, %d runs)" % (k, json.dumps(b, sort_keys=True), f["median_ns"] / 1e3,
          f["spread"] * f["median_ns"] / 1e3, f["runs"]))
ok = sum(all(abs(mi - mj) <= madj for kj, mj, madj in runs if kj != ki) for ki, mi, _ in runs)
print("side by side: %d of %d runs' bests lie within the spread of every other run's best" % (ok, len(runs)))
PY
else
  echo "side by side: every run picked the same configuration" >>"$out/stability.txt"
fi
cat "$out/stability.txt"
