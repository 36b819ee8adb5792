#!/usr/bin/env bash
# Both examples of examples/tune/ tuned at full size on the device, with T4 output (docs/tune.md):
#   scripts/gpu/tune-examples.sh BUILD_DIR OUT_DIR
# BUILD_DIR: a vkocc build (BUILD_DIR/vkocc); OUT_DIR: where everything goes (created). Uses the device named by
# $VKOCC_DEVICE (else vkocc's default). Writes OUT_DIR/fingerprint.json, transpose.json + transpose-t4.json
# (+ .metadata.json), reduce.json + reduce-t4.json, reduce-explicit.json (the best P-based configuration's other
# parameters at every explicit workgroup count), t4-validation.txt (python3-jsonschema, when present),
# summary.txt and tune-examples.log (each command, its exit code and wall time). A result file already in
# OUT_DIR is resumed, not redone.
set -u
build=${1:?usage: tune-examples.sh BUILD_DIR OUT_DIR}
out=${2:?usage: tune-examples.sh BUILD_DIR OUT_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
vkocc="$build/vkocc"
ex="$root/examples/tune"
mkdir -p "$out"
log="$out/tune-examples.log"
run() {
  local t0=$(date +%s%N)
  echo "+ $*" >>"$log"
  "$@" >>"$log" 2>&1
  local rc=$?
  echo "  exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms" >>"$log"
  return $rc
}
date -u +"start %Y-%m-%dT%H:%M:%SZ" >>"$log"
run "$vkocc" devices
run "$vkocc" fingerprint -o "$out/fingerprint.json"
fp=(--fingerprint "$out/fingerprint.json")
# every allowed configuration of each (the specs' Budget: ConfigurationFraction 1.0), the spec's random order
run "$vkocc" tune "$ex/transpose/transpose.json" -o "$out/transpose.json" --t4 "$out/transpose-t4.json" "${fp[@]}" --resume
run "$vkocc" tune "$ex/persistent_reduce/reduce.json" -o "$out/reduce.json" --t4 "$out/reduce-t4.json" "${fp[@]}" --resume
# the P-based launch against explicit workgroup counts: the best P configuration's other parameters pinned
only=$(python3 - "$out/reduce.json" <<'PY' 2>>"$log"
import json, sys
best = json.load(open(sys.argv[1]))["best"]["config"]
print(" ".join("--only %s=%s" % (k, v) for k, v in best.items() if k != "BLOCKS_PER_P"))
PY
)
if [ -n "$only" ]; then
  # shellcheck disable=SC2086
  run "$vkocc" tune "$ex/persistent_reduce/reduce_explicit.json" -o "$out/reduce-explicit.json" \
    --t4 "$out/reduce-explicit-t4.json" "${fp[@]}" --resume $only
else
  echo "no best P-based configuration (or no python3): explicit workgroup counts skipped" >>"$log"
fi
# T4 against the schemas
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - "$root/tests/data/tuning-formats" "$out" >"$out/t4-validation.txt" 2>&1 <<'PY'
import glob, json, os, sys
import jsonschema
schemas, out = sys.argv[1], sys.argv[2]
for f in sorted(glob.glob(os.path.join(out, "*-t4.json"))):
    for doc, sch in ((f, "T4-results-schema.json"), (f[:-5] + ".metadata.json", "T4-metadata-schema.json")):
        s = json.load(open(os.path.join(schemas, sch)))
        try:
            jsonschema.validators.validator_for(s)(s).validate(json.load(open(doc)))
            print("valid  ", os.path.basename(doc), "against", sch)
        except Exception as e:
            print("INVALID", os.path.basename(doc), "against", sch, ":", str(e).splitlines()[0])
PY
else
  echo "python3-jsonschema absent: T4 not validated" >"$out/t4-validation.txt"
fi
# summary: best of each, the cost breakdown, P-based vs explicit
python3 - "$out" >"$out/summary.txt" 2>&1 <<'PY'
import json, os, sys
out = sys.argv[1]
def load(n):
    p = os.path.join(out, n)
    return json.load(open(p)) if os.path.exists(p) else None
for name in ("transpose.json", "reduce.json", "reduce-explicit.json"):
    d = load(name)
    if not d:
        print(name, ": missing"); continue
    res = d["results"]
    inv = {}
    for r in res: inv[r["invalidity"]] = inv.get(r["invalidity"], 0) + 1
    t = {k: sum(r["timing_ms"][k] for r in res) / max(1, len(res)) for k in ("compile", "pipeline", "occupancy", "measurement", "other", "total")}
    print("%s: %s, device %s, cluster %s" % (name, d["kernel"], d["device"]["key"], d["cluster_id"]))
    print("  space %s; validity %s; compiles %d for %d pipelines" % (d["space"], inv, d["measurement"]["compiles"], d["measurement"]["pipelines_created"]))
    print("  per configuration ms: " + ", ".join("%s %.2f" % (k, v) for k, v in t.items()))
    if "best" in d: print("  best %.2f us %s P %s" % (d["best"]["median_ns"] / 1e3, d["best"]["config"], d["best"]["P"]))
    if name == "reduce-explicit.json":
        for r in sorted(res, key=lambda r: r["config"]["WORKGROUPS"]):
            print("    WORKGROUPS %6d: %s" % (r["config"]["WORKGROUPS"], "%.2f us" % (r["median_ns"] / 1e3) if r["valid"] else r["invalidity"]))
p, e = load("reduce.json"), load("reduce-explicit.json")
if p and e and "best" in p and "best" in e:
    print("P-based launch (P = %s, x%s): %.2f us; best explicit count (%d): %.2f us; ratio explicit/P-based %.3f" % (
        p["best"]["P"], p["best"]["config"]["BLOCKS_PER_P"], p["best"]["median_ns"] / 1e3, e["best"]["config"]["WORKGROUPS"],
        e["best"]["median_ns"] / 1e3, e["best"]["median_ns"] / p["best"]["median_ns"]))
PY
date -u +"end %Y-%m-%dT%H:%M:%SZ" >>"$log"
cat "$out/summary.txt" "$out/t4-validation.txt"
