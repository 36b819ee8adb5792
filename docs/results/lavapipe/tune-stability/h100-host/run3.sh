# lavapipe on the GPU host's 16 CPU cores: the stability script with its floor (one configuration against itself)
set -u
mkdir -p /opt/lvp; tar xJf .lvp/lvplibs.tar.xz -C /opt/lvp
export LD_LIBRARY_PATH=/opt/lvp/lib
printf '{"ICD": {"api_version": "1.1.230", "library_path": "/opt/lvp/lib/libvulkan_lvp.so"}, "file_format_version": "1.0.0"}\n' > /opt/lvp/lvp.json
export VK_DRIVER_FILES=/opt/lvp/lvp.json VKOCC_DEVICE=llvmpipe
xz -dk .gpurun/new/vkocc.xz
o=$OUT/lvp3; mkdir -p $o
for lp in 1 4; do
  echo "== LP_NUM_THREADS=$lp $(date +%T)"
  LP_NUM_THREADS=$lp bash scripts/reliability/tune-stability.sh .gpurun/new $o/lp$lp 5 "" --fingerprint tests/data/fp-hopper-132.json > $o/lp$lp.txt 2>&1
  grep -E 'identical|lie within|load|against itself' $o/lp$lp.txt
done
cd $OUT && tar czf lvp3.tar.gz lvp3 && rm -rf lvp3/*/
