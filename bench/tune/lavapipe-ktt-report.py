#!/usr/bin/env python3
"""The record of bench/tune/lavapipe-ktt.sh: per side (before, after) the configurations' costs (timing_ms:
median [p10..p90] over every configuration of every round), each process's wall beside KTT's of the same round and
their ratio, and the load average at each process's start.
   bench/tune/lavapipe-ktt-report.py OUT_DIR"""
import glob
import json
import os
import statistics
import sys


def q(v, p):
    v = sorted(v)
    k = (len(v) - 1) * p
    f = int(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    walls = {}
    for line in open(os.path.join(out, "walls.txt")):
        f = line.split()
        walls[(f[0], f[1])] = (int(f[3]), int(f[5]), f[7])
    phases = ("total", "compile", "wait", "validate", "trials", "gpu", "submissions")
    print("cost per configuration (timing_ms), median [p10..p90] over the rounds' configurations:")
    print("| side | n | " + " | ".join(phases) + " | runs |")
    print("|---|---|" + "---|" * (len(phases) + 1))
    for side in ("before", "after"):
        rows = []
        for f in sorted(glob.glob(os.path.join(out, side, "vadd-p*.json"))):
            rows += json.load(open(f))["results"]
        if not rows:
            continue
        cells = []
        for k in phases:
            v = [r["timing_ms"][k] for r in rows]
            cells.append("%.1f [%.1f..%.1f]" % (statistics.median(v), q(v, 0.1), q(v, 0.9)))
        runs = [r["runs"] for r in rows]
        cells.append("%g [%g..%g]" % (statistics.median(runs), q(runs, 0.1), q(runs, 0.9)))
        print("| %s | %d | %s |" % (side, len(rows), " | ".join(cells)))
    print()
    print("whole runs, process start included (ms), and vkocc / KTT of the same round:")
    print("| round | load (1 min) | KTT | before | after | before / KTT | after / KTT |")
    print("|---|---|---|---|---|---|---|")
    rounds = sorted({p for (_, p) in walls}, key=lambda p: int(p[1:]))
    ratios = {"before": [], "after": []}
    for p in rounds:
        k = walls.get(("ktt", p))
        cells = [p, walls.get(("ktt", p), walls.get(("after", p), (0, 0, "-")))[2]]
        cells.append(str(k[0]) if k else "-")
        for side in ("before", "after"):
            w = walls.get((side, p))
            cells.append(str(w[0]) if w else "-")
        for side in ("before", "after"):
            w = walls.get((side, p))
            if w and k:
                ratios[side].append(w[0] / k[0])
                cells.append("%.2f" % (w[0] / k[0]))
            else:
                cells.append("-")
        print("| " + " | ".join(cells) + " |")
    for side in ("before", "after"):
        if ratios[side]:
            v = ratios[side]
            print("%s / KTT: median %.2f, range %.2f..%.2f over %d rounds" % (side, statistics.median(v), min(v), max(v), len(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
