#!/usr/bin/env python3
"""Structure figures of a vkocc tree (docs/architecture.md):
    python3 scripts/structure.py [--check] [--map] [--write-map] [--rooms FILE] [REPO]
Library and CLI sources (.c/.h) tracked by git outside tests/, bench/, scripts/, docs/, examples/ count. The rooms and
their floors come from cmake/rooms.cmake, the table the build compiles each room with (--rooms FILE, else REPO's, else
this script's tree's). --map prints the map of the rooms (docs/architecture.md holds it between its markers;
--write-map writes it there). --check (ctest test_layering): exit 1 when a wall is broken: a circle, a call or an
include running up a floor, an include sideways, an include through a path ("../io/io.h": it would pass the build's
walls), a Vulkan header reached from a Vulkan-free room, the CLI including anything but include/ and cli/, or a map
in docs/architecture.md that is not the code's."""
import os, re, sys, subprocess
opts = {"--check", "--map", "--write-map"}
argv = sys.argv[1:]
rooms_file = None
if "--rooms" in argv:
    i = argv.index("--rooms"); rooms_file = argv[i + 1]; del argv[i:i + 2]
args = [a for a in argv if a not in opts]
check = "--check" in argv
show_map = "--map" in argv
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
# 1. core_fn.vk calls outside core/
vk = {f: len(re.findall(r"core_fn\.vk", code[f])) for f in files if not f.startswith("core/")}
print("core_fn.vk calls outside core/:", sum(vk.values()), {f: n for f, n in vk.items() if n})
# 2. places that record a timed dispatch (functions that write a queue timestamp)
ts = {f: len(re.findall(r"core_fn\.vkCmdWriteTimestamp", code[f])) for f in files}
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
# 4. rooms and floors (cmake/rooms.cmake), the arrows between rooms (calls and quoted includes), those running up a
# floor and those sideways (between two rooms of one floor)
def read_rooms(path):
    t = open(path).read()
    body = re.search(r"set\(VKOCC_ROOMS(.*?)\)", t, re.S).group(1)
    body = re.sub(r"#[^\n]*", "", body).split()
    return {body[i]: (int(body[i + 1]), body[i + 2] == "VULKAN_FREE") for i in range(0, len(body), 3)}
