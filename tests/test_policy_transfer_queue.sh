#!/usr/bin/env bash
# ctest: policy transfer and the kind of queue family. From the H100's histogram tuned through each family
# (docs/results/h100/policy-queue/), two more "devices" of the same cluster are made (B: the graphics+compute
# results, C: the compute-only ones, under other device names): within the cluster rule a target counts only the
# results tuned on its own kind of family where there are any, as policy select prefers them.
# usage: test_policy_transfer_queue.sh VKOCC SOURCE_DIR
set -euo pipefail
vkocc=$1 src=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q=$src/docs/results/h100/policy-queue
python3 - "$q" "$tmp" <<'PY'
import json, sys
q, tmp = sys.argv[1], sys.argv[2]
for name, f in (("B", "histogram-graphics.json"), ("C", "histogram-compute.json")):
    d = json.load(open("%s/%s" % (q, f)))
    d["device"]["name"] += " " + name
    d["device"]["key"] = d["device"]["key"].replace("HBM3", "HBM3 " + name)
    json.dump(d, open("%s/%s.json" % (tmp, name), "w"))
PY
"$vkocc" policy transfer "$q/histogram-compute.json" "$tmp/B.json" "$tmp/C.json" --json >"$tmp/t.json" ||
  fail "policy transfer exit $?"
python3 - "$tmp/t.json" <<'PY' || fail "the kinds of queue family"
import json, sys
t = json.load(open(sys.argv[1]))["groups"][0]["targets"]
got = [(x["queue_kind"], [k.split(" | ")[0].split(" ")[-1] for k in x["rules"]["cluster"]["from"]]) for x in t]
want = [("compute-only", ["C"]), ("graphics+compute", ["HBM3", "C"]), ("compute-only", ["HBM3"])]
assert got == want, got
PY
echo "ok"
