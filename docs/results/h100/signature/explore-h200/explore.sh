#!/bin/bash
# Exploratory: the signature's raw values on both queue families, 10 fresh processes each, quiet and loaded.
D=$OUT/sig; mkdir -p $D; B=.gpu-signature
nvidia-smi > $D/nvidia-smi.txt 2>&1
nvidia-smi -q | head -60 > $D/nvidia-smi-q.txt 2>&1
for q in compute graphics; do
  for i in $(seq 10); do $B/bench_signature --queue $q >> $D/quiet-$q.jsonl 2>>$D/err.txt; done
  $B/bench_signature --queue $q --runs 10 >> $D/inproc-$q.jsonl 2>>$D/err.txt
done
# loaded: two CPU hogs and a GPU neighbour on the other family
yes > /dev/null & h1=$!; yes > /dev/null & h2=$!
for q in compute graphics; do
  o=graphics; [ $q = graphics ] && o=compute
  $B/bench_signature --queue $o --runs 400 > /dev/null 2>&1 & g=$!
  for i in $(seq 5); do $B/bench_signature --queue $q >> $D/loaded-$q.jsonl 2>>$D/err.txt; done
  kill $g; wait $g 2>/dev/null
done
kill $h1 $h2
# fingerprints with the signature: cost and c3 on each family
export XDG_CACHE_HOME=$D/cache
for q in compute graphics; do
  for i in 1 2; do t0=$(date +%s.%N); $B/vkocc fingerprint --fresh --no-registers --queue $q --json > $D/fp-$q-$i.json 2>>$D/fp-err.txt; echo "rc $? $q $i $(awk "BEGIN{print $(date +%s.%N) - $t0}") s" >> $D/fp-err.txt; done
done
cd $OUT && tar czf sig.tgz sig && rm -rf sig
