# documents-check and a T1 tune with the builds before (old, e0a680a) and after (new) the public-header merges
set -u
o=$OUT/b2; mkdir -p $o
for b in old new; do
  echo "== documents-check $b $(date +%T)"
  scripts/gpu/documents-check.sh .gpurun/$b $o/doc-$b > $o/doc-$b.log 2>&1
  cat $o/doc-$b/rc.txt | tr '\n' ' '; echo
done
diff $o/doc-old/summary.txt $o/doc-new/summary.txt > $o/doc-diff.txt; echo "documents diff lines: $(wc -l < $o/doc-diff.txt)"; head -30 $o/doc-diff.txt
for b in old new; do
  echo "== tune transpose (ELEMS 4, shared) $b $(date +%T)"
  XDG_CACHE_HOME=$o/cache-$b .gpurun/$b/vkocc tune examples/tune/transpose/transpose.json -o $o/tune-$b.json --t4 $o/tune-$b-t4.json \
    --only ELEMS=4 --only USE_SHARED=1 > $o/tune-$b.txt 2>&1; echo "exit $?"
  grep -E '^(space|validity|best|clocks)' $o/tune-$b.txt
done
rm -rf $o/cache-* $o/doc-*/.cache
cd $OUT && tar czf b2.tar.gz b2 && rm -rf b2
