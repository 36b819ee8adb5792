# the P-based histogram spec on the H100: 300 configurations by random sampling (seed 1), P measured per pipeline
set -u
o=$OUT/b3; mkdir -p $o
export XDG_CACHE_HOME=$o/cache
.gpurun/new/vkocc fingerprint > $o/fingerprint.txt 2>&1; echo "fingerprint exit $?"
( time .gpurun/new/vkocc tune examples/tune/histogram/histogram.json -o $o/histogram.json --t4 $o/histogram-t4.json \
    --strategy random_sample --seed 1 --budget 300 ) > $o/histogram.txt 2>&1; echo "tune exit $?"
grep -v '^  ' $o/histogram.txt | tail -12
rm -rf $o/cache
cd $OUT && tar czf b3.tar.gz b3 && rm -rf b3
