#!/usr/bin/env python3
"""A T4 results file at scale, for timing `vkocc tune --replay`: N distinct configurations of two parameters
(block_size_x 32..512 x tile 1..), each correct with three runtimes and a time measurement in seconds.
    bench/gen_t4_results.py 50000 /tmp/t4-50k.json && time build/vkocc tune --replay /tmp/t4-50k.json \\
        --strategy random --seeds 1 --budget 100
(loading the 20 MB document through jansson is most of the time: about 1.4 s of CPU on this 2-core machine.)"""
import json, random, sys

n = int(sys.argv[1]); out = sys.argv[2]
rng = random.Random(3); res = []
for a in range(1, n + 1):
  for b in (1, 2, 4, 8, 16):
    if len(res) == n: break
    t = rng.uniform(1e-4, 1e-2)
    res.append({"timestamp": "2026-01-01T00:00:00Z", "configuration": {"block_size_x": b * 32, "tile": a},
                "objectives": ["time"], "times": {"compilation_time": 0.1, "runtimes": [t, t, t], "framework": 0,
                                                  "search_algorithm": 0, "validation": 0},
                "invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": t, "unit": "s"}]})
  if len(res) == n: break
json.dump({"schema_version": "1.0.0", "results": res}, open(out, "w"))
print(len(res), "results in", out)
