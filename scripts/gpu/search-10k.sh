#!/usr/bin/env bash
# The >= 10,000-configuration space of the search comparison, recorded completely on the device, then (when
# time is left) tuned live with one strategy at a 5% budget:
#   scripts/gpu/search-10k.sh VKOCC OUT_DIR [PREVIOUS_OUT_DIR]
# VKOCC: the vkocc binary (or a build folder holding it). OUT_DIR: created; everything goes there.
# PREVIOUS_OUT_DIR: the OUT_DIR of an earlier call that ran out of time; its all.json and fingerprint.json are
# copied in first and the recording continues from them (--resume: brute force retraces its order, answering
# from the recorded results, and measures only what is missing).
# The space: examples/tune/histogram/histogram.json, 10,800 allowed configurations (docs/tune.md).
# The whole script stays under LIMIT_S seconds (default 560, for a 600 s device call): the recording gets what
# is left less a margin, under `timeout -s INT` (vkocc keeps what it measured on SIGINT: exit 1, RESULTS written);
# the live run only starts with LIVE_MIN_S (90) seconds left.
# Environment: LIMIT_S (560); WARMUP_MS (20: --warmup-ms for both runs, the cap of vkocc's warm-up; with the
# adaptive warm-up (2 x the GPU's idle time, at least 20 ms, at most the cap) 20 makes every configuration's
# warm-up 20 ms: about 440 s for the 10,800 at ~13.5 ms per new pipeline, ~66 ms per P (1,800 distinct
# pipelines; the BLOCKS_PER_P variants share them through the caches) and a few ms of measuring, one device
# call; "default" passes none: vkocc's cap of 500 ms lets the warm-up after each new pipeline and P reach
# ~160 ms, about 700 s, two calls. Too little warm-up lets the GPU's clocks drop while the host works and
# configurations measured later look slower: the summary prints vkocc's sentinel (one configuration re-timed
# every 64) and compares the live run's medians with the recording's for the configurations both measured);
# MAX_RUNS (8: --max-runs, one batch of timed runs after the first); SPREAD (0.05: --spread);
# STRATEGY (iterated_local_search: the live run's strategy); SEED (1); LIVE_MIN_S (90).
# Writes: runner.txt, search-10k.log (each command, its exit code and wall time), fingerprint.json, all.json
# (vkocc.tune-results/1) + all-t4.json (T4) + all.txt, live.json + live.txt, clocks.csv (nvidia-smi every
# 200 ms, where it exists), summary.txt.
. "$(dirname "$0")/lib.sh"
t_start=$SECONDS
arg=${1:-}
[ -n "$arg" ] && [ -n "${2:-}" ] || { echo "usage: $(basename "$0") VKOCC OUT_DIR [PREVIOUS_OUT_DIR]" >&2; exit 2; }
if [ -f "$arg" ]; then
  vk=$(cd "$(dirname "$arg")" && pwd)/$(basename "$arg")
  gpu_init "$(dirname "$arg")" "$2" 2>/dev/null || true
  [ -n "${out:-}" ] || { echo "$(basename "$0"): cannot create '$2'" >&2; exit 2; }
  bin=$vk
else
  gpu_init "$arg" "$2" || gpu_usage "[PREVIOUS_OUT_DIR]"
fi
[ -x "$bin" ] || { echo "$(basename "$0"): '$bin' is not an executable" >&2; exit 2; }
prev=${3:-}
limit=${LIMIT_S:-560}
warm=${WARMUP_MS:-20}
max_runs=${MAX_RUNS:-8}
spread=${SPREAD:-0.05}
strategy=${STRATEGY:-iterated_local_search}
seed=${SEED:-1}
live_min=${LIVE_MIN_S:-90}
spec=${SPEC:-$root/examples/tune/histogram/histogram.json}
log="$out/search-10k.log"
echo "vkocc: $bin; limit ${limit} s; warm-up ${warm}; max-runs ${max_runs}; spread ${spread}; live ${strategy} seed ${seed}" >>"$out/runner.txt"
left() { echo $(( limit - (SECONDS - t_start) )); }
run() { # CMD... : logged with its exit code and wall time; stdout+stderr into the log
  local t0; t0=$(date +%s%N)
  echo "+ $*" >>"$log"
  "$@" >>"$log" 2>&1
  local rc=$?
  echo "  exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms" >>"$log"
  return $rc
}
run_to() { # FILE CMD... : like run, the output into FILE as well
  local f=$1; shift
  local t0; t0=$(date +%s%N)
  echo "+ $*" >>"$log"
  "$@" >"$f" 2>&1
  local rc=$?
  cat "$f" >>"$log"
  echo "  exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms" >>"$log"
  return $rc
}
date -u +"start %Y-%m-%dT%H:%M:%SZ" >>"$log"
gpu_smi
smi=
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,utilization.gpu --format=csv -lms 200 \
    >"$out/clocks.csv" 2>&1 &
  smi=$!
fi
if [ -n "$prev" ]; then
  for f in all.json fingerprint.json; do
    [ -f "$prev/$f" ] && [ ! -f "$out/$f" ] && cp "$prev/$f" "$out/$f" && echo "copied $prev/$f" >>"$log"
  done
