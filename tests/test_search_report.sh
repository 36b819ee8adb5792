#!/usr/bin/env bash
# ctest: scripts/search_report.py over a fixed selection of the committed results (2 seeds; every file of
# docs/results would make the test grow with each recording): every complete space replayed and in the table,
# incomplete ones and T4 twins listed as not replayed, the goal section, exit 0 or 1 (goal met or not);
# scripts/search-synth-space.py: 10,800 configurations, every one allowed by the spec's condition.
# usage: test_search_report.sh VKOCC SOURCE_DIR
set -euo pipefail
vkocc=$1 src=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src/docs/results"
# the folders' own files (not their sub-folders), each with the fingerprint beside it, and one sweep of
# incomplete recordings
mkdir "$tmp/results"
for d in h100/tune h200/tune h100/tune-examples h200/tune-examples lavapipe/tune/lp1 lavapipe/tune/lp2 h100/tune-examples/warmup-sweep; do
  find "$d" -maxdepth 1 -name '*.json' -exec cp --parents {} "$tmp/results" \;
done
cd "$src"
rc=0
python3 scripts/search_report.py "$vkocc" "$tmp/results" --seeds 2 -o "$tmp/r.md" --json "$tmp/r.json" 2>"$tmp/err" || rc=$?
[[ $rc == 0 || $rc == 1 ]] || fail "exit $rc: $(cat "$tmp/err")"
grep -q '^| h100/tune/histogram-u32.json | 266 (270) | random_sample |' "$tmp/r.md" || fail "h100 histogram row: $(head -20 "$tmp/r.md")"
grep -q '^| h200/tune-examples/reduce.json | 864 (1080) | iterated_local_search |' "$tmp/r.md" || fail "h200 reduce row"
grep -q 'reduce-t4.json: the T4 twin of' "$tmp/r.md" || fail "T4 twin note"
grep -q 'warmup-sweep/w0.json: not complete' "$tmp/r.md" || fail "incomplete note"
grep -q '^## The goal' "$tmp/r.md" || fail "goal section"
python3 - "$tmp/r.json" <<'PY' || fail "report JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "vkocc.search-report/1" and d["seeds"] == 2
spaces = {r["space"] for r in d["rows"]}
assert len(spaces) == 17, sorted(spaces)
assert all(r["configurations"] > 0 for r in d["rows"])
assert all(0 < v <= 1 for r in d["rows"] for v in r["at"].values() if v is not None)
PY
python3 scripts/search-synth-space.py "$tmp/s.json" --seed 3
python3 - "$tmp/s.json" <<'PY' || fail "synthetic space"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]
assert len(r) == 10800 == d["space"]["allowed"], len(r)
assert all(x["config"]["UNROLL"] <= x["config"]["ITEMS"] for x in r)
assert len({json.dumps(x["config"], sort_keys=True) for x in r}) == 10800
assert all(x["groups"][0] == x["P"] * x["config"]["BLOCKS_PER_P"] for x in r)
PY
echo "ok"
