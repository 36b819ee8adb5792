#!/usr/bin/env python3
"""The search comparison's goal report: every strategy replayed with SEEDS seeds over every complete recorded
space under RESULTS_ROOT (vkocc tune results and T4 files), one table, and the goal checked. Standard library
only; the replays are `vkocc tune --replay FILE --strategy all --seeds SEEDS --json`.

  scripts/search_report.py VKOCC [RESULTS_ROOT] [--seeds 50] [--extra FILE[:FINGERPRINT]]... [--synthetic SEED]
                           [--exclude FILE=REASON]... [-o REPORT.md] [--json OUT.json] [--ablation]

A space is complete when its document says every configuration it allows was measured: a shipped kernel's
results with `space.measured >= space.runnable` and nothing left out by --only (`filtered_out` 0), a user
kernel's with `space.measured >= space.allowed` and `filtered_out` 0, a T4 file always (T4 says nothing of
the space; a T4 file beside its vkocc results, `NAME-t4.json` next to `NAME.json`, is the same space and is
listed as such, not replayed twice). The fingerprint for the occupancy features: fingerprint.json in the
file's folder or the nearest parent folder below RESULTS_ROOT.

Size of a space = the configurations the replay holds: those the conditions allow and that were measured
(valid or not), records constrained out by a condition naming P left out. The size before the conditions
(`space.total`) is shown beside it.

A recording whose times depend on when each configuration ran is replayed and shown, but not counted for the
goal: one measured in a random order whose near-optimal configurations are all among its first 20 (the GPU's
clocks dropped later in the sweep), or one named by --exclude FILE=REASON.

Goal: the best strategy's median fraction of the optimum (optimum time / best time found, over the seeds, in
runs with that budget) is >= 0.95 at a budget of 10% of every space of >= 1,000 configurations, and at 2% of
every space of >= 10,000. Exit 0 when every applicable goal is met (or none applies), 1 when one is missed,
2 on bad arguments or a replay that fails.
"""
import argparse, glob, json, os, subprocess, sys

PCTS = (1.0, 2.0, 5.0, 10.0)


def complete(doc):
    sp = doc.get("space") or {}
    if sp.get("filtered_out", 0):
        return False
    if doc.get("kind") == "user":
        return sp.get("measured", 0) >= sp.get("allowed", 1 << 62)
    return sp.get("measured", 0) >= sp.get("runnable", 1 << 62)


def order_artifact(path):
    """Why a recording's times depend on when each configuration was measured rather than on the configuration,
    or None. Seen on GPUs whose clocks dropped while the tuner's host work left them idle: a recording in a
    random order whose configurations within 95% of the optimum are all among the first 20 measured (of 100 or
    more) was fast only because it came early."""
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return None
    if doc.get("kind") != "user" or (doc.get("search") or {}).get("strategy") != "random_sample":
        return None
    res = doc.get("results") or []
    valid = [r["median_ns"] for r in res if r.get("valid") and r.get("median_ns")]
    if len(valid) < 100:
        return None
    best = min(valid)
    near = [i for i, r in enumerate(res) if r.get("valid") and r.get("median_ns") and best / r["median_ns"] >= 0.95]
    if near and max(near) < 20:
        return ("measured in a random order, its %d configuration(s) within 95%% of the optimum all among the first 20 "
                "measured (positions %s): the times depend on when a configuration ran (clock drift), not on it" % (
                    len(near), ", ".join(str(i + 1) for i in near)))
    return None


def find_fingerprint(path, root):
    d = os.path.dirname(os.path.abspath(path))
    stop = os.path.abspath(root)
    while True:
        f = os.path.join(d, "fingerprint.json")
        if os.path.exists(f):
            return f
        if d == stop or len(d) <= len(stop) or d == os.path.dirname(d):
            return None
        d = os.path.dirname(d)


def discover(root):
    spaces, notes = [], []
    for f in sorted(glob.glob(os.path.join(root, "**", "*.json"), recursive=True)):
        if f.endswith(".metadata.json") or os.path.basename(f) == "fingerprint.json":
            continue
        try:
            with open(f) as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict):
            continue
        if str(doc.get("schema", "")).startswith("vkocc.tune-results"):
            if complete(doc):
                spaces.append((f, doc.get("space", {}).get("total")))
            else:
                sp = doc.get("space", {})
                notes.append("%s: not complete (%s measured, %s left out by --only)" % (
                    os.path.relpath(f, root), sp.get("measured"), sp.get("filtered_out")))
        elif "schema_version" in doc and isinstance(doc.get("results"), list):
            twin = f[:-len("-t4.json")] + ".json" if f.endswith("-t4.json") else None
            if twin and os.path.exists(twin):
                notes.append("%s: the T4 twin of %s (the same space)" % (os.path.relpath(f, root), os.path.relpath(twin, root)))
            else:
                spaces.append((f, None))
    return spaces, notes


