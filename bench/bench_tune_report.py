#!/usr/bin/env python3
"""The tuning-speed benchmark's report: reads what bench/bench_tune.sh left in a folder (NAME.json results
documents, NAME.wall) and prints, per run, the cost per configuration as median with spread, per phase, the
device busy fraction, the final round's agreement with the search's medians, and across runs named
STEM-pN (several processes on one spec) whether their bests lie within each other's spread.

    bench/bench_tune_report.py DIR [--json FILE]

Phases: the harness records per configuration "timing_ms" {name: host ms}. Today's names are compile,
pipeline, occupancy, measurement (validation, warm-up and trials together), warmup (device time of the warm-up,
inside measurement), other, total; the harness's named phases are compile, pipeline, P, prepare, validate,
warm, trials, other, total. Every name found is reported as it is.

Device busy, where the document records it (measurement.device_ms: every batch of the tuning from its first command
to its last, restores, compares and clock probes included; measurement.tuning_ms: the wall of the reference, search,
sentinel and final round, less the arguments' data): device_ms over the process's wall ("of wall", process start,
the arguments' data and exit included) and over tuning_ms ("of the tuning"); and the timed runs' share alone
(timing_ms.gpu summed, over tuning_ms). Before that, where a result records its device time ("gpu_ms", or "gpu" in "timing_ms": the timestamped work of
the configuration's validation, warm-up and timed runs), their sum over the wall time; else the sum of the timed runs (times_ns), the warm-up's device time and the final round's runs
(runs x median), which leaves out the validation runs: a lower bound of the busy time.
"""
import datetime
import glob
import gzip
import json
import math
import os
import re
import sys


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    f = math.floor(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def summary(xs):
    return {"median": pct(xs, 0.5), "p10": pct(xs, 0.1), "p90": pct(xs, 0.9), "n": len(xs)}


def read_wall(path):
    out = {}
    try:
        for line in open(path):
            k, _, v = line.strip().partition(" ")
            out[k] = v
    except OSError:
        pass
    return out


def read_util(d):
    """nvidia-smi's log beside the runs (clocks.csv[.gz], gpu-run.sh): [(epoch ms, utilization.gpu %)]"""
    for name, op in (("clocks.csv", open), ("clocks.csv.gz", gzip.open)):
        p = os.path.join(d, name)
        if not os.path.exists(p):
            continue
        out = []
        with op(p, "rt") as f:
            head = f.readline().split(", ")
            col = next((i for i, h in enumerate(head) if h.startswith("utilization.gpu")), None)
            if col is None:
                return []
            for line in f:
                parts = line.strip().split(", ")
                try:
                    t = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
                    out.append((t.timestamp() * 1e3, float(parts[col].split()[0])))
                except (ValueError, IndexError):
                    pass
        return out
    return []


def util_between(util, t0, t1):
    xs = [u for t, u in util if t0 <= t <= t1]
    return (sum(xs) / len(xs), len(xs)) if xs else (None, 0)


def report_one(path, util=()):
    doc = json.load(open(path))
    name = os.path.splitext(os.path.basename(path))[0]
    wall = read_wall(os.path.join(os.path.dirname(path), name + ".wall"))
    res = [r for r in doc.get("results", [])]
    meas = doc.get("measurement", {})
    phases = {}
    for r in res:
        for k, v in (r.get("timing_ms") or {}).items():
            phases.setdefault(k, []).append(v)
    gpu_ms = 0.0
    def gpu_of(r):
        return r["gpu_ms"] if "gpu_ms" in r else (r.get("timing_ms") or {}).get("gpu")
    have_gpu_ms = bool(res) and all(gpu_of(r) is not None for r in res)
    timed_ms = warm_ms = final_ms = 0.0
    for r in res:
        timed_ms += sum(r.get("times_ns") or []) / 1e6
        warm_ms += (r.get("timing_ms") or {}).get("warmup", 0.0)
        fr = r.get("final_round")
        if fr and fr.get("median_ns") is not None:
            final_ms += fr["runs"] * fr["median_ns"] / 1e6
        if have_gpu_ms:
            gpu_ms += gpu_of(r)
    if not have_gpu_ms:
        gpu_ms = timed_ms + warm_ms + final_ms
    wall_ms = float(wall.get("wall_ms", "nan"))
    elapsed = meas.get("elapsed_ms", float("nan"))
    timed_gpu_ms = gpu_ms
    device_ms = meas.get("device_ms")
    tuning_ms = meas.get("tuning_ms")
    ratios = []
    for r in res:
        fr = r.get("final_round")
        if fr and r.get("median_ns") and fr.get("median_ns"):
            ratios.append(fr["median_ns"] / r["median_ns"])
    dev = [abs(x - 1) for x in ratios]
    best = doc.get("best") or {}
    best_spread = None
    for r in res:
        if best and r.get("config") == best.get("config"):
            best_spread = r.get("spread")
    valid = sum(1 for r in res if r.get("valid"))
    clocks = [r["clock"] for r in res if r.get("clock")]
    clock = None
    if clocks:
        clock = {"configurations": len(clocks), "min": min(c["min"] for c in clocks), "max": max(c["max"] for c in clocks),
                 "steady_last": clocks[-1]["steady"], "again": sum(c["again"] for c in clocks),
                 "kept": sum(c["kept"] for c in clocks)}
    out = {
        "name": name,
        "device": (doc.get("device") or {}).get("name"),
        "command": wall.get("command"),
        "rc": wall.get("rc"),
        "configurations": len(res),
        "valid": valid,
        "wall_ms": wall_ms,
        "elapsed_ms": elapsed,
        "setup_ms": meas.get("setup_ms"),
        "wall_per_config_ms": wall_ms / len(res) if res else None,
        "phases_ms": {k: summary(v) for k, v in phases.items()},
        "gpu_ms": gpu_ms,
        "gpu_ms_source": "timing_ms.gpu" if have_gpu_ms else "times+warmup+final (lower bound)",
        "busy_of_wall": gpu_ms / wall_ms if wall_ms > 0 else None,
        "busy_of_elapsed": gpu_ms / elapsed if elapsed and elapsed > 0 else None,
        "device_ms": device_ms,
        "tuning_ms": tuning_ms,
        "device_busy_of_wall": device_ms / wall_ms if device_ms is not None and wall_ms > 0 else None,
        "device_busy_of_tuning": device_ms / tuning_ms if device_ms is not None and tuning_ms else None,
        "timed_of_tuning": timed_gpu_ms / tuning_ms if tuning_ms else None,
        # the search alone (no final round, sentinel or reference's setup): each configuration's device time over its
        # host total, summed
        "search_wall_ms": meas.get("search_ms"),
        "search_wall_device_ms": meas.get("search_device_ms"),
        "search_device_ms": sum((r.get("timing_ms") or {}).get("device", 0.0) for r in res),
        "search_total_ms": sum((r.get("timing_ms") or {}).get("total", 0.0) for r in res),
        "config_busy_median": pct([(r.get("timing_ms") or {}).get("device", 0.0) / r["timing_ms"]["total"] for r in res
                                   if (r.get("timing_ms") or {}).get("total", 0) > 0 and "device" in r["timing_ms"]], 0.5),
        "final_round": {"n": len(ratios), "median_abs_dev": pct(dev, 0.5) if dev else None,
                        "worst_abs_dev": max(dev) if dev else None,
                        "median_ratio": pct(ratios, 0.5) if ratios else None},
        "best": {"config": best.get("config"), "median_ns": best.get("median_ns"), "spread": best_spread},
        "clock": clock,
    }
    # nvidia-smi's utilization.gpu (the share of each 100 ms sample with a kernel running) over the process, and over
    # its last tuning_ms (the tuning's wall ends as the process does, less writing the documents)
    if util and "start_epoch_ms" in wall and "end_epoch_ms" in wall:
        t0, t1 = float(wall["start_epoch_ms"]), float(wall["end_epoch_ms"])
        out["smi_util_process"] = util_between(util, t0, t1)
        if tuning_ms:
            out["smi_util_tuning"] = util_between(util, t1 - tuning_ms, t1)
    return out


def fmt_phase(p):
    return "%.1f [%.1f..%.1f]" % (p["median"], p["p10"], p["p90"])


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = argv[1]
    jpath = argv[argv.index("--json") + 1] if "--json" in argv else None
    files = sorted(f for f in glob.glob(os.path.join(d, "*.json")) if os.path.exists(f[:-5] + ".wall"))
    util = read_util(d)
    runs = [report_one(f, util) for f in files]
    lines = []
    for r in runs:
        lines.append("%s (%s): %d configurations (%d valid), wall %.0f ms (%.1f ms per configuration), setup %.0f ms"
                     % (r["name"], r["device"], r["configurations"], r["valid"], r["wall_ms"],
                        r["wall_per_config_ms"] or float("nan"), r["setup_ms"] or float("nan")))
        lines.append("  command: %s" % r["command"])
        lines.append("  per configuration, ms, median [p10..p90]: " +
                     ", ".join("%s %s" % (k, fmt_phase(v)) for k, v in r["phases_ms"].items()))
        if r["device_ms"] is not None and r["tuning_ms"]:
            lines.append("  device busy (measurement.device_ms %.0f ms, every batch whole): %.1f%% of the process wall, %.1f%% "
                         "of the tuning's wall (tuning_ms %.0f ms); timed runs alone (%.0f ms) %.1f%% of the tuning's wall"
                         % (r["device_ms"], 100 * r["device_busy_of_wall"], 100 * r["device_busy_of_tuning"], r["tuning_ms"],
                            r["gpu_ms"], 100 * r["timed_of_tuning"]))
            if r.get("search_wall_ms"):
                lines.append("  the search's wall (measurement.search_ms %.0f ms: the reference and the search, no sentinel or "
                             "final round): %.1f ms per configuration, device %.0f ms, %.1f%% busy"
                             % (r["search_wall_ms"], r["search_wall_ms"] / max(1, r["configurations"]),
                                r["search_wall_device_ms"], 100 * r["search_wall_device_ms"] / r["search_wall_ms"]))
            if r["search_total_ms"] > 0:
                lines.append("  the search alone (configurations' timing_ms.device over their timing_ms.total, summed): %.0f of "
                             "%.0f ms, %.1f%% busy; the median configuration's device / total %.1f%%"
                             % (r["search_device_ms"], r["search_total_ms"], 100 * r["search_device_ms"] / r["search_total_ms"],
                                100 * r["config_busy_median"]))
        else:
            lines.append("  device busy: %.1f%% of wall, %.1f%% of the tuning's elapsed (%.0f ms device time: %s)"
                         % (100 * (r["busy_of_wall"] or 0), 100 * (r["busy_of_elapsed"] or 0), r["gpu_ms"], r["gpu_ms_source"]))
        if r.get("smi_util_process") and r["smi_util_process"][0] is not None:
            u, n = r["smi_util_process"]
            ut, nt = r.get("smi_util_tuning") or (None, 0)
            lines.append("  nvidia-smi utilization.gpu (100 ms samples): mean %.1f%% over the process (%d samples)%s"
                         % (u, n, ", %.1f%% over its last tuning_ms (%d samples)" % (ut, nt) if ut is not None else ""))
        fr = r["final_round"]
        if fr["n"]:
            lines.append("  final round vs the search's medians: %d configurations, median ratio %.4f, median |1-ratio| "
                         "%.2f%%, worst %.2f%%" % (fr["n"], fr["median_ratio"], 100 * fr["median_abs_dev"],
                                                  100 * fr["worst_abs_dev"]))
        c = r["clock"]
        if c:
            lines.append("  clock (SM ticks per realtime tick beside each timed batch): %.4f..%.4f, steady %.4f; batches "
                         "measured again for a low clock %d, kept low %d" % (c["min"], c["max"], c["steady_last"], c["again"],
                                                                              c["kept"]))
        b = r["best"]
        if b["median_ns"]:
            lines.append("  best %s: %.2f us (spread %s)" % (json.dumps(b["config"]), b["median_ns"] / 1e3,
                                                          "%.4f" % b["spread"] if b["spread"] is not None else "-"))
    # processes of one spec: NAME-p1, NAME-p2, ...
    groups = {}
    for r in runs:
        m = re.match(r"(.*)-p\d+$", r["name"])
        if m:
            groups.setdefault(m.group(1), []).append(r)
    stab = {}
    for g, rs in groups.items():
        bests = [(r["best"]["median_ns"], r["best"]["spread"] or 0, r["best"]["config"]) for r in rs if r["best"]["median_ns"]]
        ok = True
        worst = 0.0
        for i in range(len(bests)):
            for j in range(i + 1, len(bests)):
                mi, si, _ = bests[i]
                mj, sj, _ = bests[j]
                rel = abs(mi - mj) / min(mi, mj)
                worst = max(worst, rel)
                ok &= rel <= si + sj
        stab[g] = {"processes": len(bests), "worst_rel_diff": worst, "within_spread": ok,
                   "bests": [{"median_ns": m, "spread": s, "config": c} for m, s, c in bests]}
        lines.append("%s: %d processes, bests %s; worst relative difference %.2f%%, within each other's spread: %s"
                     % (g, len(bests), ", ".join("%.2f us" % (m / 1e3) for m, _, _ in bests), 100 * worst,
                        "yes" if ok else "no"))
    print("\n".join(lines))
    if jpath:
        with open(jpath, "w") as f:
            json.dump({"runs": runs, "stability": stab}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
