#!/usr/bin/env python3
"""Summarizes the replay documents (vkocc.tune-replay/1) written by scripts/search-replay.sh into
ROOT/<device>/search/summary.md: per space and strategy, the median evaluations to reach 95% of the optimum
(with and without the occupancy features) and the median fraction of the optimum at 1%, 5% and 10% of the
space, against random sampling."""
import glob, json, os, sys

root = sys.argv[1]
for dev in sorted(os.listdir(root)):
    docs = sorted(glob.glob(os.path.join(root, dev, "search", "*.json")))
    if not docs:
        continue
    lines = ["# Search replay summary: %s" % dev, "",
             "Written by `scripts/search-replay.sh` (its command is the first line of each .txt). Median over",
             "the seeds; \"to 95%\": evaluations until the best found is within 95% of the space's optimum",
             "(optimum time / best time >= 0.95), \">N\" when half the seeds did not get there within the budget;",
             "@1%/@5%/@10%: median fraction of the optimum at the end of runs whose budget is that share of the",
             "space (the strategies size their initial designs by the budget). \"occ\": with the",
             "occupancy features and prior; \"no occ\": the same strategy without them (the ablation).", ""]
    for path in docs:
        d = json.load(open(path))
        name = os.path.splitext(os.path.basename(path))[0]
        lines.append("## %s (%d configurations, optimum %.1f us)" % (name, d["configurations"], d["optimum_ns"] / 1e3))
        lines.append("")
        lines.append("| strategy | to 95% occ | to 95% no occ | @1% occ | @5% occ | @10% occ | @1% no occ | @5% no occ | @10% no occ |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        runs = {}
        for r in d["runs"]:
            runs.setdefault(r["strategy"], {})["occ" if r["occupancy"] else "no"] = r
        def to95(r):
            v = r["evaluations_to_95"]["median"] if r else None
            return "-" if r is None else (">%d" % r["budget"] if v is None else "%g" % v)
        def at(r, i):
            if r is None:
                return "-"
            v = r["at_budget"][i]
            return "-" if v["median"] is None else "%.3f" % v["median"]
        # at_budget holds 1, 2, 5, 10 percent
        for s, rr in runs.items():
            o, n = rr.get("occ"), rr.get("no")
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                s, to95(o), to95(n), at(o, 0), at(o, 2), at(o, 3), at(n, 0), at(n, 2), at(n, 3)))
        lines.append("")
    # across the spaces: against random sampling
    import math
    agg = {}
    for path in docs:
        d = json.load(open(path))
        rnd = [r for r in d["runs"] if r["strategy"] == "random_sample" and r["occupancy"]] or \
              [r for r in d["runs"] if r["strategy"] == "random_sample"]
        if not rnd:
            continue
        base = rnd[0]["evaluations_to_95"]["median"] or rnd[0]["budget"] + 1
        for r in d["runs"]:
            if r["strategy"] == "random_sample" and not r["occupancy"]:
                continue
            key = (r["strategy"], "n/a" if r["strategy"] == "random_sample" else "occ" if r["occupancy"] else "no occ")
            v = r["evaluations_to_95"]["median"] or r["budget"] + 1
            a = agg.setdefault(key, [0, 0, 0.0, 0, 0.0])
            a[0] += 1
            a[1] += v < base
            a[2] += math.log(v / base)
            a[3] += v > base
            a[4] += r["at_budget"][3]["median"] or 0
    lines += ["## Across the %d spaces, against random sampling" % len(docs), "",
              "| strategy | features | spaces faster to 95% | slower | geometric mean of evals to 95% / random's | mean @10% |",
              "|---|---|---|---|---|---|"]
    for (st, occ), a in agg.items():
        lines.append("| %s | %s | %d | %d | %.2f | %.3f |" % (st, occ, a[1], a[3], math.exp(a[2] / a[0]), a[4] / a[0]))
    lines.append("")
    with open(os.path.join(root, dev, "search", "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
