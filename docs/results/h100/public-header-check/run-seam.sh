# after the public-header merges: seam-check with the build before them (old, main at e0a680a) and after (new)
set -u
o=$OUT/b1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
for b in old new; do
  echo "== seam-check $b $(date +%T)"
  scripts/gpu/seam-check.sh .gpurun/$b $o/seam-$b > $o/seam-$b.log 2>&1
  cat $o/seam-$b/rc.txt
done
diff $o/seam-old/summary.txt $o/seam-new/summary.txt > $o/seam-diff.txt; echo "seam diff lines: $(wc -l < $o/seam-diff.txt)"
head -40 $o/seam-diff.txt
rm -rf $o/seam-*/cache
cd $OUT && tar czf b1.tar.gz b1 && rm -rf b1
