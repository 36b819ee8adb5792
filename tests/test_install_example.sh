#!/usr/bin/env bash
# ctest: installs this build into a temporary prefix, builds examples/pick_policy against
# the INSTALLED package with pkg-config (vkocc, and vkocc-static for libvkocc.a) and with find_package(vkocc),
# and runs each on the device (lavapipe in the suite) with fingerprints from tests/data: nothing is measured.
# usage: test_install_example.sh BUILD_DIR SOURCE_DIR C_COMPILER PKG_CONFIG [CMAKE]
set -euo pipefail
build=$1 src=$2 cc=$3 pkgconfig=$4 cmake=${5:-cmake}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vkocc-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in include/vkocc.h include/vkocc/common.h include/vkocc/tune.h include/vkocc_plot.h; do [[ -f $tmp/prefix/$f ]] || fail "not installed: $f"; done
pc=$(find "$tmp/prefix" -name vkocc.pc -print -quit)
config=$(find "$tmp/prefix" -name vkocc-config.cmake -print -quit)
[[ -n $pc && -n $config ]] || fail "vkocc.pc or vkocc-config.cmake not installed"
[[ -x $tmp/prefix/bin/vkocc ]] || fail "the CLI is not installed"
if [[ -d $src/glsl ]]; then  # the GLSL includes, where pkg-config says they are
  glsldir=$(PKG_CONFIG_PATH=$(dirname "$pc") "$pkgconfig" --variable=glsldir vkocc)
  [[ -n $(ls -A "$glsldir" 2>/dev/null) ]] || fail "glsl/ is not installed in $glsldir"
  # and an application's own shader compiles against them with the system's glslc
  if [[ -f $glsldir/vkocc/device_barrier.glsl ]] && command -v glslc >/dev/null; then
    printf '#version 450\n#extension GL_GOOGLE_include_directive : require\nlayout(local_size_x = 64) in;\n#include <vkocc/device_barrier.glsl>\nvoid main() { if (!vkocc_device_barrier_once()) return; }\n' >"$tmp/app.comp"
    glslc --target-env=vulkan1.1 -I "$glsldir" -o "$tmp/app.spv" "$tmp/app.comp" || fail "glslc with the installed includes"
  fi
fi

# pkg-config: the relocatable .pc finds the temporary prefix; an application that does not plot links no
# cairo, and nothing names the Vulkan loader (vkocc opens it at run time)
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$("$pkgconfig" --variable=libdir vkocc)
[[ $(cd "$libdir" && pwd) == "$tmp/prefix/"* ]] || fail "pkg-config libdir $libdir is outside the prefix"
# only the prefix's .pc files: a machine with vkocc and the runtime packages of its dependencies, not their
# development files, must still get flags (nothing Requires jansson's or spirv-cross's .pc)
for m in vkocc vkocc-plot; do
  [[ $m == vkocc || -f $(dirname "$pc")/$m.pc ]] || continue
  PKG_CONFIG_LIBDIR=$(dirname "$pc") "$pkgconfig" --cflags --libs $m >/dev/null ||
    fail "pkg-config $m needs other packages' .pc files"
done
flags="$("$pkgconfig" --cflags --libs vkocc)"
[[ $flags != *cairo* && $flags != *vulkan* ]] || fail "pkg-config --libs vkocc: $flags"
"$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/pick_policy_pc" "$src/examples/pick_policy/pick_policy.c" \
  $flags -Wl,-rpath,"$libdir"
if readelf -d "$tmp/pick_policy_pc" | grep 'NEEDED.*cairo' >/dev/null; then fail "the pkg-config build links cairo"; fi
readelf -d "$tmp/pick_policy_pc" | grep 'NEEDED.*libvkocc\.so' >/dev/null || fail "the pkg-config build does not link libvkocc.so"

# Vulkan stays private: the header includes no Vulkan header and the package defines no VK_NO_PROTOTYPES,
# so an application's own vkEnumerateInstanceVersion() keeps its prototype (checked in C++, where a missing
# one is an error) when a C++ compiler and the Vulkan headers are there
grep -q '#include *<vulkan' "$tmp/prefix/include/vkocc.h" "$tmp/prefix/include/vkocc/"*.h "$tmp/prefix/include/vkocc_plot.h" &&
  fail "a public header includes a Vulkan header"
# each part of the header compiles alone (vkocc.h includes them all)
for part in "$tmp/prefix/include/vkocc/"*.h; do
  printf '#include <vkocc/%s>\n' "$(basename "$part")" | "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only \
    -I"$tmp/prefix/include" -x c - || fail "the installed part $(basename "$part") does not compile alone"
done
if grep -rq VK_NO_PROTOTYPES "$(dirname "$config")" "$pc"; then fail "the package sets VK_NO_PROTOTYPES"; fi
if command -v c++ >/dev/null && echo '#include <vulkan/vulkan.h>' | c++ -E -x c++ - >/dev/null 2>&1; then
  printf '#include <vkocc_plot.h>\n#include <vulkan/vulkan.h>\nint main() { uint32_t v; return vkEnumerateInstanceVersion(&v) + (int)vkocc_now_ms(); }\n' |
    c++ -fsyntax-only -Werror -x c++ $("$pkgconfig" --cflags vkocc) - || fail "vkocc.h and vkocc_plot.h with vulkan.h in C++"
