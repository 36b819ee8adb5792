#!/bin/bash
# Validation: the signature and its c3 ID on both queue families, 10 fresh processes each, quiet and loaded
# (two CPU hogs and a GPU neighbour on the other family), and fresh fingerprints with their cost.
D=$OUT/sigfinal; mkdir -p $D; B=.gpu-signature
nvidia-smi > $D/nvidia-smi.txt 2>&1
nvidia-smi -q | head -60 > $D/nvidia-smi-q.txt 2>&1
for q in compute graphics; do
  for i in $(seq 10); do $B/bench_signature --queue $q >> $D/quiet-$q.jsonl 2>>$D/err.txt; done
done
yes > /dev/null & h1=$!; yes > /dev/null & h2=$!
for q in compute graphics; do
  o=graphics; [ $q = graphics ] && o=compute
  $B/bench_signature --queue $o --runs 400 > /dev/null 2>&1 & g=$!
  for i in $(seq 5); do $B/bench_signature --queue $q >> $D/loaded-$q.jsonl 2>>$D/err.txt; done
  kill $g; wait $g 2>/dev/null
done
kill $h1 $h2
export XDG_CACHE_HOME=$D/cache
for q in compute graphics; do
  for i in 1 2 3; do t0=$(date +%s.%N); $B/vkocc fingerprint --fresh --no-registers --queue $q --json > $D/fp-$q-$i.json 2>>$D/fp-err.txt; echo "rc $? $q $i $(awk "BEGIN{print $(date +%s.%N) - $t0}") s" >> $D/fp-err.txt; done
  $B/vkocc fingerprint --queue $q > $D/fp-$q-summary.txt 2>&1
done
rm -rf $D/cache
cd $OUT && tar czf sigfinal.tgz sigfinal && rm -rf sigfinal
