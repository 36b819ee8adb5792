#!/bin/sh
# paired whole-process timings, after (A) against before (B): vadd (bench/tune/vadd, 4 configurations, random_sample
# budget 4 seed 1, as bench/tune/lavapipe-ktt.sh runs it) and race.json (6 configurations, brute force)
set -u
R=/tmp/h44m; AFT=/work/h44/build-rel/vkocc; BEF=/tmp/h44-before/build-rel/vkocc
one() { # tag spec args
  tag=$1 spec=$2; shift 2
  { date -u +%T; uptime; } >> $R/$tag.txt
  farm-bench -n 5 --timeout 900 --vs "$R/one.sh $BEF $spec $R/$tag before $*" -- $R/one.sh $AFT $spec $R/$tag after "$@" >> $R/$tag.txt 2>&1
  { date -u +%T; uptime; } >> $R/$tag.txt
}
one quiet-vadd /work/h44/bench/tune/vadd/vadd.json --budget 4 --seed 1 --strategy random_sample
one quiet-race /work/h44/tests/data/tune/race.json --strategy brute_force
yes > /dev/null & h1=$!
yes > /dev/null & h2=$!
one hogs-vadd /work/h44/bench/tune/vadd/vadd.json --budget 4 --seed 1 --strategy random_sample
one hogs-race /work/h44/tests/data/tune/race.json --strategy brute_force
kill $h1 $h2
echo done > $R/measure.done