fi

# the static library through vkocc-static.pc: no libvkocc.so at run time
"$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/pick_policy_static" "$src/examples/pick_policy/pick_policy.c" \
  $("$pkgconfig" --cflags --libs vkocc-static)
if readelf -d "$tmp/pick_policy_static" | grep 'NEEDED.*libvkocc' >/dev/null; then fail "the static build needs libvkocc.so"; fi

# CMake: find_package(vkocc) -> vkocc::vkocc (the shared library)
"$cmake" -S "$src/examples/pick_policy" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "cmake configure"; }
"$cmake" --build "$tmp/ex" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "cmake build"; }
readelf -d "$tmp/ex/pick_policy" | grep 'NEEDED.*libvkocc\.so' >/dev/null || fail "the CMake build does not link libvkocc.so"

# Both pick the tuned parameters of tests/data/policy-db.json: the H100's cluster has an exact entry for
# small u32 sorts; the RDNA fingerprint is far from every cluster there, so the kernel's default.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
data=$src/tests/data
for exe in "$tmp/pick_policy_pc" "$tmp/ex/pick_policy" "$tmp/pick_policy_static"; do
  out=$("$exe" --db "$data/policy-db.json" --kernel radix_sort --fingerprint "$data/fp-hopper-132.json" \
          --var problem_size=1000 --var element_type=u32 --param wg_size --param elements_per_thread) ||
    fail "$exe exited $?"
  echo "$out"
  grep -q '^device: ' <<<"$out" || fail "$exe printed no device"
  grep -q '^fingerprint: c1-dace7ddcd2e0 ' <<<"$out" || fail "$exe: wrong cluster"
  grep -q '^policy: .*rule cluster (cluster c1-dace7ddcd2e0, distance 0.0000, entry 0)' <<<"$out" ||
    fail "$exe: not the cluster's entry 0"
  # the parameters as JSON text and read typed by name
  grep -q '^parameters: *{"elements_per_thread":14,"wg_size":512}$' <<<"$out" || fail "$exe: wrong parameters"
  grep -q '^  wg_size = 512$' <<<"$out" && grep -q '^  elements_per_thread = 14$' <<<"$out" ||
    fail "$exe: wrong typed parameters"
  out=$("$exe" --db "$data/policy-db.json" --kernel radix_sort --fingerprint "$data/fp-rdna-40.json" \
          --var problem_size=1000 --var element_type=u32 --param wg_size --param elements_per_thread) ||
    fail "$exe exited $?"
  grep -q '^policy: .*rule default$' <<<"$out" && grep -q '^  wg_size = 256$' <<<"$out" &&
    grep -q '^  elements_per_thread = 8$' <<<"$out" || { echo "$out"; fail "$exe: not the default for RDNA"; }
done
# libvkocc-plot (when built): a plotting program links it and cairo through vkocc-plot.pc, and a failed plot's
# message reaches vkocc_last_error() of libvkocc.so (the plot library reports through the public vkocc_fail)
if "$pkgconfig" --exists vkocc-plot; then
  cat >"$tmp/plot.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <vkocc_plot.h>
int main(int argc, char **argv) {
  vkocc_surface s;
  vkocc_derived d;
  if (argc < 3 || vkocc_surface_load(argv[1], &s) || vkocc_derive(s.points, s.count, s.subgroup_size, &d)) return 2;
  vkocc_status st = vkocc_plot_surface(&s, &d, argv[2], NULL);
  vkocc_surface_free(&s);
  printf("%d %s\n", (int)st, vkocc_last_error());
  return !(st == VKOCC_ERROR_USAGE && strstr(vkocc_last_error(), "unknown image type"));
}
C
  "$cc" -std=c11 -Wall -Werror -o "$tmp/plot" "$tmp/plot.c" $("$pkgconfig" --cflags --libs vkocc-plot) -Wl,-rpath,"$libdir"
  "$tmp/plot" "$data/surface-h100.json" "$tmp/surface.xyz" || fail "a plot error did not reach vkocc_last_error"
fi

# bad input: one line naming the file, exit status 2, before the device is opened
set +e
err=$("$tmp/ex/pick_policy" --db "$tmp/missing.json" --kernel radix_sort 2>&1 >/dev/null)
rc=$?
set -e
[[ $rc == 2 && $err == *missing.json* ]] || fail "a missing database: exit $rc, '$err'"
# a parameter the choice lacks: exit 2, the message names it
set +e
err=$("$tmp/ex/pick_policy" --db "$data/policy-db.json" --kernel radix_sort --fingerprint "$data/fp-rdna-40.json" \
        --param tile_size 2>&1 >/dev/null)
rc=$?
set -e
[[ $rc == 2 && $err == *tile_size* ]] || fail "a missing parameter: exit $rc, '$err'"
echo "ok: installed, built with pkg-config and find_package(vkocc), ran both"
