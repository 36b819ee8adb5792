#!/usr/bin/env bash
# The kits of scripts/gpu/speed-race.sh, small enough to travel beside the repository (the working tree that goes to
# the GPU machine is limited to 64 MiB and the repository takes 62): the builds relinked with jansson, SQLite and
# SPIRV-Cross static (no Debian package needed there but the Vulkan loader and libglvnd), stripped, and packed with one
# xz dictionary (the two versions share most of their bytes).
#   bash scripts/gpu/speed-race-kit.sh BEFORE_BUILD AFTER_BUILD OUT_DIR
# OUT_DIR/kit.tar.xz: before/ and after/ (vkocc, bench_fingerprint) linked with a stand-in for shaderc
# (docs/results/h100/fingerprint-speed/raw/stub-shaderc.c: nothing there compiles GLSL; the --shader checks take
# SPIR-V, the tuned matmul is bench/tune/matmul_spec, SPIR-V with specialization constants), spv/, matmul/, debs/,
# enter.sh, speed-race.sh; and OUT_DIR/kit.part.NN, the same in PIECES pieces (default 4): the
# repository leaves about 0.7 MB of the 64 MiB a call may carry, so the pieces go one call each to a warm machine's
# /tmp. Builds: Release, without the viewer, GLFW and MPI.
set -eu
B=$(cd "$1" && pwd); A=$(cd "$2" && pwd); O=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
L=/usr/lib/x86_64-linux-gnu
W=$(mktemp -d)
mkdir -p "$O" "$W/fp/before" "$W/fp/after" "$W/fp/spv" "$W/fp/matmul" "$W/debs"
cc -O2 -c "$root/docs/results/h100/fingerprint-speed/raw/stub-shaderc.c" -o "$W/stub.o"
SPVC="-Wl,--start-group $L/libspirv-cross-c.a $L/libspirv-cross-glsl.a $L/libspirv-cross-hlsl.a $L/libspirv-cross-msl.a"
SPVC="$SPVC $L/libspirv-cross-cpp.a $L/libspirv-cross-reflect.a $L/libspirv-cross-core.a -Wl,--end-group"
statics() { sed "s#$L/libsqlite3.so#$L/libsqlite3.a -lpthread#; s#$L/libjansson.so#$L/libjansson.a#; s#$L/libspirv-cross-c-shared.so#$SPVC -lstdc++#"; }
stub() { sed "s#-Wl,--start-group $L/libshaderc_combined.a.*libSPIRV-Tools.a -Wl,--end-group#$W/stub.o#"; }
# relink BUILD_DIR SUBDIR TARGET NAME DEST [stub]: TARGET's link command (its output NAME) writing DEST instead
relink() {
  local cmd
  cmd=$(sed "s# -o $4 # -o $5 #" "$1/$2/CMakeFiles/$3.dir/link.txt" | statics)
  [ "${6:-}" = stub ] && cmd=$(echo "$cmd" | stub)
  (cd "$1/$2" && eval "$cmd")
  strip "$5"
}
for v in before after; do
  d=$B; [ $v = after ] && d=$A
  relink "$d" . vkocc-cli vkocc "$W/fp/$v/vkocc" stub
  relink "$d" bench bench_fingerprint bench_fingerprint "$W/fp/$v/bench_fingerprint" stub
done
for s in stencil_tile regpressure histogram; do
  glslc -O --target-env=vulkan1.1 "$root/tests/shaders/$s.comp" -o "$W/fp/spv/$s.spv"
done
cp "$root/bench/tune/matmul_spec/matmul_spec.json" "$root/bench/tune/matmul_spec/matmul_spec.spv" "$W/fp/matmul/"
mkdir -p /tmp/amd64-lists/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64-lists'
apt-get $o update -qq
(cd "$W/debs" && apt-get $o download -qq libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libopengl0 libgles2 2>&1 | grep -v unsandboxed || true)
cat > "$W/enter.sh" <<'EOS'
# Source this on the GPU machine: unpacks the carried runtime packages and points Vulkan at the driver.
for f in "$(dirname "${BASH_SOURCE[0]}")"/debs/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
EOS
cp -r "$W/debs" "$W/enter.sh" "$root/scripts/gpu/speed-race.sh" "$W/fp/"
tar cf - -C "$W" fp | xz --lzma2=preset=9e,dict=64MiB -T1 > "$O/kit.tar.xz"
(cd "$O" && rm -f kit.part.* && split -n "${PIECES:-4}" -d kit.tar.xz kit.part.)
rm -rf "$W"
ls -l "$O"