fi
run "$bin" devices
[ -f "$out/fingerprint.json" ] || run timeout 120 "$bin" fingerprint -o "$out/fingerprint.json"
opts=(--fingerprint "$out/fingerprint.json" --max-runs "$max_runs" --spread "$spread")
[ "$warm" = default ] || opts+=(--warmup-ms "$warm")
# 1. the complete space, brute force (every allowed configuration), resumable
t=$(( $(left) - 15 ))
if [ "$t" -gt 20 ]; then
  run_to "$out/all.txt" timeout -s INT -k 30 "$t" "$bin" tune "$spec" -o "$out/all.json" --t4 "$out/all-t4.json" \
    --strategy brute_force --fraction 1 --resume "${opts[@]}"
  echo "recording exit $? (0: complete; 124 or 1: stopped by the time limit, what was measured is kept: call again with this folder as PREVIOUS_OUT_DIR)" >>"$log"
fi
# 2. the live run: the strategy at 5% of the space, a cold cache of its own (its wall time includes every P)
complete=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["space"]; print(int(s["measured"]>=s["allowed"]))' \
  "$out/all.json" 2>/dev/null || echo 0)
t=$(( $(left) - 10 ))
if [ "$complete" = 1 ] && [ "$t" -ge "$live_min" ]; then
  XDG_CACHE_HOME="$out/.cache-live" run_to "$out/live.txt" timeout -s INT -k 30 "$t" "$bin" tune "$spec" \
    -o "$out/live.json" --strategy "$strategy" --fraction 0.05 --seed "$seed" "${opts[@]}"
  echo "live exit $?" >>"$log"
else
  echo "live run skipped: recording complete=$complete, ${t} s left (needs ${live_min})" >>"$log"
fi
[ -n "$smi" ] && kill "$smi" 2>/dev/null
# 3. summary: the space, the cost per configuration, the optimum, the live run against it
python3 - "$out" >"$out/summary.txt" 2>&1 <<'PY'
import json, os, sys
out = sys.argv[1]
def load(n):
    p = os.path.join(out, n)
    try:
        return json.load(open(p))
    except Exception:
        return None
a = load("all.json")
if not a:
    print("all.json: missing"); sys.exit(0)
res = a["results"]
inv = {}
for r in res: inv[r["invalidity"]] = inv.get(r["invalidity"], 0) + 1
print("space", a["space"], "validity", inv)
m = a["measurement"]
print("measurement", {k: m.get(k) for k in ("compiles", "pipelines_created", "pipelines_ms", "occupancy_ms", "measure_ms", "elapsed_ms")})
t = {k: sum(r["timing_ms"][k] for r in res) / max(1, len(res)) for k in ("compile", "pipeline", "occupancy", "measurement", "other", "total")}
print("per configuration ms: " + ", ".join("%s %.2f" % kv for kv in t.items()))
w = [r["timing_ms"]["warmup"] for r in res if isinstance(r.get("timing_ms", {}).get("warmup"), (int, float))]
if w:
    w.sort()
    print("warm-up ms per configuration: median %.1f, max %.1f" % (w[len(w) // 2], w[-1]))
sen = m.get("sentinel")
if sen:
    pts = sen.get("points", [])
    print("sentinel %s: range %.2f%% over %d points (median ns after N configurations: %s)" % (
        json.dumps(sen.get("config"), sort_keys=True), 100 * sen.get("range", 0), len(pts),
        ", ".join("%d: %.0f" % (p.get("after", 0), p.get("median_ns", 0)) for p in pts[:40])))
valid = sorted((r for r in res if r["valid"]), key=lambda r: r["median_ns"])
if valid:
    b = valid[0]
    print("optimum %.2f us %s P %s; slowest valid %.2f us" % (b["median_ns"] / 1e3, json.dumps(b["config"], sort_keys=True), b["P"], valid[-1]["median_ns"] / 1e3))
    within = sum(1 for r in valid if b["median_ns"] / r["median_ns"] >= 0.95)
    print("configurations within 95%% of the optimum: %d of %d valid" % (within, len(valid)))
l = load("live.json")
if l and valid:
    lb = l.get("best") or {}
    key = json.dumps(lb.get("config"), sort_keys=True)
    same = [r for r in valid if json.dumps(r["config"], sort_keys=True) == key]
    print("live: %s, %d configurations, elapsed %.1f s; found %s" % (l["search"], len(l["results"]), l["measurement"]["elapsed_ms"] / 1e3, key))
    if lb.get("median_ns"):
        print("  its median in the live run %.2f us = %.3f of the recorded optimum" % (lb["median_ns"] / 1e3, b["median_ns"] / lb["median_ns"]))
    if same:
        print("  its median in the recording %.2f us = %.3f of the recorded optimum" % (same[0]["median_ns"] / 1e3, b["median_ns"] / same[0]["median_ns"]))
    # the same configurations measured twice (recording, live run in a fresh process): drift shows here
    rec = {json.dumps(r["config"], sort_keys=True): r["median_ns"] for r in valid}
    ratios = sorted(r["median_ns"] / rec[json.dumps(r["config"], sort_keys=True)] for r in l["results"]
                    if r["valid"] and json.dumps(r["config"], sort_keys=True) in rec)
    if ratios:
        q = lambda f: ratios[min(len(ratios) - 1, int(f * len(ratios)))]
        print("  live / recorded median over %d configurations: median %.3f, 5%% %.3f, 95%% %.3f" % (len(ratios), q(0.5), q(0.05), q(0.95)))
PY
rm -rf "$out/.cache" "$out/.cache-live"
echo "done after $(( SECONDS - t_start )) s" >>"$log"
cat "$out/summary.txt"
