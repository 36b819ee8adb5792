#!/usr/bin/env python3
"""Tuning results for the policy store's benchmark (bench/bench_policy_store.sh): FILES results documents of PER
histogram configurations each, as vkocc writes them (indent 2), one device per file (its own name, driver and key; tuning results record the short form of a device, without
its UUID),
twenty clusters, four problem sizes; device 0 is the fingerprint tests/data/fp-hopper-132.json's, so `policy select
--fingerprint` of that file takes the exact-device rule. Times are integer nanoseconds (vkocc's medians of
timestamps), min <= median <= max, spreads of four digits.
    bench/gen_store_results.py 1000 1000 /tmp/store-bench   # 10^6 results"""
import json, os, random, sys

files, per, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
os.makedirs(out, exist_ok=True)
sizes = [1 << 16, 1 << 20, 1 << 24, 1 << 28]
for f in range(files):
    rng = random.Random(f)
    res = []
    for w in range(1, 1025):
        for g in range(1, 200):
            if len(res) == per: break
            t = rng.randrange(100000, 10000000)
            res.append({"config": {"variant": "shared_bins", "wg_size": w, "grain": g, "copies": 1}, "valid": True,
                        "median_ns": float(t), "spread": round(rng.uniform(0.001, 0.05), 4),
                        "min_ns": float(t - rng.randrange(0, 2000)), "max_ns": float(t + rng.randrange(0, 5000)), "runs": 5})
        if len(res) == per: break
    if f == 0:
        dev = {"name": "hopper (132 SMs)", "vendor_id": 0, "device_id": 0, "driver_name": "synthetic", "driver_info": "",
               "key": "0000:0000 hopper (132 SMs) | synthetic | sm 0"}
        cluster = "c1-dace7ddcd2e0"
    else:
        dev = {"name": "GPU %d" % f, "vendor_id": 4318, "device_id": f, "driver_name": "drv", "driver_info": "580.%d" % (f % 7),
               "driver_version": 580 << 22 | f % 7, "sm_count": 132, "key": "10de:%04x GPU %d | drv 580.%d | sm 132" % (f, f, f % 7)}
        cluster = "c3-%012x" % (f % 20)
    dev["queue_family"] = {"kind": "compute-only", "shared_bytes_per_sm": 102400}
    doc = {"schema": "vkocc.tune-results/1", "tool_version": "0.1.0", "kernel": "histogram", "element_type": "u32",
           "problem_size": sizes[(f // 20) % 4], "device": dev, "cluster_id": cluster, "results": res}
    with open(os.path.join(out, "r%05d.json" % f), "w") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
print(files * per, "results in", files, "files under", out)
