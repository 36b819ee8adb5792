#!/usr/bin/env python3
"""Where the process's time went, before/after, from the results documents: medians over the processes of the
tuning's wall (measurement.tuning_ms: the reference, the search, the sentinel), the search's (search_ms), the timed
batches (the configurations' timing_ms.trials summed) and the elapsed wall inside the library (elapsed_ms).
  bench/tune/race_phases.py DIR..."""
import glob, json, os, statistics, sys

print("| set | side | elapsed_ms | tuning_ms | search_ms | trials (sum over configurations) ms |")
print("|---|---|---|---|---|---|")
for d in sys.argv[1:]:
    for side in ("before", "after"):
        rows = []
        for f in glob.glob(os.path.join(d, f"{side}-*.json")):
            doc = json.load(open(f))
            m = doc["measurement"]
            tr = sum(r.get("timing_ms", {}).get("trials", 0) for r in doc["results"])
            rows.append((m["elapsed_ms"], m["tuning_ms"], m["search_ms"], tr))
        if rows:
            med = [statistics.median(c) for c in zip(*rows)]
            print(f"| {os.path.basename(d)} | {side} | " + " | ".join(f"{v:.0f}" for v in med) + " |")
