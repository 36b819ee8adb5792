#!/usr/bin/env python3
"""Structure figures of a vkocc tree (docs/architecture.md): python3 scripts/structure.py [--check] [REPO]. Library and
CLI sources (.c/.h) tracked by git outside tests/, bench/, scripts/, docs/, examples/ count. --check (ctest
test_layering): exit 1 when a wall is broken: a circle, a call or an include from a lower room into a higher one, a
Vulkan header reached from the Vulkan-free floor or the pure models, the CLI including anything but include/ and cli/."""
import os, re, sys, subprocess
args = [a for a in sys.argv[1:] if a != "--check"]
check = "--check" in sys.argv[1:]
repo = args[0] if args else "."
files = subprocess.run(["git", "-C", repo, "ls-files", "*.c", "*.h"], capture_output=True, text=True).stdout.split()
files = [f for f in files if not re.match(r"(tests|bench|scripts|docs|examples|build[^/]*)/", f)]
text = {f: open(os.path.join(repo, f), errors="replace").read() for f in files}
def strip(s):  # comments, strings and character literals out, in one pass (a "//" inside a string is no comment)
    tok = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    def sub(m):
        t = m.group(0)
        return "\n" * t.count("\n") if t[0] == "/" else t[0] * 2
    return tok.sub(sub, s)
