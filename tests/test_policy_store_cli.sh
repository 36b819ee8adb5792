#!/bin/sh
# The policy store through the CLI (docs/policy-store.md): each bad store refused with exit 2 and its reason, nothing
# written; a contradicting result refused (exit 2); a lock held past --wait said (exit 1) with the holder's pid;
# select, build, header and check on a good store; --help names the options.
# usage: test_policy_store_cli.sh VKOCC SOURCE_DIR
set -u
V=$1; SRC=$2
D=$(mktemp -d /tmp/vkocc-store-cli-XXXXXX)
trap 'chmod -R u+w "$D"; rm -rf "$D"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect CODE NEEDLE -- command...: the exit code and a part of stderr
expect() {
  code=$1; needle=$2; shift 3
  timeout 60 "$@" >"$D/out" 2>"$D/err"; rc=$?
  if [ "$rc" != "$code" ]; then bad "$* -> exit $rc, expected $code: $(cat "$D/err")"; return; fi
  if [ -n "$needle" ] && ! grep -qF -- "$needle" "$D/err"; then bad "$* -> '$(cat "$D/err")' lacks '$needle'"; return; fi
  echo "exit $rc: $(head -c 400 "$D/err")"
  ok
}
python3 "$SRC/bench/gen_store_results.py" 3 50 "$D/in" >/dev/null
R="$D/in/r00000.json"
expect 0 "" -- "$V" policy add --db "$D/good.sqlite" "$D"/in/r*.json
expect 0 "" -- "$V" policy check --db "$D/good.sqlite"
grep -q "results: 150" "$D/out" && ok || bad "check counts 150 results: $(cat "$D/out")"
# a symbolic link
ln -s "$D/good.sqlite" "$D/link.sqlite"
expect 2 "symbolic link" -- "$V" policy add --db "$D/link.sqlite" "$R"
expect 2 "symbolic link" -- "$V" policy select --db "$D/link.sqlite" --kernel histogram --fingerprint "$SRC/tests/data/fp-hopper-132.json"
# a FIFO (no hang: nothing reads it)
mkfifo "$D/fifo.sqlite"
expect 2 "is a FIFO" -- "$V" policy add --db "$D/fifo.sqlite" "$R"
expect 2 "is a FIFO" -- "$V" policy check --db "$D/fifo.sqlite"
# a damaged file: SQLite's header over garbage, and the header cut from a real store
cp "$D/good.sqlite" "$D/damaged.sqlite"
dd if=/dev/urandom of="$D/damaged.sqlite" bs=1 seek=100 count=4000 conv=notrunc 2>/dev/null
sum=$(md5sum < "$D/damaged.sqlite")
expect 2 "damaged or no SQLite database" -- "$V" policy add --db "$D/damaged.sqlite" "$R"
expect 2 "" -- "$V" policy check --db "$D/damaged.sqlite"
[ "$(md5sum < "$D/damaged.sqlite")" = "$sum" ] && ok || bad "the damaged store was written"
# a JSON file where a store is expected
expect 2 "does not begin with SQLite's header" -- "$V" policy add --db "$SRC/tests/data/policy-db.json" "$R"
# a store of a newer schema
cp "$D/good.sqlite" "$D/newer.sqlite"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version = 7'); c.commit(); c.close()" "$D/newer.sqlite"
sum=$(md5sum < "$D/newer.sqlite")
expect 2 "schema version 7" -- "$V" policy add --db "$D/newer.sqlite" "$R"
expect 2 "schema version 7" -- "$V" policy build --db "$D/newer.sqlite" -o "$D/x.json"
[ "$(md5sum < "$D/newer.sqlite")" = "$sum" ] && [ ! -e "$D/x.json" ] && ok || bad "the newer store was written"
# a truncated WAL: a WAL left behind by a writer that did not checkpoint, cut inside a frame
cp "$D/good.sqlite" "$D/wal.sqlite"
python3 - "$D/wal.sqlite" <<'PY'
import sqlite3, sys, os
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA journal_mode=WAL")
c.execute("INSERT INTO meta VALUES('note', 'x')"); c.commit()
os.system("cp %s-wal %s.keep" % (sys.argv[1], sys.argv[1])); c.close()
os.rename(sys.argv[1] + ".keep", sys.argv[1] + "-wal")
PY
size=$(stat -c %s "$D/wal.sqlite-wal")
truncate -s $((size - 100)) "$D/wal.sqlite-wal"
expect 2 "WAL journal is truncated" -- "$V" policy add --db "$D/wal.sqlite" "$R"
expect 2 "WAL journal is truncated" -- "$V" policy check --db "$D/wal.sqlite"
[ "$(stat -c %s "$D/wal.sqlite-wal")" = $((size - 100)) ] && ok || bad "the truncated WAL was touched"
# a result that contradicts the store: the same device, size and configuration, another time
python3 - "$R" "$D/contra.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["results"][3]["median_ns"] += 1000; json.dump(d, open(sys.argv[2], "w"))
PY
expect 2 "another measurement" -- "$V" policy add --db "$D/good.sqlite" "$D/contra.json"
"$V" policy check --db "$D/good.sqlite" | grep -q "results: 150" && ok || bad "the refused file added something"
# the same results again: stored once
expect 0 "" -- "$V" policy add --db "$D/good.sqlite" "$D"/in/r*.json
grep -q "0 added, 150 there already" "$D/out" && ok || bad "re-add: $(cat "$D/out")"
# a lock held past the bound: exit 1, the store, the wait and the holder's pid
python3 - "$D/good.sqlite" "$D/locked" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").write("x"); time.sleep(20)
PY
holder=$!
for i in $(seq 100); do [ -e "$D/locked" ] && break; sleep 0.1; done
expect 1 "for more than 0.5 s" -- "$V" policy add --db "$D/good.sqlite" --wait 0.5 "$D/contra.json"
grep -qF "$holder" "$D/err" && ok || bad "the holder's pid $holder is not named: $(cat "$D/err")"
kill $holder; wait $holder 2>/dev/null
# a good store: select, build, header
expect 0 "" -- "$V" policy select --db "$D/good.sqlite" --kernel histogram --fingerprint "$SRC/tests/data/fp-hopper-132.json" --var problem_size=65536
grep -q "rule:    device" "$D/out" && ok || bad "select: $(cat "$D/out")"
expect 0 "" -- "$V" policy build --db "$D/good.sqlite" -o "$D/db.json"
expect 0 "" -- "$V" policy build "$D"/in/r*.json -o "$D/db2.json"
cmp -s "$D/db.json" "$D/db2.json" && ok || bad "build --db differs from build of the files"
expect 0 "" -- "$V" policy header --db "$D/good.sqlite" -o "$D/tuned.h"
expect 2 "layering needs a policy store" -- "$V" policy select --db "$D/db.json" --system-db "$D/good.sqlite" --kernel histogram --fingerprint "$SRC/tests/data/fp-hopper-132.json"
expect 2 "cannot look at its file system" -- "$V" policy add --db "$D/no/such/dir/s.sqlite" "$R"
expect 0 "" -- "$V" policy add --help
grep -q -- "--allow-network-fs" "$D/out" && ok || bad "add --help lacks --allow-network-fs"
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
