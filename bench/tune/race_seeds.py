#!/usr/bin/env python3
"""The race's best against the full rule's over seeds: DIR holds race-sN-*.json (raced, with --confirm re-timing the
searched configurations at the end of the same process) and full-sN-*.json (--full-rule, the same seed). Per seed: the
two bests, whether they are the same configuration, and else the final round's time of the race's best over that of
the full rule's best, both re-timed in the raced process.
  bench/tune/race_seeds.py DIR"""
import glob, json, os, re, sys

d = sys.argv[1]
print("| seed | raced: best (stopped of 4, timed runs) | full rule: best (timed runs) | same | final round: race's best / full's best |")
print("|---|---|---|---|---|")
same = within = n = 0
for f in sorted(glob.glob(os.path.join(d, "race-s*-*.json")), key=lambda p: int(re.search(r"race-s(\d+)-", p).group(1))):
    s = re.search(r"race-s(\d+)-", f).group(1)
    g = glob.glob(os.path.join(d, f"full-s{s}-*.json"))
    if not g:
        continue
    a, b = json.load(open(f)), json.load(open(g[0]))
    key = lambda c: json.dumps(c, sort_keys=True)
    ab, bb = key(a["best"]["config"]), key(b["best"]["config"])
    fr = {key(r["config"]): r.get("final_round", {}).get("median_ns") for r in a["results"]}
    ratio = fr.get(ab) / fr.get(bb) if fr.get(ab) and fr.get(bb) else float("nan")
    st = sum(1 for r in a["results"] if r.get("stopped"))
    ra, rb = sum(r["runs"] for r in a["results"]), sum(r["runs"] for r in b["results"])
    n += 1
    same += ab == bb
    within += ab == bb or ratio <= 1.01
    print(f"| {s} | {ab} ({st}, {ra}) | {bb} ({rb}) | {'yes' if ab == bb else 'no'} | {'-' if ab == bb else f'{ratio:.3f}'} |")
print(f"\n{same} of {n} the same configuration; {within} of {n} the same or within 1% in the raced process's final round")
