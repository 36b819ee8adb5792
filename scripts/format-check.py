#!/usr/bin/env python3
"""The format check of CI: the C lines a change writes must be as .clang-format writes them, and none may run past
120 columns. Only new lines are checked: untouched code never (the tree predates .clang-format), and neither are
lines a change only moves (a line whose text the same change deletes elsewhere: a file split, a function moved) or
only renames in (a hunk whose lines differ from the lines they replace in identifiers alone).

usage: scripts/format-check.py [--fix] [BASE]   --fix: format the new lines in place;  BASE: what the change is measured from; default: the merge base with
       origin/main (else main), or HEAD~ where HEAD is main itself. Exit 0 clean, 1 findings, 2 cannot check.
Fix what it reports with `git clang-format BASE` (which formats every changed line, moved ones too)."""
import os, re, shutil, subprocess, sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
def git(*a): return subprocess.run(["git", *a], capture_output=True, text=True)
def commit(ref): return git("rev-parse", "-q", "--verify", ref + "^{commit}").stdout.strip()

fix = "--fix" in sys.argv[1:]
rest = [a for a in sys.argv[1:] if a != "--fix"]
base = rest[0] if rest else ""
if not base:
    for ref in ("origin/main", "main"):
        if commit(ref):
            base = git("merge-base", "HEAD", ref).stdout.strip()
            break
    if not base or base == commit("HEAD"): base = "HEAD~"
if not commit(base):
    if rest: sys.exit("format-check: no commit %s to compare with" % base)
    # a clone of one commit (git clone --depth 1) has no change to measure: nothing is checked, which is said
    print("format-check: no commit %s to compare with (a shallow clone?): nothing checked" % base)
    sys.exit(0)
cf = shutil.which("clang-format") or shutil.which("clang-format-14")
if not cf:
    print("format-check: clang-format is missing (apt-get install clang-format; scripts/install-deps.sh)", file=sys.stderr)
    sys.exit(2)

paths = [":(glob)**/*.c", ":(glob)**/*.h", ":(exclude)tests/fuzz-corpus/**"]
diff = git("diff", "-U0", "--no-renames", base, "--", *paths).stdout
# A hunk whose lines only renamed identifiers (each added line the deleted one with other names: a mechanical
# rename such as scripts/rename-internal.sh) writes nothing new either.
def shape(s): return re.sub(r"\s+", " ", re.sub(r"\b[A-Za-z_]\w*\b", "I", s)).strip()
added, deleted, f, n, hunks = {}, set(), None, 0, []
for line in diff.split("\n"):
    if line.startswith("+++ "): f = line[6:] if line != "+++ /dev/null" else None; continue
    if line.startswith("--- "): continue
    m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)", line)
    if m:
        n = int(m.group(1))
        hunks.append((f, [], []))
        continue
    if line.startswith("-"):
        deleted.add(line[1:].strip())
        if hunks: hunks[-1][1].append(line[1:])
    elif line.startswith("+") and f:
        added.setdefault(f, []).append((n, line[1:]))
        hunks[-1][2].append((n, line[1:]))
        n += 1
renamed = set()
for f, dels, adds in hunks:
    if dels and len(dels) == len(adds) and all(shape(d) == shape(a) for d, (_, a) in zip(dels, adds)):
        renamed |= {(f, n) for n, _ in adds}
for f in added: added[f] = [(n, t) for n, t in added[f] if (f, n) not in renamed]
findings = []
for f, lines in sorted(added.items()):
    new = [(n, t) for n, t in lines if t.strip() and t.strip() not in deleted]
    for n, t in new:
        if len(t) > 120: findings.append("%s:%d: %d columns (at most 120)" % (f, n, len(t)))
    if not new or not os.path.exists(f): continue
    ranges, start, prev = [], None, None
    for n, _ in new:
        if start is None or n != prev + 1:
            if start is not None: ranges.append((start, prev))
            start = n
        prev = n
    ranges.append((start, prev))
    args = [cf, "--style=file", "--assume-filename=" + f] + ["--lines=%d:%d" % r for r in ranges]
    want = subprocess.run(args, stdin=open(f), capture_output=True, text=True).stdout
    have = open(f).read()
    if want != have and fix:
        open(f, "w").write(want)
        print("format-check: formatted the new lines of", f)
    elif want != have:
        d = subprocess.run(["diff", "-u", "--label", f, "--label", f + " (clang-format)", f, "-"], input=want,
                           capture_output=True, text=True).stdout
        findings.append(d.rstrip("\n"))
short = git("rev-parse", "--short", base).stdout.strip()
if findings:
    print("format-check: new lines since %s that .clang-format writes otherwise:" % short)
    print("\n".join(findings))
    sys.exit(1)
print("format-check: the new lines since %s follow .clang-format (%d files)" % (short, len(added)))
