#!/usr/bin/env python3
"""Tuning results at scale, for timing `vkocc policy build`: N distinct histogram configurations in one
results document (variant shared_bins, wg_size 1..1024 x grain 1..199 x copies 1 or 2, each in range).
    bench/gen_tune_results.py 100000 /tmp/r100k.json && time build/vkocc policy build /tmp/r100k.json -o /tmp/db.json
(docs/policy.md: 100,000 results took over 300 s before the O(n log n) duplicate check and lookups, 1.2 s
after, in a Debug build on a loaded 2-core machine.)"""
import json, random, sys

n = int(sys.argv[1]); out = sys.argv[2]
rng = random.Random(2); res = []
for w in range(1, 1025):
  for g in range(1, 200):
    for c in (1, 2):
      if len(res) == n: break
      t = rng.uniform(1e5, 1e7)
      res.append({"config": {"variant": "shared_bins", "wg_size": w, "grain": g, "copies": c}, "valid": True,
                  "median_ns": t, "spread": 0.01, "min_ns": t, "max_ns": t, "runs": 3})
doc = {"schema": "vkocc.tune-results/1", "kernel": "histogram", "element_type": "u32", "problem_size": 1 << 20,
       "device": {"name": "x", "key": "0001:0001 x | i | sm 1"}, "cluster_id": "c1-000000000001", "results": res}
json.dump(doc, open(out, "w"))
print(len(res), "results in", out)
