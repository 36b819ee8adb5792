#!/bin/sh
# 10 seeds of a random search (race.json, 4 of its 6 configurations), raced (with a final round re-timing the 4) and
# --full-rule, each process from empty caches
R=/tmp/h44m/seeds; mkdir -p $R
for s in 1 2 3 4 5 6 7 8 9 10; do
  /tmp/h44m/one.sh /work/h44/build-rel/vkocc /work/h44/tests/data/tune/race.json $R race-s$s --strategy random_sample --budget 4 --seed $s --confirm 4
  /tmp/h44m/one.sh /work/h44/build-rel/vkocc /work/h44/tests/data/tune/race.json $R full-s$s --strategy random_sample --budget 4 --seed $s --full-rule
done
