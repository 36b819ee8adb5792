#!/usr/bin/env python3
"""The figures of README.md from the documents beside it: wall times, validity, and the medians of the same
configurations measured on the two GPUs. usage: compare.py RUN_DIR"""
import gzip, json, statistics as st, sys, os

def load(path):
    d = json.load(gzip.open(path))
    return d, {json.dumps(r["config"], sort_keys=True): r for r in d["results"]}

def compare(a, b, keys, label):
    rat = [b[k]["median_ns"] / a[k]["median_ns"] for k in keys]
    spread = lambda r: r["spread"] * r["median_ns"]  # MAD
    within = sum(abs(b[k]["median_ns"] - a[k]["median_ns"]) <= spread(a[k]) + spread(b[k]) for k in keys)
    within2 = sum(abs(b[k]["median_ns"] - a[k]["median_ns"]) <= 2 * (spread(a[k]) + spread(b[k])) for k in keys)
    dev = sorted(abs(r - 1) for r in rat)
    print(f"{label}: {len(keys)} configurations, median ratio {st.median(rat):.4f} (min {min(rat):.4f}, max {max(rat):.4f}), "
          f"|ratio - 1| median {100 * st.median(dev):.2f}%, 90th percentile {100 * dev[int(0.9 * len(dev))]:.2f}%; "
          f"within the two MADs {within}/{len(keys)}, within twice {within2}/{len(keys)}")

run = sys.argv[1]
print(open(os.path.join(run, "walls.txt")).read().strip())
d0, o0 = load(os.path.join(run, "one0.json.gz"))
d1, o1 = load(os.path.join(run, "one1.json.gz"))
for name, d in (("one0", d0), ("one1", d1)):
    s = d["measurement"].get("sentinel")
    if s: print(f"{name}: sentinel range {100 * s['range']:.2f}% over {len(s['points'])} points")
compare(o0, o1, [k for k in o1 if k in o0], "GPU 1 alone / GPU 0 alone")
two = os.path.join(run, "two.json.gz")
if os.path.exists(two):
    dt, ot = load(two)
    print("two GPUs: devices", [(x["uuid"][:8], x["measured"]) for x in dt["devices"]], "stopped", dt["fleet"]["stopped"])
    print("validity of every configuration as one GPU's:",
          {k: r["invalidity"] for k, r in o0.items()} == {k: r["invalidity"] for k, r in ot.items()})
    for dev in (0, 1):
        compare(o0, ot, [k for k, r in ot.items() if r["device"] == dev], f"two GPUs, measured by GPU {dev} / GPU 0 alone")
