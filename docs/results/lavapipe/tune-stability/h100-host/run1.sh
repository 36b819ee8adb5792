# lavapipe on the GPU host's CPUs: the tuner's stability on a quiet machine
set -u
source .gpu/enter.sh
mkdir -p /opt/lvp; tar xJf .lvp/lvplibs.tar.xz -C /opt/lvp
L=/opt/lvp/lib
export LD_LIBRARY_PATH=$L
printf '{"ICD": {"api_version": "1.1.230", "library_path": "%s/libvulkan_lvp.so"}, "file_format_version": "1.0.0"}\n' $L > /opt/lvp/lvp.json
export VK_DRIVER_FILES=/opt/lvp/lvp.json VKOCC_DEVICE=llvmpipe
o=$OUT/lvp; mkdir -p $o
{ nproc; lscpu | head -25; cat /proc/loadavg; cat /sys/kernel/mm/transparent_hugepage/enabled; cat /etc/os-release | head -2; } > $o/host.txt 2>&1
.gpurun/build-gpu/vkocc devices > $o/devices.txt 2>&1
cat $o/devices.txt
for lp in 1 2 4; do
  echo "== LP_NUM_THREADS=$lp $(date +%T)"
  LP_NUM_THREADS=$lp bash scripts/reliability/tune-stability.sh .gpurun/build-gpu $o/lp$lp 5 "" --fingerprint tests/data/fp-hopper-132.json > $o/lp$lp.txt 2>&1
  grep -E 'identical|lie within|load' $o/lp$lp.txt
done
echo "== default threads $(date +%T)"
bash scripts/reliability/tune-stability.sh .gpurun/build-gpu $o/lpdef 5 "" --fingerprint tests/data/fp-hopper-132.json > $o/lpdef.txt 2>&1
grep -E 'identical|lie within|load' $o/lpdef.txt
tar czf $OUT/lvp.tar.gz -C $OUT lvp
