#!/usr/bin/env bash
# The documents the CLI composes through the public header, on a GPU with register statistics (lavapipe has
# none, so the register documents with the vendor's figures are written only here). Run it once with the
# build before a change and once with the build after it, then diff the two OUT_DIR/summary.txt files: they
# hold each document's member paths in order (values dropped, except the schema and the members that are no
# measurement), so a member added, dropped or moved shows; measured numbers may differ between runs.
#
#   scripts/gpu/documents-check.sh BUILD_DIR OUT_DIR
#
# Steps (each goes on when one fails; exit codes in OUT_DIR/rc.txt): `surface --registers` (a small sweep) -o
# and --json, the register cache entry it sealed, `calc --regs` from that cache (the seal read back), `fingerprint
# --fresh --json` with the register axis, the fingerprint's cache entry, a second `fingerprint --json` (from the
# cache), `policy select` on the live fingerprint. Needs python3.
. "$(dirname "$0")/lib.sh"
gpu_init "$@" || gpu_usage
: >"$out/rc.txt"
run() { # NAME ARGS...: OUT/NAME.json (stdout), OUT/NAME.err
  local name=$1; shift
  "$bin" "$@" >"$out/$name.json" 2>"$out/$name.err"
  echo "$name $?" >>"$out/rc.txt"
}
run registers surface --registers --wg 64,256 --live 0-128:32 -o "$out/registers-o.json" --json
cp "$XDG_CACHE_HOME"/vkocc/registers-*.json "$out/registers-cache.json" 2>/dev/null
run calc-regs calc --regs 64 --wg 256 --json
run fingerprint fingerprint --fresh --json
cp "$XDG_CACHE_HOME"/vkocc/fingerprint-*.json "$out/fingerprint-cache.json" 2>/dev/null
run fingerprint-cached fingerprint --json
run policy policy select --db "$root/tests/data/policy-db.json" --kernel radix_sort --json
python3 - "$out" >"$out/summary.txt" <<'PY'
import json, os, sys
out = sys.argv[1]
KEEP = {"schema", "base_source", "known", "source", "regs_agree", "unit_agree", "rule", "kernel", "partitions",
        "alloc_unit", "regs_per_sm"}
def walk(o, p, lines):
    if isinstance(o, dict):
        for k, v in o.items():
            walk(v, p + "." + k, lines)
    elif isinstance(o, list):
        lines.append(p + "[] (%d)" % len(o) if not o or not isinstance(o[0], (dict, list)) else p + "[]")
        if o and isinstance(o[0], (dict, list)):
            walk(o[0], p + "[0]", lines)
    else:
        key = p.rsplit(".", 1)[-1]
        lines.append(p + (" = %s" % json.dumps(o) if key in KEEP else ""))
for name in ["registers-o", "registers", "registers-cache", "calc-regs", "fingerprint", "fingerprint-cache",
             "fingerprint-cached", "policy"]:
    path = os.path.join(out, name + ".json")
    print("==", name)
    try:
        doc = json.load(open(path))
    except Exception as e:
        print("  not read:", type(e).__name__)
        continue
    lines = []
    walk(doc, "$", lines)
    for l in lines:
        print("  " + l)
PY
cat "$out/rc.txt"