code = {f: strip(t) for f, t in text.items()}
# 1. vkocc_fn.vk calls outside core/
vk = {f: len(re.findall(r"vkocc_fn\.vk", code[f])) for f in files if not f.startswith("core/")}
print("vkocc_fn.vk calls outside core/:", sum(vk.values()), {f: n for f, n in vk.items() if n})
# 2. places that record a timed dispatch (functions that write a queue timestamp)
ts = {f: len(re.findall(r"vkocc_fn\.vkCmdWriteTimestamp", code[f])) for f in files}
print("files that write queue timestamps (vkCmdWriteTimestamp):", {f: n for f, n in ts.items() if n})
# function definitions (non-static, at column 0) and their bodies
defre = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(\w+)\([^;{]*\)\s*\{", re.M)
sdefre = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\([^;{]*\)\s*\{", re.M)
defs = {}
for f in files:
    if f.endswith(".c"):
        for m in defre.finditer(code[f]): defs.setdefault(m.group(1), f)
calls = {f: set() for f in files if f.endswith(".c")}
for f in calls:
    own = {m.group(1) for m in sdefre.finditer(code[f])}
    for name in set(re.findall(r"\b(\w+)\s*\(", code[f])):
        g = defs.get(name)
        if g and g != f and name not in own: calls[f].add((g, name))
# 3. circles between files (mutual calls)
edges = {(f, g) for f in calls for g, _ in calls[f]}
circles = sorted({tuple(sorted((f, g))) for f, g in edges if (g, f) in edges})
print("circles between files:", len(circles), circles)
# 4. calls from a lower room into a higher one
# util/ is the ground floor: the helpers without Vulkan (util/util.h: errors, allocation, caches, time, stats), which
# compile/ uses, and the device side (loader, devices, context, the executor), which uses compile/.
order = ["util", "compile", "core", "kernels", "fingerprint", "io", "calibrate", "probes", "persistent", "characterize",
         "tune", "policy", "viewer", "cli"]
UTIL = ()  # util/ is a folder of its own (the ground floor); files of another folder counted with it
def room(f):
    if f in UTIL: return "util"
    return f.split("/")[0]
up = sorted({(f, g, n) for f in calls for g, n in calls[f]
             if room(f) in order and room(g) in order and order.index(room(g)) > order.index(room(f))})
print("calls from a lower room into a higher one:", len(up))
for u in up: print("   ", u)
# 5. schema strings outside the table
def nocomment(s): return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", s, flags=re.S))
sch = [(f, m.group(0)) for f in files for m in re.finditer(r'"vkocc\.[a-z-]+/[0-9]+"', nocomment(text[f]))]
print("schema strings outside io/document.c:", len([s for s in sch if s[0] != "io/document.c"]), sch)
# 6. the longest function per room
longest = {}
for f in files:
    if not f.endswith(".c"): continue
    lines = code[f].split("\n")
    for m in sdefre.finditer(code[f]):
        start = code[f].count("\n", 0, m.start())
        depth, i, t = 0, m.end() - 1, code[f]
        while i < len(t):
            depth += (t[i] == "{") - (t[i] == "}")
            if depth == 0: break
            i += 1
        n = t.count("\n", m.start(), i) + 1
        r = room(f)
        if n > longest.get(r, (0,))[0]: longest[r] = (n, f, m.group(1))
print("longest function per room (lines):")
for r in sorted(longest, key=lambda r: order.index(r) if r in order else 99):
    print("   %-13s %4d  %s %s" % (r, *longest[r]))
# 7. the CLI's seam: library functions it calls that the public headers do not declare, and the internal
# headers it includes (everything else it needs is include/vkocc.h, include/vkocc_plot.h and cli/*.h)
public = set()
for h in ("include/vkocc.h", "include/vkocc_plot.h"):
    if h in code: public |= set(re.findall(r"\b(vkocc_\w+)\s*\(", code[h]))
cli_calls = set()
for f in files:
    if f.startswith("cli/") and f.endswith(".c"):
        cli_calls |= {n for n in re.findall(r"\b(\w+)\s*\(", code[f]) if n in defs and not defs[n].startswith("cli/")}
nonpublic = sorted(cli_calls - public)
print("library functions the CLI calls that the public headers do not declare:", len(nonpublic), "(public: %d)" %
      len(cli_calls & public))
print("   ", " ".join(nonpublic))
incs = [(f, m.group(1)) for f in files if f.startswith("cli/")
        for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', nocomment(text[f]), re.M)
        if m.group(1) not in ("vkocc.h", "vkocc_plot.h")
        and not (os.path.normpath(os.path.join("cli", m.group(1))).startswith("cli/")
                 and os.path.exists(os.path.join(repo, "cli", m.group(1))))]
print("internal headers included in cli/:", len(incs), "lines in", len({f for f, _ in incs}), "files;",
      "cli/cli.h:", [h for f, h in incs if f == "cli/cli.h"])
# 8. includes: the quoted includes as arrows between rooms (a call analysis misses a room that only includes
# another's header, as compile/ did core/internal.h: the Vulkan context below the compiler)
where = {}  # header name -> its path (the first of that name)
for f in files:
    if f.endswith(".h"): where.setdefault(os.path.basename(f), f)
def resolve(f, h):
    near = os.path.normpath(os.path.join(os.path.dirname(f), h))
    if near in text: return near
    return where.get(os.path.basename(h))
inc = {}
for f in files:
    inc[f] = [g for g in (resolve(f, m.group(1)) for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', nocomment(text[f]), re.M)) if g]
crossing = [(f, g) for f in files for g in inc[f] if room(f) != room(g) and not g.startswith("include/")]
print("quoted includes:", sum(len(v) for v in inc.values()), "; crossing a room (include/ aside):", len(crossing))
up_inc = sorted({(f, g) for f, g in crossing if room(f) in order and room(g) in order and order.index(room(g)) > order.index(room(f))})
print("includes from a lower room into a higher one:", len(up_inc))
for u in up_inc: print("   ", u)
# 9. Vulkan reached (transitively, through quoted includes) from the Vulkan-free floor and the pure models
def reaches_vulkan(f, seen=None):
    seen = seen if seen is not None else set()
    if f in seen: return None
    seen.add(f)
    if re.search(r'^\s*#\s*include\s+<vulkan/', nocomment(text[f]), re.M): return f
    for g in inc[f]:
        r = reaches_vulkan(g, seen)
        if r: return r
    return None
vulkan_free = [f for f in files if room(f) == "util" or f.startswith("fingerprint/")]
vk_bad = [(f, reaches_vulkan(f)) for f in vulkan_free if reaches_vulkan(f)]
print("Vulkan headers reached from the Vulkan-free floor and the pure models (fingerprint/):", len(vk_bad), vk_bad)
dev_in_compile = [(f, g) for f in files if f.startswith("compile/") for g in inc[f] if g in ("core/internal.h", "core/exec.h")]
print("compile/ including the device room's headers:", len(dev_in_compile), dev_in_compile)
if check:
    broken = len(circles) + len(up) + len(up_inc) + len(vk_bad) + len(dev_in_compile) + len(incs) + len(nonpublic)
    print("layering:", "ok" if not broken else "BROKEN (%d)" % broken)
    sys.exit(1 if broken else 0)
