#!/usr/bin/env python3
"""The figures of README.md's runs 9 to 14 (runs 12-14: matmul 12288 too, and the other binary of the same call as
twobase or twoprev). Run 9's (compare6.py with run 9's spaces, the build before on both GPUs, each device's
stolen configurations and the normalization's references): per space the walls (process start to exit) and speed-ups of --device all against
each GPU alone, the documents' phases, each device's timeline inside --device all, the two boards' agreement
(the same configurations measured by GPU 0 alone and GPU 1 alone, within the sum of their two MADs), and per run the
boards' SM clock, memory clock, power and throttle reasons from nvidia-smi's 200 ms samples.
usage: compare6.py RUN_DIR"""
import collections, datetime, gzip, json, os, re, statistics as st, sys

run = sys.argv[1]
def load(n):
    p = os.path.join(run, n + ".json")
    for path, op in ((p, open), (p + ".gz", gzip.open)):
        if os.path.exists(path): return json.load(op(path))
    return None
def by_key(d): return {json.dumps(r["config"], sort_keys=True): r for r in d["results"]}

walls = {}
for line in open(os.path.join(run, "walls.txt")):
    m = re.match(r"(\S+) rc=(\d+) start_ms=(\d+) wall_s=(\d+)e-3", line)
    if m: walls[m[1]] = (int(m[2]), int(m[3]), int(m[4]) / 1e3)

def agree(a, b, label):
    keys = [k for k in b if k in a and a[k]["invalidity"] == "correct" and b[k]["invalidity"] == "correct"]
    if not keys: return
    mad = lambda r: r["spread"] * r["median_ns"]
    rat = [b[k]["median_ns"] / a[k]["median_ns"] for k in keys]
    w1 = sum(abs(b[k]["median_ns"] - a[k]["median_ns"]) <= mad(a[k]) + mad(b[k]) for k in keys)
    w2 = sum(abs(b[k]["median_ns"] - a[k]["median_ns"]) <= 2 * (mad(a[k]) + mad(b[k])) for k in keys)
    dev = sorted(abs(r - 1) for r in rat)
    sp = st.median([r["spread"] for k in keys for r in (a[k], b[k])])
    print(f"  {label:34s} n={len(keys)} ratio median {st.median(rat):.4f} ({min(rat):.4f}..{max(rat):.4f}), |ratio-1| median "
          f"{100 * st.median(dev):.2f}% p90 {100 * dev[int(0.9 * len(dev))]:.2f}%; median spread (MAD/median) {100 * sp:.2f}%; "
          f"within the sum of the MADs {w1}/{len(keys)}, twice {w2}/{len(keys)}")

# nvidia-smi samples: (seconds since its first sample, index, sm MHz, mem MHz, W, C, throttle)
smi = []
t_first = None
smi_path = os.path.join(run, "smi.csv")
for line in (open(smi_path) if os.path.exists(smi_path) else gzip.open(smi_path + ".gz", "rt")):
    f = [x.strip() for x in line.split(",")]
    if len(f) < 7 or not f[1].isdigit(): continue
    try:
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        smi.append((t, int(f[1]), float(f[2].split()[0]), float(f[3].split()[0]), float(f[4].split()[0]), float(f[5]), f[6]))
    except ValueError: continue
t0 = smi[0][0] if smi else 0

def clocks(name):
    # the run's window, assuming smi.csv began within a second of the script's T0 (walls' start_ms is since T0)
    if name not in walls or not smi: return ""
    _, s, w = walls[name]
    out = []
    for g in (0, 1):
        xs = [x for x in smi if x[1] == g and s / 1e3 <= x[0] - t0 <= s / 1e3 + w]
        if not xs: continue
        thr = collections.Counter(x[6] for x in xs)
        out.append(f"GPU{g}: sm {min(x[2] for x in xs):.0f}-{max(x[2] for x in xs):.0f} (median {st.median(x[2] for x in xs):.0f}) "
                   f"MHz, mem {st.median(x[3] for x in xs):.0f}, {max(x[4] for x in xs):.0f} W max, {max(x[5] for x in xs):.0f} C, "
                   f"throttle {dict(thr)}")
    return "; ".join(out)

for sp in ("transpose", "matmul8192", "transpose16384", "matmul12288"):
    if f"{sp}-d0" not in walls: continue
    print(f"== {sp}")
    for n in ("warm0", "warm1", "d0", "two", "d1", "twoB", "baseTwo", "twobase", "twoprev"):
        k = f"{sp}-{n}"
        if k not in walls: continue
        rc, s, w = walls[k]
        d = load(k)
        extra = ""
        if d:
            m = d["measurement"]
            extra = (f" valid {sum(r['invalidity'] == 'correct' for r in d['results'])}/{len(d['results'])}; elapsed {m.get('elapsed_ms', 0):.0f} ms, "
                     f"setup {m.get('setup_ms', 0):.0f}, compile {m.get('compile_ms', 0):.0f} ({m.get('compiles')}), pipelines "
                     f"{m.get('pipelines_ms', 0):.0f}, measure {m.get('measure_ms', 0):.0f}")
            for i, dv in enumerate(d.get("devices", [])):
                tl = dv.get("timeline")
                if tl: extra += (f"\n      device {i}: {dv['measured']} measured, go {tl['go_ms']:.0f} ms, first result {tl['first_result_ms']:.0f}, "
                                 f"last {tl['last_result_ms']:.0f}; {tl['compiles']} compiles, arguments' data {tl['setup_ms']:.0f} ms, "
                                 f"stolen {tl.get('stolen', '-')}")
            nz = d.get("fleet", {}).get("normalization")
            if nz:
                extra += "\n      references (us, per device): " + "; ".join(
                    " ".join(f"{x / 1e3:.1f}" if x else "-" for x in dv["reference_ns"]) + f" ({len(dv['points'])} points)"
                    for dv in nz["devices"])
            b = d.get("best")
            if b: extra += f"\n      best {json.dumps(b['config'], sort_keys=True)} {b['median_ns'] / 1e3:.2f} us"
        print(f"  {n:6s} rc={rc} wall {w:6.2f} s{extra}")
        c = clocks(k)
        if c: print(f"      {c}")
    g = lambda n: walls.get(f"{sp}-{n}", (0, 0, float('nan')))[2]
    other = next((n for n in ("twobase", "twoprev") if f"{sp}-{n}" in walls), "baseTwo")
    label = "the binary before" if other == "baseTwo" else f"the other binary ({other})"
    print(f"  speed-up: GPU 0 alone / both {g('d0') / g('two'):.2f}x, / both again {g('d0') / g('twoB'):.2f}x; GPU 1 alone / both "
          f"{g('d1') / g('two'):.2f}x, / both again {g('d1') / g('twoB'):.2f}x; {label}, both: {g(other):.2f} s "
          f"(GPU 0 alone / it {g('d0') / g(other):.2f}x)")
    d0, d1 = load(f"{sp}-d0"), load(f"{sp}-d1")
    if d0 and d1:
        agree(by_key(d0), by_key(d1), "GPU 1 alone / GPU 0 alone")
        for n in ("two", "twoB"):
            t = load(f"{sp}-{n}")
            if not t: continue
            for dev, ref in ((0, d0), (1, d1)):
                sub = {k: r for k, r in by_key(t).items() if r.get("device") == dev}
                agree(by_key(ref), sub, f"{n} device {dev} / GPU {dev} alone")
