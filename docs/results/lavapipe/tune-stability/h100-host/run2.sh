# lavapipe on the GPU host's CPUs, pinned: LP_NUM_THREADS=1 on cores 2-3, LP_NUM_THREADS=2 on cores 2-4
set -u
source .gpu/enter.sh
mkdir -p /opt/lvp; tar xJf .lvp/lvplibs.tar.xz -C /opt/lvp
L=/opt/lvp/lib
export LD_LIBRARY_PATH=$L
printf '{"ICD": {"api_version": "1.1.230", "library_path": "%s/libvulkan_lvp.so"}, "file_format_version": "1.0.0"}\n' $L > /opt/lvp/lvp.json
export VK_DRIVER_FILES=/opt/lvp/lvp.json VKOCC_DEVICE=llvmpipe
o=$OUT/lvp2; mkdir -p $o
for cfg in "1 2,3" "2 2-4" "1 2"; do
  set -- $cfg; lp=$1; cores=$2; d=$o/lp$lp-c${cores//,/_}
  echo "== LP_NUM_THREADS=$lp taskset -c $cores $(date +%T)"
  LP_NUM_THREADS=$lp taskset -c $cores bash scripts/reliability/tune-stability.sh .gpurun/build-gpu $d 5 "" --fingerprint tests/data/fp-hopper-132.json > $d.txt 2>&1
  grep -E '^run .: best|identical|lie within|load|side by side \(|best .*MAD, ' $d.txt
done
cd $OUT && tar czf lvp2.tar.gz lvp2 && rm -rf lvp2/*/
