#!/usr/bin/env python3
"""Compares the output of scripts/gpu/registers.sh point by point (docs/results/h100/registers/README.md):
  (a)+(b) the register surface vkocc measured against CUDA's calculator on the same machine (cuda_occupancy.h,
          cudaOccMaxActiveBlocksPerMultiprocessor with numRegs = the driver's register count of each point);
  (c)     the register-pressure shader: where the written and augmented statistics differ, and whether vkocc's P of
          the pipeline as written equals the per-SM model's prediction from the written statistics.
usage: registers-compare.py OUT_DIR   (prints a report on stdout)"""
import glob
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"({path}: {e})")
        return None


def model_per_sm(d, m, wg, shared, regs):
    """Workgroups per SM under vkocc's model (docs/model.md): slots, shared memory, registers."""
    g = d["subgroup_size"] or 1
    k = -(-wg // g)
    p = min(d["workgroups_per_sm"], d["subgroups_per_sm"] // k)
    if shared and d.get("shared_limit_seen"):
        p = min(p, d["shared_bytes_per_sm"] // shared)
    if m and m.get("known") and regs:
        u, q = m["alloc_unit"], m["partitions"]
        a = -(-regs * m["subgroup_size"] // u) * u
        p = min(p, q * ((m["regs_per_sm"] // q) // a) // k)
    return p


def main():
    out = sys.argv[1]
    regs = load(os.path.join(out, "registers-compute.json"))
    cuda = load(os.path.join(out, "cuda-registers.json"))
    if regs:
        m, base = regs.get("register_model", {}), regs.get("base", {})
        print("== register surface (compute-only family) ==")
        print(f"derived: R {m.get('regs_per_sm')}..{m.get('regs_per_sm_max')}, unit {m.get('alloc_unit')} per subgroup "
              f"({m.get('alloc_unit_per_invocation')} per invocation), {m.get('partitions')} partitions, at most "
              f"{m.get('max_per_invocation')} per invocation (capped {m.get('max_capped')}), "
              f"{m.get('explained')}/{m.get('total')} points explained; base from {regs.get('base_source')}")
    if cuda:
        print(f"CUDA: {cuda['name']} cc {cuda['cc']}, {cuda['multiProcessorCount']} SMs, regsPerMultiprocessor "
              f"{cuda['regsPerMultiprocessor']}, regsPerBlock {cuda['regsPerBlock']}, maxThreadsPerMultiProcessor "
              f"{cuda['maxThreadsPerMultiProcessor']}, maxBlocksPerMultiProcessor {cuda['maxBlocksPerMultiProcessor']}")
    if regs and cuda:
        occ = {(o["wg"], o["regs"]): o for o in cuda["occupancy"]}
        sms = cuda["multiProcessorCount"]
        eq = eq_model = n = 0
        print(f"{'wg':>5} {'live':>5} {'regs':>5} {'shared':>7} {'vkocc P':>8} {'CUDA P':>7} {'model P':>8}")
        for p in regs["points"]:
            o = occ.get((p["wg_size"], p["registers"]))
            if not o:
                continue
            n += 1
            cp = o["blocks_per_sm"]
            # CUDA's figure is for no shared memory; where the driver put shared memory into the pipeline, vkocc's
            # measured shared capacity limits it too (the same min() CUDA would take)
            if p["shared_bytes"] and base.get("shared_limit_seen"):
                cp = min(cp, base["shared_bytes_per_sm"] // p["shared_bytes"])
            cp *= sms
            mp = model_per_sm(base, regs.get("register_model"), p["wg_size"], p["shared_bytes"], p["registers"]) * base["sm_count"]
            eq += cp == p["P"]
            eq_model += mp == p["P"]
            flag = "" if cp == p["P"] else "  <- differs from CUDA"
            print(f"{p['wg_size']:>5} {p['requested']:>5} {p['registers']:>5} {p['shared_bytes']:>7} {p['P']:>8} {cp:>7} "
                  f"{mp:>8}{flag}")
        print(f"points equal to CUDA's calculator: {eq}/{n}; equal to vkocc's derived model: {eq_model}/{n}")
    for q in ("compute", "graphics"):
        files = sorted(glob.glob(os.path.join(out, f"shader-{q}", "*.json")))
        if not files:
            continue
        fp = load(os.path.join(out, f"fingerprint-{q}.json"))
        d = fp.get("derived") if fp else None
        print(f"\n== register-pressure shader, {q} family ==")
        differ = established = agree = 0
        for f in files:
            doc = load(f) if os.path.getsize(f) else None
            name = os.path.basename(f)[:-5]
            if not doc:
                print(f"{name}: no document ({open(f[:-5] + '.err').read().strip()[-200:]})")
                continue
            st = {s["name"]: (s["value"], s["augmented"]) for s in doc.get("statistics", [])}
            rc, sh = st.get("Register Count", (None, None)), st.get("Shared Memory Size", (None, None))
            dif = rc[0] != rc[1] or sh[0] != sh[1]
            differ += dif
            w = doc.get("written", {})
            P = doc.get("probe", {}).get("P") if "written" in doc else None
            aug = w.get("augmented_P", doc.get("augmented_P"))
            pred = None
            wg = doc.get("shader", {}).get("wg_size")
            if d and rc[0] is not None and wg:
                pred = model_per_sm(d, doc.get("register_model"), wg, int(sh[0] or 0), int(rc[0])) * d["sm_count"]
            if P is not None:
                established += 1
                agree += pred == P
            print(f"{name}: regs {rc[0]}/{rc[1]}, shared {sh[0]}/{sh[1]}{' DIFFER' if dif else ''}; augmented P {aug}, "
                  f"P as written {P if P is not None else 'none (' + str(doc.get('error', ''))[:150] + ')'}; "
                  f"model from written statistics {pred}; evidence: {w.get('evidence', '-')}")
        print(f"{len(files)} points; statistics differ at {differ}; P as written established at {established}, "
              f"equal to the model's prediction at {agree}")


if __name__ == "__main__":
    main()