def replay(vkocc, path, fp, seeds, ablation):
    cmd = [vkocc, "tune", "--replay", path, "--strategy", "all", "--seeds", str(seeds), "--json"]
    if fp:
        cmd += ["--fingerprint", os.path.relpath(fp)]
    if ablation:
        cmd.append("--ablation")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return cmd, json.loads(p.stdout)


def at(run, pct):
    for a in run.get("at_budget", []):
        if abs(a["percent"] - pct) < 1e-9:
            return a.get("median")
    return None


def fmt(x, nd=3):
    return "-" if x is None else ("%.*f" % (nd, x))


def main():
    ap = argparse.ArgumentParser(description="the search comparison's goal report (docstring: scripts/search_report.py)")
    ap.add_argument("vkocc")
    ap.add_argument("root", nargs="?", default="docs/results")
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--extra", action="append", default=[], help="FILE[:FINGERPRINT]: a space outside RESULTS_ROOT (e.g. synthetic)")
    ap.add_argument("--synthetic", type=int, metavar="SEED", help="also the synthetic 10,800-configuration histogram space "
                    "of scripts/search-synth-space.py --seed SEED, with the H100's fingerprint (a rehearsal, not a recording)")
    ap.add_argument("--ablation", action="store_true")
    ap.add_argument("--exclude", action="append", default=[], help="FILE=REASON: replayed and shown, left out of the goal")
    ap.add_argument("-o", "--output")
    ap.add_argument("--json")
    a = ap.parse_args()
    if not os.access(a.vkocc, os.X_OK):
        print("search_report.py: %s is not an executable" % a.vkocc, file=sys.stderr)
        return 2
    spaces, notes = discover(a.root)
    todo = [(f, find_fingerprint(f, a.root), tot, False) for f, tot in spaces]
    for e in a.extra:
        f, _, fp = e.partition(":")
        tot = None
        try:
            with open(f) as fh:
                tot = json.load(fh).get("space", {}).get("total")
        except (OSError, ValueError):
            pass
        todo.append((f, fp or None, tot, True))
    labels = {}
    if a.synthetic is not None:
        import tempfile
        tmpdir = tempfile.mkdtemp(prefix="vkocc-synth-")
        here = os.path.dirname(os.path.abspath(__file__))
        sf = os.path.join(tmpdir, "synthetic-histogram.json")
        subprocess.check_call([sys.executable, os.path.join(here, "search-synth-space.py"), sf, "--seed", str(a.synthetic)])
        fp = os.path.join(os.path.dirname(here), "docs", "results", "h100", "tune-examples", "fingerprint.json")
        todo.append((sf, fp if os.path.exists(fp) else None, 13500, True))
        labels[sf] = "synthetic histogram (search-synth-space.py --seed %d)" % a.synthetic
    excluded = {}
    for e in a.exclude:
        f, _, why = e.partition("=")
        excluded[os.path.abspath(f)] = why or "excluded by --exclude"
    rows, out, goals = [], [], []
    for f, fp, total, extra in todo:
        try:
            cmd, d = replay(a.vkocc, f, fp, a.seeds, a.ablation)
        except (RuntimeError, ValueError) as e:
            print("search_report.py: %s" % e, file=sys.stderr)
            return 2
        name = labels.get(f) or (os.path.relpath(f, a.root) if not extra else f)
        n = d["configurations"]
        runs = d["runs"]
        rnd = next((r for r in runs if r["strategy"] == "random_sample"), None)
        rnd95 = rnd["evaluations_to_95"]["median"] if rnd else None
        space_rows = []
        for r in runs:
            e95 = r["evaluations_to_95"]["median"]
            space_rows.append({
                "space": name, "synthetic": extra, "configurations": n, "total": total, "strategy": r["strategy"],
                "occupancy": r["occupancy"], "to95": e95, "to95_pct": (100.0 * e95 / n) if e95 is not None else None,
                "vs_random": (e95 / rnd95) if (e95 is not None and rnd95) else None,
                "at": {p: at(r, p) for p in PCTS}})
        rows += space_rows
        # the goal for this space
        best = {p: max((x["at"][p] for x in space_rows if x["occupancy"] or x["strategy"] == "random_sample"
                        if x["at"][p] is not None), default=None) for p in PCTS}
        bests = {p: [x["strategy"] for x in space_rows if x["at"][p] is not None and best[p] is not None and x["at"][p] == best[p]
                     and (x["occupancy"] or x["strategy"] == "random_sample")] for p in PCTS}
        why = excluded.get(os.path.abspath(f)) or order_artifact(f)
        for need, pct in ((1000, 10.0), (10000, 2.0)):
            applies_n = n >= need
            applies_total = total is not None and total >= need
            if applies_n or applies_total:
                goals.append({"space": name, "configurations": n, "total": total, "counted_by": "configurations" if applies_n else "before conditions only",
                              "budget_pct": pct, "best": best[pct], "strategies": bests[pct], "met": best[pct] is not None and best[pct] >= 0.95,
                              "random": rnd and at(rnd, pct), "excluded": why})
        out.append((name, cmd, d, fp))
        print("search_report.py: %s done" % name, file=sys.stderr)
    # the report
    L = []
    L.append("# Search strategies over every complete recorded space")
    L.append("")
    L.append("Written by `scripts/search_report.py` (%d seeds per strategy; each space's replay command below). "
             "\"to 95%%\": median over the seeds of the evaluations until the best found is >= 95%% of the optimum "
             "(optimum time / best time), as a count, as a share of the space and against random sampling's count; "
             "@1%%/@2%%/@5%%/@10%%: median fraction of the optimum at the end of runs with that budget. Size: the "
             "configurations the replay holds (allowed and measured); \"before\": the space before the conditions." % a.seeds)
    L.append("")
    L.append("Command: `scripts/search_report.py %s`" % " ".join(["VKOCC"] + sys.argv[2:]))
    L.append("")
    L.append("| space | size (before) | strategy | to 95% | share | / random | @1% | @2% | @5% | @10% |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        strat = r["strategy"] + ("" if r["occupancy"] or r["strategy"] == "random_sample" else " (no occ)")
        L.append("| %s%s | %d (%s) | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["space"], " (synthetic)" if r["synthetic"] else "", r["configurations"], r["total"] if r["total"] else "-", strat,
            fmt(r["to95"], 1), fmt(r["to95_pct"], 2) + "%" if r["to95_pct"] is not None else "-", fmt(r["vs_random"], 2),
            fmt(r["at"][1.0]), fmt(r["at"][2.0]), fmt(r["at"][5.0]), fmt(r["at"][10.0])))
    L.append("")
    L.append("## The goal: the best strategy >= 0.95 of the optimum within 10% of every space of >= 1,000 configurations, within 2% of every space of >= 10,000")
    L.append("")
    if not goals:
        L.append("No space has 1,000 configurations or more, counted either way: the goal applies to none.")
    else:
        L.append("| space | size (before) | counted by | budget | best median fraction | by | random | met |")
        L.append("|---|---|---|---|---|---|---|---|")
        for g in goals:
            L.append("| %s | %d (%s) | %s | %g%% | %s | %s | %s | %s |" % (
                g["space"], g["configurations"], g["total"] if g["total"] else "-", g["counted_by"], g["budget_pct"], fmt(g["best"]),
                ", ".join(g["strategies"]), fmt(g["random"]), ("yes" if g["met"] else "NO") + (" (not counted)" if g["excluded"] else "")))
        for g in goals:
            if g["excluded"] and g["budget_pct"] == 10.0:
                L.append("")
                L.append("Not counted: %s: %s." % (g["space"], g["excluded"]))
    all_goals = goals
    goals = [g for g in goals if not g["excluded"]]
    strict = [g for g in goals if g["counted_by"] == "configurations"]
    L.append("")
    L.append("Counted by the configurations a search can propose (the replay's size): %d of %d goal(s) met; counting the "
             "spaces by their size before the conditions as well: %d of %d." % (
                 sum(g["met"] for g in strict), len(strict), sum(g["met"] for g in goals), len(goals)))
    if goals:
        # one strategy for every space: which strategies meet every applicable goal on their own
        names = sorted({r["strategy"] for r in rows if r["occupancy"] or r["strategy"] == "random_sample"})
        every = []
        for st in names:
            ok = True
            for g in goals:
                r = next((x for x in rows if x["space"] == g["space"] and x["strategy"] == st
                          and (x["occupancy"] or st == "random_sample")), None)
                v = r["at"][g["budget_pct"]] if r else None
                ok = ok and v is not None and v >= 0.95
            if ok:
                every.append(st)
        L.append("One strategy meeting every goal of the table on its own: %s." % (", ".join(every) if every else "none"))
    L.append("")
    L.append("## Replays")
    L.append("")
    for name, cmd, d, fp in out:
        L.append("- %s: %s; optimum %.2f us (%s); features: %s. `%s`" % (
            name, d.get("space"), d["optimum_ns"] / 1e3, d.get("optimum"), ", ".join(d.get("features") or []) or "none",
            " ".join(["vkocc"] + cmd[1:])))
    if notes:
        L.append("")
        L.append("Not replayed:")
        for n_ in notes:
            L.append("- " + n_)
    text = "\n".join(L) + "\n"
    if a.output:
        with open(a.output + ".tmp", "w") as fh:
            fh.write(text)
        os.replace(a.output + ".tmp", a.output)
    else:
        sys.stdout.write(text)
    if a.synthetic is not None:
        import shutil
        shutil.rmtree(tmpdir, ignore_errors=True)
    if a.json:
        with open(a.json + ".tmp", "w") as fh:
            json.dump({"schema": "vkocc.search-report/1", "seeds": a.seeds, "rows": rows, "goals": all_goals}, fh, indent=1)
        os.replace(a.json + ".tmp", a.json)
    return 0 if all(g["met"] for g in goals if not g["excluded"]) else 1


if __name__ == "__main__":
    sys.exit(main())
