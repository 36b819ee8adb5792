#!/usr/bin/env bash
# Builds the Debian packages from debian/ (dpkg-buildpackage, debhelper) in a copy of the source tree, runs
# lintian on them where it is installed, and with --install-check (as root) installs them, uses them
# (vkocc -V, man vkocc-surface, pkg-config, a program linked with libvkocc) and purges them, checking that
# nothing is left. docs/library.md, "The Debian package".
# usage: scripts/package.sh [--install-check] [OUT_DIR]   (OUT_DIR default: build-deb; the .deb files and
#        lintian.txt go there). Exit 0 ok, 1 failed, 77 skipped (dpkg-buildpackage or debhelper missing; the
#        ctest test test_package counts 77 as skipped).
set -euo pipefail
install_check=0
if [[ ${1:-} == --install-check ]]; then install_check=1; shift; fi
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$src/build-deb}" && cd "${1:-$src/build-deb}" && pwd)
for t in dpkg-buildpackage dh; do
  command -v $t >/dev/null || { echo "package: SKIPPED: $t is missing (apt-get install dpkg-dev debhelper)"; exit 77; }
done
# dpkg-buildpackage builds in the source tree and writes the packages next to it: a copy, in OUT_DIR
work=$out/src
rm -rf "$work" && mkdir -p "$work/vkocc"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then # what git tracks or would track, no build folders
  (cd "$src" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$work/vkocc"
else
  tar -C "$src" --exclude='./build*' --exclude=./obj-* --exclude=./out -cf - . | tar -xf - -C "$work/vkocc"
fi
start=$(date +%s)
(cd "$work/vkocc" && dpkg-buildpackage -b -uc -us -j"$(nproc)") >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log" >&2; echo "package: dpkg-buildpackage failed (log: $out/build.log)" >&2; exit 1; }
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
rm -rf "$work"
echo "package: built in $(($(date +%s) - start)) s:"
(cd "$out" && ls -l ./*.deb | awk '{ print "  " $NF, $5 " bytes" }')
changes=$(ls "$out"/*.changes)
if command -v lintian >/dev/null; then
  # errors and warnings fail; info and pedantic tags are listed (docs/library.md says which are waived)
  lintian -I --pedantic "$changes" 2>&1 | grep -v "running with root privileges" >"$out/lintian.txt" || true
  cat "$out/lintian.txt"
  if grep -q '^[EW]: ' "$out/lintian.txt"; then
    echo "package: lintian reports errors or warnings" >&2
    exit 1
  fi
  echo "package: lintian: $(grep -c '^E: ' "$out/lintian.txt") errors, $(grep -c '^W: ' "$out/lintian.txt") warnings," \
       "$(grep -c '^I: ' "$out/lintian.txt") info, $(grep -c '^P: ' "$out/lintian.txt") pedantic"
else
  echo "package: SKIPPED lintian (not installed: apt-get install lintian)"
fi
[[ $install_check == 1 ]] || exit 0

# ---- install, use, purge (root: dpkg)
[[ $(id -u) == 0 ]] || { echo "package: --install-check needs root (dpkg -i)" >&2; exit 3; }
pkgs=(vkocc libvkocc0.1 libvkocc-plot0.1 libvkocc-dev)
for p in "${pkgs[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
    echo "package: $p is installed already; --install-check would remove it" >&2; exit 3
  fi
done
fail() { echo "package: FAIL: $*" >&2; dpkg -P "${pkgs[@]}" >/dev/null 2>&1 || true; exit 1; }
before=$(mktemp)
find /usr /etc /var/lib/dpkg/info -xdev 2>/dev/null | sort >"$before"
dpkg -i "$out"/vkocc_*.deb "$out"/libvkocc0.1_*.deb "$out"/libvkocc-plot0.1_*.deb "$out"/libvkocc-dev_*.deb \
  >"$out/install.log" 2>&1 || { cat "$out/install.log"; fail "dpkg -i"; }
[[ $(vkocc -V) == "vkocc "* ]] || fail "vkocc -V"
man -w vkocc-surface >/dev/null 2>&1 || fail "man vkocc-surface"
[[ -f /usr/share/bash-completion/completions/vkocc ]] || fail "no bash completion"
libs=$(pkg-config --libs vkocc | sed 's/ *$//')
[[ $libs == "-lvkocc" ]] || fail "pkg-config --libs vkocc: '$libs' (expected -lvkocc: a system libdir is dropped)"
tmp=$(mktemp -d)
printf '#include <stdio.h>\n#include <vkocc.h>\nint main(void) { printf("%%s\\n", vkocc_version()); return 0; }\n' >"$tmp/app.c"
cc -std=c11 -Wall -Wextra -Wpedantic -Werror "$tmp/app.c" -o "$tmp/app" $(pkg-config --cflags --libs vkocc) ||
  fail "a program with pkg-config vkocc"
"$tmp/app" >/dev/null || fail "the program linked with libvkocc"
rm -rf "$tmp"
dpkg -P "${pkgs[@]}" >>"$out/install.log" 2>&1 || fail "dpkg -P"
for p in "${pkgs[@]}"; do
  ! dpkg-query -W "$p" >/dev/null 2>&1 || fail "$p still known to dpkg after purge ($(dpkg-query -W -f='${Status}' "$p"))"
done
after=$(mktemp)
find /usr /etc /var/lib/dpkg/info -xdev 2>/dev/null | sort >"$after"
left=$(comm -13 "$before" "$after" | grep -v '^/usr/share/man/index\|^/var/cache' || true)
rm -f "$before" "$after"
[[ -z $left ]] || fail "left behind after purge: $left"
echo "package: installed, used (vkocc -V, man vkocc-surface, pkg-config, a linked program) and purged; nothing left"