for cand in (rooms_file, os.path.join(repo, "cmake/rooms.cmake"),
             os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cmake/rooms.cmake")):
    if cand and os.path.exists(cand):
        table = read_rooms(cand); break
floor = {r: f for r, (f, _) in table.items()}
vulkan_free_rooms = {r for r, (_, v) in table.items() if v}
def room(f):  # the room whose folder holds f, the deepest (tune/harness before a room tune)
    best = f.split("/")[0]
    for r in table:
        if f.startswith(r + "/") and len(r) > len(best): best = r
    return best
def in_house(f): return room(f) in floor
call_arrows = {}
for f in calls:
    for g, n in calls[f]:
        if in_house(f) and in_house(g) and room(f) != room(g): call_arrows.setdefault((room(f), room(g)), []).append((f, g, n))
up = sorted((f, g, n) for (a, b), l in call_arrows.items() if floor[b] > floor[a] for f, g, n in l)
side_calls = sorted((f, g, n) for (a, b), l in call_arrows.items() if floor[b] == floor[a] for f, g, n in l)
print("calls running up a floor:", len(up))
for u in up: print("   ", u)
print("calls sideways (two rooms of one floor):", len(side_calls))
for u in side_calls: print("   ", u)
# 5. schema strings outside the table
def nocomment(s): return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", s, flags=re.S))
sch = [(f, m.group(0)) for f in files for m in re.finditer(r'"vkocc\.[a-z-]+/[0-9]+"', nocomment(text[f]))]
print("schema strings outside io/document.c:", len([s for s in sch if s[0] != "io/document.c"]), sch)
# 6. the longest function per room
longest, fnlen = {}, []
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
        fnlen.append((n, f, m.group(1)))
        if n > longest.get(r, (0,))[0]: longest[r] = (n, f, m.group(1))
print("longest function per room (lines):")
for r in sorted(longest, key=lambda r: (floor.get(r, 99), r)):
    print("   %-13s %4d  %s %s" % (r, *longest[r]))
allfns = sorted(fnlen, reverse=True)[:5]
print("longest functions:", "; ".join("%d %s %s" % x for x in allfns))
# 7. the CLI's seam: library functions it calls that the public headers do not declare, and the internal
# headers it includes (everything else it needs is include/vkocc.h with its parts, include/vkocc_plot.h and cli/*.h)
public = set()
for h in sorted(h for h in code if h.startswith("include/")):
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
house = [(f, g) for f, g in crossing if in_house(f) and in_house(g)]
up_inc = sorted({(f, g) for f, g in house if floor[room(g)] > floor[room(f)]})
side_inc = sorted({(f, g) for f, g in house if floor[room(g)] == floor[room(f)]})
print("includes running up a floor:", len(up_inc))
for u in up_inc: print("   ", u)
print("includes sideways:", len(side_inc))
for u in side_inc: print("   ", u)
# (the public umbrella include/vkocc.h includes its parts, include/vkocc/*.h, by their path below include/)
pathy = [(f, m.group(1)) for f in files for m in re.finditer(r'^\s*#\s*include\s+"([^"]*/[^"]*)"', nocomment(text[f]), re.M)
         if not (f.startswith("include/") and os.path.normpath(os.path.join("include", m.group(1))).startswith("include/")
                 and os.path.exists(os.path.join(repo, "include", m.group(1))))]
print("includes through a path (past the build's walls):", len(pathy), pathy)
arrows = set(call_arrows)
for f, g in house: arrows.add((room(f), room(g)))
rooms_here = sorted({room(f) for f in files if in_house(f)}, key=lambda r: (floor[r], r))
print("rooms: %d; floors: %d; arrows between rooms: %d (up a floor: %d, sideways: %d)" % (
    len(rooms_here), len({floor[r] for r in rooms_here}), len(arrows),
    len({(a, b) for a, b in arrows if floor[b] > floor[a]}), len({(a, b) for a, b in arrows if floor[b] == floor[a]})))
# circles between rooms (a room that reaches itself through the arrows)
def reach(a, seen):
    for x, y in arrows:
        if x == a and y not in seen: seen.add(y); reach(y, seen)
    return seen
room_circles = sorted(r for r in rooms_here if r in reach(r, set()))
print("rooms in a circle:", len(room_circles), room_circles)
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
vulkan_free = [f for f in files if room(f) in vulkan_free_rooms]
vk_bad = [(f, reaches_vulkan(f)) for f in vulkan_free if reaches_vulkan(f)]
print("Vulkan headers reached from the Vulkan-free rooms (%s):" % ", ".join(sorted(vulkan_free_rooms)), len(vk_bad), vk_bad)
dev_in_compile = [(f, g) for f in files if f.startswith("compile/") for g in inc[f] if g in ("core/internal.h", "core/exec.h")]
print("compile/ including the device room's headers:", len(dev_in_compile), dev_in_compile)
# 10. the map of the rooms (docs/architecture.md, between its markers): floor, room, what it sees, its files
def room_map():
    out = ["| floor | room | sees (its include path besides include/) | files |", "|---|---|---|---|"]
    for r in sorted(table, key=lambda r: (-floor[r], r)):
        if r == "cli": sees = "nothing but `include/` and `cli/`"
        else:
            below = [b for b in sorted(table, key=lambda b: (floor[b], b)) if floor[b] < floor[r] and b != "cli"
                     and (r not in vulkan_free_rooms or b in vulkan_free_rooms)]
            sees = ", ".join("`%s/`" % b for b in below) or "nothing"
            if r in vulkan_free_rooms: sees += " (Vulkan-free: no Vulkan header)"
        fs = [f[len(r) + 1:] for f in sorted(files) if room(f) == r]
        out.append("| %d | `%s/` | %s | %s |" % (floor[r], r, sees, ", ".join("`%s`" % f for f in fs)))
    return "\n".join(out) + "\n"
BEGIN, END = "<!-- the map: python3 scripts/structure.py --map -->\n", "<!-- end of the map -->\n"
map_stale = 0
doc = os.path.join(repo, "docs/architecture.md")
if os.path.exists(doc) and BEGIN in open(doc).read():
    d = open(doc).read()
    held = d[d.index(BEGIN) + len(BEGIN):d.index(END)]
    map_stale = int(held != room_map())
    print("the map in docs/architecture.md:", "stale (python3 scripts/structure.py --write-map)" if map_stale else
          "the code's")
if show_map:
    sys.stdout.write(room_map())
if "--write-map" in argv:  # docs/architecture.md's map made anew
    d = open(doc).read()
    open(doc, "w").write(d[:d.index(BEGIN) + len(BEGIN)] + room_map() + d[d.index(END):])
    print("the map in docs/architecture.md written")
if check:
    broken = (len(circles) + len(up) + len(up_inc) + len(side_inc) + len(pathy) + len(vk_bad) + len(incs) +
              len(nonpublic) + len(room_circles) + map_stale)
    print("layering:", "ok" if not broken else "BROKEN (%d)" % broken)
    sys.exit(1 if broken else 0)
