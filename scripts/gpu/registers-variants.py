#!/usr/bin/env python3
"""Summary of scripts/gpu/registers-variants.sh OUT_DIR: per point of the register-pressure shader the written /
augmented (default: compact) / variant statistics, the evidence that decided P of the pipeline as written, and the
earlier (unrolled) augmentation beside it; then the counts. Prints text."""
import glob, json, os, re, sys

out = sys.argv[1]
STATS = (("Register Count", "regs"), ("Shared Memory Size", "shared"), ("Binary Size", "binary"))


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def stats_of(doc):
    w, a = {}, {}
    for s in (doc or {}).get("statistics", []):
        for name, key in STATS:
            if s.get("name") == name:
                w[key], a[key] = s.get("value"), s.get("augmented")
    return w, a


def fmt(d):
    return "/".join("-" if d.get(k) is None else "%g" % d[k] for _, k in STATS)


def point_key(path):
    m = re.search(r"wg(\d+)-n(\d+)", path)
    return (int(m.group(1)), int(m.group(2)))


counts = {}
ratios = {"compact": [], "unrolled": []}
print("per point: registers/shared bytes/binary size (the driver's statistics)")
for fam in ("compute", "graphics"):
    files = sorted(glob.glob(os.path.join(out, "shader-%s" % fam, "wg*-n*.json")), key=point_key)
    if not files:
        continue
    print("\n== %s queue family: written | augmented (compact) | P | evidence | variants tried" % fam)
    for f in files:
        wg, n = point_key(f)
        doc = load(f)
        if doc is None:
            err = open(f[:-5] + ".err").read().strip().splitlines() if os.path.exists(f[:-5] + ".err") else []
            print("wg %4d n %3d  no result: %s" % (wg, n, err[-1] if err else "?"))
            counts[(fam, "no result")] = counts.get((fam, "no result"), 0) + 1
            continue
        w, a = stats_of(doc)
        wr = doc.get("written") or {}
        ev = wr.get("evidence") or ("not established: " + doc.get("error", "?") if doc.get("error") else "?")
        P = (doc.get("probe") or {}).get("P", doc.get("P"))
        aug_P = wr.get("augmented_P", doc.get("augmented_P"))
        kind = ("variant" if "variant" in ev else "predicted" if ev.startswith("predicted") else
                "bound" if "no less" in ev else "equal" if "statistics equal" in ev else
                "not established" if ev.startswith("not established") else
                "no statistics" if "no statistics" in ev else ev[:30])
        counts[(fam, kind)] = counts.get((fam, kind), 0) + 1
        if w.get("binary") and a.get("binary"):
            ratios["compact"].append(a["binary"] / w["binary"])
        line = "wg %4d n %3d  %-16s | %-16s | P %s (augmented %s, predicted %s) | %s" % (
            wg, n, fmt(w), fmt(a), P, aug_P, wr.get("predicted_P"), kind)
        if wr.get("variant"):
            line += " [%s]" % wr["variant"]
        print(line)
        if wr.get("variants"):
            print("      variants: %s" % wr["variants"])
        elif "variants tried" in doc.get("error", ""):
            print("      variants: %s" % doc["error"].split("variants tried: ", 1)[1])
        u = load(os.path.join(out, "unrolled-%s" % fam, "wg%d-n%d.json" % (wg, n)))
        if u:
            uw, ua = stats_of(u)
            uwr = u.get("written") or {}
            if ua.get("binary") and uw.get("binary"):
                ratios["unrolled"].append(ua["binary"] / uw["binary"])
            print("      unrolled (earlier default): %-16s P %s (augmented %s) | %s" % (
                fmt(ua), (u.get("probe") or {}).get("P", u.get("P")), uwr.get("augmented_P", u.get("augmented_P")),
                (uwr.get("evidence") or u.get("error", "?"))[:80]))

print("\ncounts (family, evidence):")
for k in sorted(counts):
    print("  %-10s %-16s %d" % (k[0], k[1], counts[k]))
for k, v in ratios.items():
    if v:
        print("binary size, augmented / written, %s: min %.2f median %.2f max %.2f over %d points" % (
            k, min(v), sorted(v)[len(v) // 2], max(v), len(v)))
