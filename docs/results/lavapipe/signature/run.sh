#!/bin/bash
# lavapipe: 10 fresh fingerprints quiet and 5 beside two CPU hogs at each LP_NUM_THREADS of 1, 2, 4, 8;
# one line per fingerprint: threads, load, c3 ID, c2 ID, the signature's cost (ms), the whole run (s).
# usage: run.sh VKOCC_BINARY OUT_FILE
B=$1; O=$2; C=$(mktemp -d); : > $O
one() { # threads load
  t0=$(date +%s.%N)
  XDG_CACHE_HOME=$C LP_NUM_THREADS=$1 $B fingerprint --fresh --no-registers --json > $C/fp.json 2>$C/err.txt
  rc=$?; t1=$(date +%s.%N)
  python3 -c "import json,sys; d=json.load(open('$C/fp.json')); print($1, '$2', $rc, d['cluster_id'], d.get('occupancy_id'), d['signature']['elapsed_ms'], round($t1-$t0,2))" >> $O 2>/dev/null || echo "$1 $2 $rc failed $(head -c 300 $C/err.txt)" >> $O
}
for n in 1 2 4 8; do
  for i in $(seq 10); do one $n quiet; done
  yes > /dev/null & h1=$!; yes > /dev/null & h2=$!
  for i in $(seq 5); do one $n loaded; done
  kill $h1 $h2; wait $h1 $h2 2>/dev/null
done
rm -rf $C
