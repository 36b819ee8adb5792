#!/usr/bin/env python3
"""The figures of one scripts/gpu/speed-race.sh run (its unpacked OUT folder): every timed label's median [min..max]
over its processes with their exit statuses, the cluster IDs and register models of the fingerprints, the P of the
--shader checks, the phase shares of bench_fingerprint, and for the race part the cost per configuration raced
against --full-rule and the best each chose.
  scripts/gpu/speed-race-report.py OUT"""
import glob, json, os, re, statistics, sys
from collections import defaultdict

o = sys.argv[1]


def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except Exception:
        return None


times = defaultdict(list)
if os.path.exists(f"{o}/times.txt"):
    for line in open(f"{o}/times.txt"):
        label, ms, rc = line.split()
        times[re.sub(r"-\d+$", "", label)].append((float(ms), int(rc)))
print("## Wall time per process (ms): median [min..max], processes, exit statuses")
print("| label | median | range | n | exit |")
print("|---|---|---|---|---|")
for k, v in times.items():
    ms = [m for m, _ in v]
    print(f"| {k} | {statistics.median(ms):.0f} | {min(ms):.0f}..{max(ms):.0f} | {len(ms)} | {','.join(sorted(set(str(r) for _, r in v)))} |")

print("\n## Fingerprints: cluster ID, register model")
ids = defaultdict(set)
for p in sorted(glob.glob(f"{o}/*-fp-*.out") + glob.glob(f"{o}/*-id-*.out") + glob.glob(f"{o}/*cached*.out")):
    d = load(p)
    if not d:
        continue
    name = os.path.basename(p)[:-4]
    rm = d.get("register_model") or {}
    regs = (f"R {rm.get('regs_per_sm')}..{rm.get('regs_per_sm_max')} unit {rm.get('alloc_unit_per_invocation')} "
            f"partitions {rm.get('partitions')} max {rm.get('max_regs_per_invocation')}") if rm.get("known") else "-"
    dev = d.get("device") if isinstance(d.get("device"), dict) else {}
    qf = d.get("queue_family", dev.get("compute_queue_family"))
    ids[(d.get("cluster_id"), regs)].add(f"{name}(q{qf})")
for (cid, regs), names in ids.items():
    print(f"- {cid}, registers {regs}: {len(names)} documents ({', '.join(sorted(names)[:6])}{' ...' if len(names) > 6 else ''})")

print("\n## bench_fingerprint phases")
for v in ("before", "after"):
    d = load(f"{o}/{v}-bench.json")
    if d:
        print(f"- {v}: " + "; ".join(f"{p['phase']} {p['median_ms']:.0f} [{p['min_ms']:.0f}..{p['max_ms']:.0f}] {100 * p['share']:.1f}%"
                                    for p in d["phases"]) + f"; {d['cluster_id']}, same every run: {d['same_every_run']}")

print("\n## surface timing (the documents' own: start-up, pipelines, measurement; ms)")
for p in sorted(glob.glob(f"{o}/*-surface-*.out")):
    d = load(p)
    if d and "timing" in d:
        t = d["timing"]
        print(f"- {os.path.basename(p)[:-4]}: start-up {t.get('startup_ms', 0):.0f}, pipelines {t.get('pipelines_ms', 0):.0f} "
              f"({t.get('pipelines')}), measurement {t.get('measure_ms', 0):.0f}, cache warm {t.get('pipeline_cache_warm')}")

print("\n## --shader checks: P without and with a cached fingerprint")


def ps(d):
    """P of the pipeline as written (probe), or of each point (surface --shader)."""
    if not d:
        return None
    if "points" in d:
        return [(pt.get("written") or {}).get("P", pt.get("P")) for pt in d["points"]]
    return (d.get("written") or {}).get("P", (d.get("probe") or {}).get("P"))


for p in sorted(glob.glob(f"{o}/*-nocache.out")):
    q = p.replace("-nocache.out", "-cached.out")
    a, b = load(p), load(q)
    name = os.path.basename(p)[: -len("-nocache.out")]
    model = (a or {}).get("model")
    print(f"- {name}: without {ps(a)} (model {json.dumps(model)}), with {ps(b)}: {'the same' if ps(a) == ps(b) and ps(a) is not None else 'DIFFERENT or missing'}")

r = f"{o}/race"
if os.path.isdir(r):
    print("\n## Race against the full rule (matmul_spec)")
    print("| process | configurations | valid | stopped | timed runs | runs per stopped | runs per contender | trials ms per configuration | wall ms per configuration | best | best median us | spread of valid medians (max/min) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    walls = {k: v for k, v in times.items()}
    for p in sorted(glob.glob(f"{r}/*.json")):
        d = load(p)
        if not d or "results" not in d:
            continue
        name = os.path.basename(p)[:-5]
        res = d["results"]
        valid = [x for x in res if x.get("valid")]
        st = [x for x in valid if x.get("stopped")]
        co = [x for x in valid if not x.get("stopped")]
        runs = sum(x.get("runs", 0) for x in res)
        trials = sum((x.get("timing_ms") or {}).get("trials", 0) for x in res)
        label = name.replace("-matmul", "")
        w = walls.get(label)
        wall = statistics.median([m for m, _ in w]) / len(res) if w and res else float("nan")
        meds = [x["median_ns"] for x in valid if x.get("median_ns")]
        spread = max(meds) / min(meds) if meds else float("nan")
        rs = statistics.median([x["runs"] for x in st]) if st else "-"
        rc = statistics.median([x["runs"] for x in co]) if co else "-"
        b = d.get("best") or {}
        print(f"| {name} | {len(res)} | {len(valid)} | {len(st)} | {runs} | {rs} | {rc} | {trials / max(len(res), 1):.1f} | {wall:.0f} | "
              f"{json.dumps(b.get('config'), sort_keys=True)} | {(b.get('median_ns') or 0) / 1e3:.1f} | {spread:.2f} |")
    print("\n### The race's best against the full rule's, both re-timed in the raced process's final round")
    key = lambda c: json.dumps(c, sort_keys=True)
    for rp in sorted(glob.glob(f"{r}/race-*.json")):
        fp = rp.replace("/race-", "/full-")
        a, b = load(rp), load(fp)
        if not a or not b:
            continue
        ab, bb = key(a["best"]["config"]), key(b["best"]["config"])
        fr = {key(x["config"]): (x.get("final_round") or {}).get("median_ns") for x in a["results"]}
        ratio = fr.get(ab) / fr.get(bb) if fr.get(ab) and fr.get(bb) else float("nan")
        print(f"- {os.path.basename(rp)[:-5]}: raced best {ab}, full-rule best {bb}: "
              f"{'the same' if ab == bb else f'final round raced/full {ratio:.4f}'}")
