#!/usr/bin/env python3
"""The figures of README.md on boards that differ: the same configurations measured on GPU 0 and GPU 1 alone, raw and
divided by a factor (the fleet run's, measured by vkocc from its reference configurations; the ratio of the two
runs' sentinels; the best constant there is, the median ratio), each pair counted within the sum of its two MADs;
the fleet documents' normalization. usage: compare_boards.py RUN_DIR"""
import gzip, json, math, os, statistics as st, sys

def load(path):
    d = json.load(gzip.open(path))
    return d, {json.dumps(r["config"], sort_keys=True): r for r in d["results"]}

def agree(a, b, fac, label):
    keys = [k for k in b if k in a and a[k]["invalidity"] == "correct" and b[k]["invalidity"] == "correct"]
    mad = lambda r, f=1.0: r["spread"] * r["median_ns"] / f
    rat = [b[k]["median_ns"] / fac / a[k]["median_ns"] for k in keys]
    w1 = sum(abs(b[k]["median_ns"] / fac - a[k]["median_ns"]) <= mad(a[k]) + mad(b[k], fac) for k in keys)
    w2 = sum(abs(b[k]["median_ns"] / fac - a[k]["median_ns"]) <= 2 * (mad(a[k]) + mad(b[k], fac)) for k in keys)
    dev = sorted(abs(r - 1) for r in rat)
    print(f"  {label:48s} n={len(keys)} ratio median {st.median(rat):.4f} ({min(rat):.4f}..{max(rat):.4f}), |ratio-1| median "
          f"{100 * st.median(dev):.2f}% p90 {100 * dev[int(0.9 * len(dev))]:.2f}%; within the MADs {w1}/{len(keys)}, twice {w2}")
    return keys, rat

def sentinel(d):
    s = d["measurement"].get("sentinel")
    return (json.dumps(s["config"], sort_keys=True), st.median([p["median_ns"] for p in s["points"]])) if s else (None, None)

def fleet(name, d):
    print(f"{name}: devices measured {[x['measured'] for x in d['devices']]}, best {json.dumps(d['best']['config'], sort_keys=True)} "
          f"{d['best']['median_ns'] / 1e3:.2f} us ranked by {d['best'].get('ranked_by')}")
    n = d["fleet"].get("normalization")
    if not n: return None
    refs = n.get("references") or [n.get("reference")]
    print(f"  references {[json.dumps(r, sort_keys=True) for r in refs]}")
    for x in n["devices"]:
        ratios = x.get("ratios")
        print(f"  device {x['device']}: factor {x.get('factor')}, spread {x.get('factor_spread')}, applied {x.get('applied', '(before the gate)')}, "
              f"{len(x['points'])} points" + (f", ratios {[round(r, 4) if r else r for r in ratios]}" if ratios else ""))
    print(f"  final round: {len(n['final_round']['candidates'])} candidates; note: {n.get('note')}")
    return n["devices"][1].get("factor") if len(n["devices"]) > 1 else None

run = sys.argv[1]
f = lambda n: os.path.join(run, n + ".json.gz")
print(open(os.path.join(run, "walls.txt")).read().strip())
pairs = [p for p in (("one0", "one1", ("two", "twoB")), ("d0a", "d1a", ("dtwo",)), ("d0b", "d1b", ("dtwo",)), ("w0", "w1", ("wtwo",)))
         if os.path.exists(f(p[0])) and os.path.exists(f(p[1]))]
factors = {}
for n in ("two", "twoB", "dtwo", "wtwo"):
    if os.path.exists(f(n)): factors[n] = fleet(n, load(f(n))[0])
for a, b, fl in pairs:
    da, oa = load(f(a)); db, ob = load(f(b))
    print(f"{b} / {a}:")
    keys, rat = agree(oa, ob, 1.0, "raw")
    sa, sb = sentinel(da), sentinel(db)
    if sa[0] and sa[0] == sb[0]: agree(oa, ob, sb[1] / sa[1], f"/ the sentinels' ratio {sb[1] / sa[1]:.4f}")
    for n in fl:
        if factors.get(n): agree(oa, ob, factors[n], f"/ {n}'s factor {factors[n]:.4f}")
    agree(oa, ob, st.median(rat), f"/ the best constant (median ratio) {st.median(rat):.4f}")
if os.path.exists(f("d0b")):
    print("the same GPU, two processes:")
    agree(load(f("d0a"))[1], load(f("d0b"))[1], 1.0, "GPU 0: d0b / d0a")
    agree(load(f("d1a"))[1], load(f("d1b"))[1], 1.0, "GPU 1: d1b / d1a")
    _, ra = agree(load(f("d0a"))[1], load(f("d1a"))[1], 1.0, "(a) GPU 1 / GPU 0")
    _, rb = agree(load(f("d0b"))[1], load(f("d1b"))[1], 1.0, "(b) GPU 1 / GPU 0")
    ma, mb = st.mean(ra), st.mean(rb)
    corr = sum((x - ma) * (y - mb) for x, y in zip(ra, rb)) / math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    print(f"  a configuration's ratio between the boards, (a) against (b): correlation {corr:.3f}, median |difference| "
          f"{100 * st.median([abs(x - y) for x, y in zip(ra, rb)]):.2f}%")
