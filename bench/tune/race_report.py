#!/usr/bin/env python3
"""Timed runs per configuration in vkocc tune results documents, before/after racing: per side, the configurations
measured, how many the race stopped, the timed runs of those stopped and of the contenders (to the full rule), and the
best each process chose.
  bench/tune/race_report.py DIR...   (each DIR holds before-*.json and after-*.json results documents)"""
import glob, json, os, statistics, sys

for d in sys.argv[1:]:
    print(f"## {d}")
    print("| side | processes | configurations | stopped | runs per stopped config (median) | runs per contender (median) | timed runs per process (median) | bests chosen |")
    print("|---|---|---|---|---|---|---|---|")
    for side in ("before", "after"):
        files = sorted(glob.glob(os.path.join(d, f"{side}-*.json")))
        if not files:
            continue
        ncfg = nstop = 0
        rs, rc, tot, bests = [], [], [], {}
        for f in files:
            doc = json.load(open(f))
            t = 0
            for r in doc["results"]:
                if not r.get("valid"):
                    continue
                ncfg += 1
                t += r["runs"]
                if r.get("stopped"):
                    nstop += 1
                    rs.append(r["runs"])
                else:
                    rc.append(r["runs"])
            tot.append(t)
            b = json.dumps(doc.get("best", {}).get("config"), sort_keys=True)
            bests[b] = bests.get(b, 0) + 1
        med = lambda v: f"{statistics.median(v):.1f} ({min(v)}-{max(v)})" if v else "-"
        bs = ", ".join(f"{k} x{v}" for k, v in sorted(bests.items(), key=lambda kv: -kv[1]))
        print(f"| {side} | {len(files)} | {ncfg} | {nstop} | {med(rs)} | {med(rc)} | {med(tot)} | {bs} |")
    print()
